package dev.tandem.tools.ras;

import dev.tandem.ras.CounterSnapshot;
import dev.tandem.ras.RasListing;
import dev.tandem.tools.text.ToolException;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What one refresh of {@code tandem stat} shows: the processes and their counters, read at {@code nowMs}.
 *
 * @param dir        the RAS directory
 * @param nowMs      when it was read, epoch ms
 * @param processes  each process with its counters that pass the filter
 * @param unreadable files that could not be read
 * @param hiddenDead processes dead for over a day, not shown
 * @param filter     the counter filter applied
 */
record StatFrame(Path dir, long nowMs, List<ProcessCounters> processes, List<RasListing.Unreadable> unreadable,
                 int hiddenDead, CounterFilter filter) {

    /**
     * One process and its counters.
     *
     * @param process  the process as its file showed it when the counters were read
     * @param total    counters allocated in the file
     * @param counters those that pass the filter, by owner key, then id
     */
    record ProcessCounters(ProcessView process, int total, List<CounterSnapshot> counters) {
    }

    /**
     * Reads the counters of every selected process. A file that cannot be read is listed as
     * unreadable, unless it is the one process asked for ({@code strict}): then it fails.
     *
     * @throws ToolException when {@code strict} and the file cannot be read
     */
    static StatFrame read(Selection selection, CounterFilter filter, long nowMs, boolean strict) {
        List<ProcessCounters> processes = new ArrayList<>();
        List<RasListing.Unreadable> unreadable = new ArrayList<>(selection.unreadable());
        for (ProcessView p : selection.processes()) {
            try {
                processes.add(RasFiles.read(p.file(), r -> {
                    List<CounterSnapshot> all = r.counters();
                    List<CounterSnapshot> shown = all.stream().filter(filter)
                            .sorted(Comparator.comparingLong(CounterSnapshot::ownerKey).thenComparingInt(CounterSnapshot::id))
                            .toList();
                    return new ProcessCounters(new ProcessView(p.file(), r.header(), r.processAlive()), all.size(), shown);
                }));
            } catch (ToolException e) {
                if (strict) {
                    throw e;
                }
                unreadable.add(new RasListing.Unreadable(p.file(), e.getMessage()));
            }
        }
        return new StatFrame(selection.dir(), nowMs, processes, unreadable, selection.hiddenDead(), filter);
    }
}

package dev.tandem.tools.ras;

import dev.tandem.ras.RasListing;
import dev.tandem.ras.ResourceEntry;
import dev.tandem.tools.text.ToolException;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What one refresh of {@code tandem stat --resources} shows: the processes and their live verbs
 * resources (the resource owner table of each RAS file), read at {@code nowMs}.
 *
 * @param dir        the RAS directory
 * @param nowMs      when it was read, epoch ms
 * @param processes  each process with its resources
 * @param unreadable files that could not be read
 * @param hiddenDead processes dead for over a day, not shown
 */
record ResourceFrame(Path dir, long nowMs, List<ProcessResources> processes, List<RasListing.Unreadable> unreadable,
                     int hiddenDead) {

    /**
     * One process and its resources.
     *
     * @param process   the process as its file showed it when the resources were read
     * @param resources its live resources, oldest first
     * @param dropped   registrations dropped because its resource table was full
     */
    record ProcessResources(ProcessView process, List<ResourceEntry> resources, long dropped) {
    }

    /**
     * Reads the resource tables of every selected process. A file that cannot be read is listed as
     * unreadable, unless it is the one process asked for ({@code strict}): then it fails.
     *
     * @throws ToolException when {@code strict} and the file cannot be read
     */
    static ResourceFrame read(Selection selection, long nowMs, boolean strict) {
        List<ProcessResources> processes = new ArrayList<>();
        List<RasListing.Unreadable> unreadable = new ArrayList<>(selection.unreadable());
        for (ProcessView p : selection.processes()) {
            try {
                processes.add(RasFiles.read(p.file(), r -> new ProcessResources(new ProcessView(p.file(), r.header(), r.processAlive()),
                        r.resources(), r.droppedResources())));
            } catch (ToolException e) {
                if (strict) {
                    throw e;
                }
                unreadable.add(new RasListing.Unreadable(p.file(), e.getMessage()));
            }
        }
        return new ResourceFrame(selection.dir(), nowMs, processes, unreadable, selection.hiddenDead());
    }
}

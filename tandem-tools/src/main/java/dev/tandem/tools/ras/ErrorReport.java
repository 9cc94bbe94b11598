package dev.tandem.tools.ras;

import dev.tandem.ras.ErrorEntry;
import dev.tandem.ras.RasListing;
import dev.tandem.tools.text.ToolException;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The error logs of the selected processes, read at {@code nowMs}.
 *
 * @param dir        the RAS directory
 * @param nowMs      when it was read
 * @param processes  each process with its distinct errors
 * @param unreadable files that could not be read
 * @param hiddenDead processes dead for over a day, not shown
 */
record ErrorReport(Path dir, long nowMs, List<ProcessErrors> processes, List<RasListing.Unreadable> unreadable, int hiddenDead) {

    /**
     * One process's error log.
     *
     * @param process the process
     * @param errors  its distinct errors, oldest cause first
     * @param dropped observations dropped because the log was full
     */
    record ProcessErrors(ProcessView process, List<ErrorEntry> errors, long dropped) {
    }

    /** Reads the error logs; as {@link StatFrame#read}, a bad file fails only when it is the one asked for. */
    static ErrorReport read(Selection selection, long nowMs, boolean strict) {
        List<ProcessErrors> processes = new ArrayList<>();
        List<RasListing.Unreadable> unreadable = new ArrayList<>(selection.unreadable());
        for (ProcessView p : selection.processes()) {
            try {
                processes.add(RasFiles.read(p.file(), r -> new ProcessErrors(new ProcessView(p.file(), r.header(), r.processAlive()),
                        r.errors(), r.droppedErrors())));
            } catch (ToolException e) {
                if (strict) {
                    throw e;
                }
                unreadable.add(new RasListing.Unreadable(p.file(), e.getMessage()));
            }
        }
        return new ErrorReport(selection.dir(), nowMs, processes, unreadable, selection.hiddenDead());
    }
}

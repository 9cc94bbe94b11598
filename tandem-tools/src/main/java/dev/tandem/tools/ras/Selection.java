package dev.tandem.tools.ras;

import dev.tandem.ras.RasListing;

import java.nio.file.Path;
import java.util.List;

/**
 * The processes a command looks at.
 *
 * @param dir        the RAS directory
 * @param processes  readable files, by pid
 * @param unreadable files named like RAS files that could not be read
 * @param hiddenDead files of processes dead for longer than {@link RasFiles#RECENT_MS} left out
 */
record Selection(Path dir, List<ProcessView> processes, List<RasListing.Unreadable> unreadable, int hiddenDead) {
    boolean isEmpty() {
        return processes.isEmpty() && unreadable.isEmpty();
    }
}

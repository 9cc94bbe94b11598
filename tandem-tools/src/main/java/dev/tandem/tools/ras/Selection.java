package dev.tandem.tools.ras;

import dev.tandem.ras.RasListing;
import dev.tandem.tools.text.ToolException;

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

    /**
     * Fails when nothing is selected, saying how many files of long-dead processes {@code --all} would
     * list, or when there are none, {@code hint}.
     *
     * @param hint what to try, e.g. {@code give --dir if they use another directory}
     * @throws ToolException when nothing is selected
     */
    void failIfEmpty(String hint) {
        if (isEmpty()) {
            throw new ToolException("no Tandem processes in " + dir + (hiddenDead > 0
                    ? " but " + hiddenDead + " file(s) of processes dead for more than a day (--all lists them)"
                    : " (" + hint + ")"));
        }
    }
}

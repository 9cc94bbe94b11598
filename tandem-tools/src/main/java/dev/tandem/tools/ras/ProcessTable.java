package dev.tandem.tools.ras;

import dev.tandem.ras.RasListing;
import dev.tandem.tools.text.TextTable;
import dev.tandem.tools.text.TimeFormat;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/** Prints the process listing that {@code stat} and {@code errors} start with. */
final class ProcessTable {
    private ProcessTable() {
    }

    /**
     * What {@code stat} prints first: the listing, or when there is no process and no unreadable file,
     * {@code no Tandem processes in DIR} and how many files of long-dead processes are not shown.
     *
     * @return false when there was nothing to list
     */
    static boolean printOrNone(PrintWriter out, Path dir, long nowMs, List<ProcessView> processes,
                               List<RasListing.Unreadable> unreadable, int hiddenDead) {
        if (processes.isEmpty() && unreadable.isEmpty()) {
            out.println("no Tandem processes in " + dir);
            printHidden(out, hiddenDead);
            return false;
        }
        print(out, dir, nowMs, processes, unreadable, hiddenDead);
        return true;
    }

    /** {@code Tandem processes in DIR at TIME:}, then a row per process, the unreadable files and how many are hidden. */
    static void print(PrintWriter out, Path dir, long nowMs, List<ProcessView> processes, List<RasListing.Unreadable> unreadable,
                      int hiddenDead) {
        out.println("Tandem processes in " + dir + " at " + TimeFormat.iso(nowMs) + ":");
        TextTable table = new TextTable(">PID", "PROCESS", "FILE", "STARTED (UTC)", ">HEARTBEAT", "COMMAND");
        for (ProcessView p : processes) {
            table.row(p.pid(), p.processState(), p.fileState(), TimeFormat.iso(p.header().startTimeMs()),
                    TimeFormat.age(nowMs - p.header().heartbeatMs()) + " ago", p.header().command());
        }
        if (!table.isEmpty()) {
            table.print(out, "  ");
        }
        for (RasListing.Unreadable u : unreadable) {
            out.println("  unreadable: " + u.file() + ": " + TextTable.oneLine(u.reason()));
        }
        printHidden(out, hiddenDead);
    }

    private static void printHidden(PrintWriter out, int hiddenDead) {
        if (hiddenDead > 0) {
            out.println("  (" + hiddenDead + " file(s) of processes dead for more than a day not shown; --all lists them)");
        }
    }
}

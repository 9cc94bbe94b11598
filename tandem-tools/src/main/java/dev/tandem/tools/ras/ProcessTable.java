package dev.tandem.tools.ras;

import dev.tandem.ras.RasListing;

import java.io.PrintWriter;
import java.util.List;

/** Prints the process listing that {@code stat} and {@code errors} start with. */
final class ProcessTable {
    private ProcessTable() {
    }

    static void print(PrintWriter out, List<ProcessView> processes, List<RasListing.Unreadable> unreadable, int hiddenDead,
                      long nowMs) {
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
        if (hiddenDead > 0) {
            out.println("  (" + hiddenDead + " file(s) of processes dead for more than a day not shown; --all lists them)");
        }
    }
}

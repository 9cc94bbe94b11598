package dev.tandem.tools.ras;

import dev.tandem.ras.ErrorEntry;
import dev.tandem.tools.text.TextTable;
import dev.tandem.tools.text.TimeFormat;

import java.io.PrintWriter;

/** {@code tandem errors} for people: per process, each distinct error with its count, times, cause and first detail. */
final class ErrorsText {
    private static final String DETAIL_INDENT = "         ";

    private ErrorsText() {
    }

    static void print(PrintWriter out, ErrorReport report) {
        if (report.processes().size() + report.unreadable().size() > 1 || report.hiddenDead() > 0 || !report.unreadable().isEmpty()) {
            ProcessTable.print(out, report.dir(), report.nowMs(), report.processes().stream().map(ErrorReport.ProcessErrors::process).toList(),
                    report.unreadable(), report.hiddenDead());
            out.println();
        }
        boolean first = true;
        for (ErrorReport.ProcessErrors pe : report.processes()) {
            if (!first) {
                out.println();
            }
            first = false;
            out.println(pe.process().title() + ": " + pe.errors().size() + (pe.errors().size() == 1 ? " distinct error" : " distinct errors")
                    + ", " + pe.dropped() + " observation(s) dropped because the log was full");
            if (pe.errors().isEmpty()) {
                out.println("  no errors recorded");
            }
            int n = 1;
            for (ErrorEntry e : pe.errors()) {
                out.println("  [" + n++ + "] count " + e.count() + ", first " + TimeFormat.iso(e.firstMs()) + ", last " + TimeFormat.iso(e.lastMs()));
                out.println("      cause: " + TextTable.oneLine(e.cause()));
                if (!e.text().isBlank()) {
                    String[] lines = e.text().stripTrailing().split("\\R");
                    out.println("      first: " + lines[0].replace("\t", "    "));
                    for (int i = 1; i < lines.length; i++) {
                        out.println(DETAIL_INDENT + "    " + lines[i].replace("\t", "    "));
                    }
                }
            }
        }
    }
}

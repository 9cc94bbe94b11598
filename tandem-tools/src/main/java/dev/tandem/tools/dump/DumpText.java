package dev.tandem.tools.dump;

import dev.tandem.ras.CounterSnapshot;
import dev.tandem.ras.DumpHeader;
import dev.tandem.ras.DumpReader;
import dev.tandem.ras.ErrorEntry;
import dev.tandem.ras.RasHeader;
import dev.tandem.ras.RasReader;
import dev.tandem.ras.ResourceEntry;
import dev.tandem.ras.TraceLevel;
import dev.tandem.ras.TraceRecord;
import dev.tandem.tools.text.TextTable;
import dev.tandem.tools.text.TimeFormat;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code tandem dump --decode} for people: the header; the state tree grouped by adapter and QP; then
 * from the RAS file copy the resource table with owners, counters grouped by adapter and QP, the error
 * log and the trace ring, oldest first.
 */
final class DumpText {
    private static final String DETAIL_INDENT = "             ";

    private DumpText() {
    }

    static void print(PrintWriter out, DumpReader dump) {
        DumpHeader h = dump.header();
        RasReader ras = dump.ras();
        RasHeader rasHeader = ras.header();
        out.println("dump " + dump.path());
        out.println("  pid       " + h.pid() + (h.fromRasFileOnly() ? " (dumped by pid " + h.writerPid() + " from its RAS file alone)" : ""));
        out.println("  written   " + TimeFormat.iso(h.timeMs()));
        out.println("  reason    " + TextTable.oneLine(h.reason()));
        out.println("  command   " + TextTable.oneLine(h.command()));
        out.println("  RAS file  layout v" + rasHeader.layoutVersion() + ", created " + TimeFormat.iso(rasHeader.startTimeMs())
                + ", last heartbeat " + TimeFormat.iso(rasHeader.heartbeatMs()) + ", file " + rasHeader.ownerState().name().toLowerCase(Locale.ROOT));

        out.println();
        if (dump.tree().isEmpty()) {
            out.println("state: none (" + (h.fromRasFileOnly() ? "the dump holds the process's RAS file only)"
                    : "no snapshot source was registered)"));
        } else {
            out.println("state:");
            StateTreeText.print(out, dump.tree(), "  ");
        }

        resources(out, ras.resources(), ras.droppedResources());
        counters(out, ras);
        errors(out, ras.errors(), ras.droppedErrors());
        trace(out, ras.traceRecords());
    }

    private static void resources(PrintWriter out, List<ResourceEntry> resources, long dropped) {
        out.println();
        out.println("resources: " + resources.size() + " live, " + dropped + " registration(s) dropped because the table was full");
        if (resources.isEmpty()) {
            return;
        }
        TextTable table = new TextTable("TYPE", ">ID", "NAME", ">PID", "THREAD", "CREATED (UTC)", "CALL SITE", "DETAIL");
        for (ResourceEntry r : resources) {
            table.row(r.type(), r.id(), r.name(), r.pid(), r.thread(), TimeFormat.iso(r.createdMs()), r.callSite(), r.detail());
        }
        table.print(out, "  ");
    }

    private static void counters(PrintWriter out, RasReader ras) {
        List<CounterSnapshot> counters = ras.counters();
        out.println();
        out.println("counters: " + counters.size());
        for (CounterGroups.Group g : CounterGroups.of(counters)) {
            out.println("  " + (g.adapter().isEmpty() ? "(no prefix)" : TextTable.oneLine(g.adapter())));
            rows(out, "    ", g.own());
            for (Map.Entry<Long, List<CounterGroups.Row>> qp : g.qps().entrySet()) {
                out.println("    qp " + qp.getKey());
                rows(out, "      ", qp.getValue());
            }
        }
    }

    private static void rows(PrintWriter out, String indent, List<CounterGroups.Row> rows) {
        if (rows.isEmpty()) {
            return;
        }
        TextTable table = new TextTable(">VALUE", "COUNTER");
        rows.forEach(r -> table.row(r.value(), r.name()));
        table.print(out, indent);
    }

    private static void errors(PrintWriter out, List<ErrorEntry> errors, long dropped) {
        out.println();
        out.println("errors: " + errors.size() + " distinct, " + dropped + " observation(s) dropped because the log was full");
        int n = 1;
        for (ErrorEntry e : errors) {
            out.println("  [" + n++ + "] count " + e.count() + ", first " + TimeFormat.iso(e.firstMs()) + ", last " + TimeFormat.iso(e.lastMs()));
            out.println("      cause: " + TextTable.oneLine(e.cause()));
            if (!e.text().isBlank()) {
                String[] lines = e.text().stripTrailing().split("\\R");
                out.println("      first: " + TextTable.oneLine(lines[0].replace("\t", "    ")));
                for (int i = 1; i < lines.length; i++) {
                    out.println(DETAIL_INDENT + TextTable.oneLine(lines[i].replace("\t", "    ")));
                }
            }
        }
    }

    private static void trace(PrintWriter out, List<TraceRecord> records) {
        out.println();
        out.println("trace: " + records.size() + (records.size() == 1 ? " record" : " records") + ", oldest first");
        if (records.isEmpty()) {
            return;
        }
        TextTable table = new TextTable("TIME (UTC)", ">THREAD", "COMPONENT", "LEVEL", "EVENT", ">A", ">B", ">C", ">D", "TEXT");
        for (TraceRecord r : records) {
            table.row(TimeFormat.isoMicros(r.epochNanos()), r.threadId(), r.component(), r.level() + " " + TraceLevel.describe(r.level()),
                    r.event(), r.a(), r.b(), r.c(), r.d(), r.text());
        }
        table.print(out, "  ");
    }
}

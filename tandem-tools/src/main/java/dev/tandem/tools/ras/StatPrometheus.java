package dev.tandem.tools.ras;

import dev.tandem.ras.CounterSnapshot;

import java.io.PrintWriter;
import java.math.BigDecimal;

/**
 * {@code tandem stat --prometheus}: the Prometheus text exposition format (version 0.0.4), e.g. for
 * node_exporter's textfile collector. Metric names are fixed and valid ({@code [a-zA-Z_:][a-zA-Z0-9_:]*});
 * what varies goes into label values, escaped ({@code \\}, {@code \"}, {@code \n}):
 * <pre>
 * # TYPE tandem_counter gauge
 * tandem_counter{pid="4711",label="iwarp0@127.0.1.1 qp 3 bytes_sent",type="2",owner="3",id="0"} 1024
 * </pre>
 * Counters are gauges: some are high-water marks, and a counter's slot may be reused.
 */
final class StatPrometheus {
    private StatPrometheus() {
    }

    static void print(PrintWriter out, StatFrame frame) {
        family(out, "tandem_process_alive", "1 while the process that owns the RAS file runs, else 0");
        for (StatFrame.ProcessCounters pc : frame.processes()) {
            out.println("tandem_process_alive{pid=\"" + pc.process().pid() + "\"} " + (pc.process().alive() ? 1 : 0));
        }
        family(out, "tandem_process_start_time_seconds", "when the process created its RAS file, seconds since the epoch");
        for (StatFrame.ProcessCounters pc : frame.processes()) {
            out.println("tandem_process_start_time_seconds{pid=\"" + pc.process().pid() + "\"} "
                    + seconds(pc.process().header().startTimeMs()));
        }
        family(out, "tandem_process_heartbeat_age_seconds", "seconds since the process's last RAS heartbeat");
        for (StatFrame.ProcessCounters pc : frame.processes()) {
            out.println("tandem_process_heartbeat_age_seconds{pid=\"" + pc.process().pid() + "\"} "
                    + seconds(frame.nowMs() - pc.process().header().heartbeatMs()));
        }
        family(out, "tandem_counter", "a Tandem RAS counter; label is its name, type its type id, owner its owner key");
        for (StatFrame.ProcessCounters pc : frame.processes()) {
            for (CounterSnapshot c : pc.counters()) {
                out.println("tandem_counter{pid=\"" + pc.process().pid() + "\",label=\"" + escape(c.label()) + "\",type=\""
                        + c.typeId() + "\",owner=\"" + c.ownerKey() + "\",id=\"" + c.id() + "\"} " + c.value());
            }
        }
    }

    private static void family(PrintWriter out, String name, String help) {
        out.println("# HELP " + name + " " + help);
        out.println("# TYPE " + name + " gauge");
    }

    private static String seconds(long ms) {
        return BigDecimal.valueOf(ms, 3).toPlainString();
    }

    /** A label value escaped as the format asks: backslash, double quote and line feed. */
    static String escape(String value) {
        StringBuilder b = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> b.append("\\\\");
                case '"' -> b.append("\\\"");
                case '\n' -> b.append("\\n");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}

package dev.tandem.tools.perf;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * perftest's text report: a header block, the table of Tandem's rows (printed as each size
 * finishes), then the baseline's table and the ratio lines.
 */
public final class PerfTextPrinter {
    private final PrintWriter out;
    private final PerfSettings settings;

    public PerfTextPrinter(PrintWriter out, PerfSettings settings) {
        this.out = out;
        this.settings = settings;
    }

    public void start(String local, String remote, boolean crc) {
        PerfTest t = settings.test();
        out.println(PerfFormat.RESULT_LINE);
        out.println("                    " + t.title());
        out.println(" Provider        : " + settings.device().description());
        out.println(" Path            : " + local + " -> " + remote + (settings.role() == Role.LOOPBACK ? " (loopback, one process)" : ""));
        out.println(" Connection type : RC");
        if (t.isBandwidth()) {
            out.println(" TX depth        : " + settings.txDepth());
        }
        out.println(" CRC             : " + (crc ? "ON" : "OFF"));
        out.println(" Waiting mode    : " + settings.waitMode().jsonName() + " (" + (t == PerfTest.WRITE_LAT
                ? "polling the last byte of the receive buffer" : settings.waitMode().tandemDescription()) + ")");
        out.println(" Warm-up         : " + warmupText());
        if (settings.timed()) {
            out.println(" Duration        : " + settings.durationSeconds() + " s measured, after the warm-up ("
                    + (t.isBandwidth() ? "no BW peak: perftest drops it in duration mode too"
                    : "median and percentiles from a histogram, within " + LatencyHistogram.RELATIVE_ERROR_TEXT) + ")");
        }
        Baseline baseline = settings.baseline();
        if (baseline.present()) {
            out.println(" Baseline        : " + baseline.path() + " on the same path, " + baseline.waitDescription(settings.waitMode()));
        }
        if (!t.isBandwidth()) {
            out.println(" Latency         : " + (t.latencyDivisor() == 2 ? "half of a round trip" : "whole operation")
                    + "; t_typical = median");
        }
        out.println(PerfFormat.RESULT_LINE);
        out.println(PerfFormat.header(t.kind()));
        out.flush();
    }

    public void tandemRow(SizeResult r) {
        out.println(PerfFormat.row(r.tandem()));
        out.flush();
    }

    public void finish(PerfReport report) {
        out.println(PerfFormat.RESULT_LINE);
        Baseline baseline = settings.baseline();
        if (baseline.present()) {
            out.println(" Baseline: " + baseline.path() + ", same path, " + baseline.waitDescription(settings.waitMode()));
            out.println(PerfFormat.header(settings.test().kind()));
            for (SizeResult r : report.results()) {
                out.println(PerfFormat.row(r.baseline()));
            }
            out.println(PerfFormat.RESULT_LINE);
            boolean several = report.results().size() > 1;
            for (SizeResult r : report.results()) {
                out.println(PerfFormat.ratio(settings.test().kind(), baseline, r.ratio())
                        + (several ? "  (" + r.phase().size() + " bytes)" : ""));
            }
        }
        if (AllocationMeter.supported()) {
            for (SizeResult r : report.results()) {
                out.println(String.format(Locale.ROOT, " allocated per iteration%s: client %s, server %s bytes",
                        report.results().size() > 1 ? " (" + r.phase().size() + " bytes)" : "",
                        bytes(r.tandemClientAllocPerOp()), bytes(r.tandemServerAllocPerOp())));
            }
        }
        out.flush();
    }

    /** What a {@code --server} prints once its client is gone. */
    public static void served(PrintWriter out, ServedRun run, String address) {
        Hello.Client h = run.hello();
        out.println(PerfFormat.RESULT_LINE);
        out.println(" served " + h.test().cliName() + " on " + address + " to " + run.client() + ": CRC " + (run.crc() ? "ON" : "OFF")
                + ", " + h.waitMode().jsonName() + (h.baseline().present() ? ", with the " + h.baseline().title() + " baseline" : ""));
        java.util.List<Phase> phases = h.plan().phases();
        for (int i = 0; i < phases.size(); i++) {
            Phase p = phases.get(i);
            SideResult served = run.tandem().get(i);
            if (p.warmup() instanceof Span.Iterations(long warm) && p.measured() instanceof Span.Iterations(long measured)) {
                out.println(String.format(Locale.ROOT, " %-7d %d iterations (+%d warm-up), allocated per iteration: %s bytes",
                        p.size(), measured, warm, bytes(served.allocPerOp())));
            } else {
                out.println(String.format(Locale.ROOT, " %-7d %d iterations served in %d s and the warm-up, allocated per iteration: %s bytes",
                        p.size(), served.operations(), h.durationSeconds(), bytes(served.allocPerOp())));
            }
        }
        out.println(PerfFormat.RESULT_LINE);
        out.flush();
    }

    private String warmupText() {
        if (settings.warmup() != PerfSettings.DEFAULT_WARMUP) {
            return settings.warmup() + " iterations, not counted";
        }
        return settings.timed() ? "the first " + PerfPlan.DURATION_WARMUP.toSeconds() + " s, not counted"
                : "as many iterations as measured, not counted";
    }

    private static String bytes(double perOp) {
        return Double.isNaN(perOp) ? "n/a" : String.format(Locale.ROOT, "%.1f", perOp);
    }
}

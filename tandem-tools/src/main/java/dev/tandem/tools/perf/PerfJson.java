package dev.tandem.tools.perf;

/** {@code --json}: one JSON object with every figure of a run. */
public final class PerfJson {
    private PerfJson() {
    }

    public static String of(PerfReport report) {
        PerfSettings s = report.settings();
        JsonWriter w = new JsonWriter().beginObject()
                .field("tool", "tandem perf")
                .field("test", s.test().cliName())
                .field("device", s.device().cliName())
                .field("kind", s.test().isBandwidth() ? "bandwidth" : "latency")
                .field("role", s.role().name().toLowerCase(java.util.Locale.ROOT))
                .field("local", report.local())
                .field("remote", report.remote())
                .field("crc", report.crc())
                .field("wait", s.waitMode().jsonName())
                .field("wait_description", s.waitMode().tandemDescription())
                .field("tx_depth", s.txDepth())
                .field("sweep", s.sweep());
        seconds(w, "duration_sec", s.timed() ? s.durationSeconds() : null);
        seconds(w, "warmup_sec", s.timed() && s.warmup() == PerfSettings.DEFAULT_WARMUP ? PerfPlan.DURATION_WARMUP.toSeconds() : null);
        Baseline baseline = s.baseline();
        w.field("baseline", baseline.present() ? baseline.cliName() : null);
        if (baseline.present()) {
            w.field("baseline_wait_description", baseline.waitDescription(s.waitMode()));
        }
        w.name("units").beginObject()
                .field("bandwidth", "MB/sec, MB = 1048576 bytes")
                .field("latency", s.test().latencyDivisor() == 2 ? "usec, half a round trip" : "usec, whole operation")
                .field("alloc", "bytes allocated per measured iteration by the thread that posts and polls");
        if (!s.test().isBandwidth()) {
            w.field("percentiles", s.timed()
                    ? "nearest-rank from a log-bucketed histogram, within " + LatencyHistogram.RELATIVE_ERROR_TEXT + " of the exact sample"
                    : "nearest-rank over every sample");
        }
        w.endObject();
        w.field("alloc_supported", AllocationMeter.supported());
        w.name("results").beginArray();
        for (SizeResult r : report.results()) {
            w.beginObject()
                    .field("bytes", r.phase().size())
                    .field("iterations", r.tandem().iterations());
            count(w, "warmup", r.phase().warmup());
            w.name("tandem");
            figures(w, r.tandem());
            w.name(baseline.jsonKey());
            if (r.hasBaseline()) {
                figures(w, r.baseline());
                w.name("ratio").beginObject().field(s.test().isBandwidth() ? "bw" : "t_typical", r.ratio()).endObject();
            } else {
                w.nullValue();
                w.name("ratio").nullValue();
            }
            w.name("alloc_bytes_per_op").beginObject()
                    .field("tandem_client", r.tandemClientAllocPerOp())
                    .field("tandem_server", r.tandemServerAllocPerOp())
                    .field(baseline.jsonKey() + "_client", r.baselineClientAllocPerOp())
                    .field(baseline.jsonKey() + "_server", r.baselineServerAllocPerOp())
                    .endObject();
            w.endObject();
        }
        return w.endArray().endObject().toString();
    }

    /** What a {@code --server} reports: the client, the test, and its own allocation per phase. */
    public static String served(ServedRun run, String address) {
        Hello.Client h = run.hello();
        JsonWriter w = new JsonWriter().beginObject()
                .field("tool", "tandem perf")
                .field("role", "server")
                .field("address", address)
                .field("client", run.client())
                .field("test", h.test().cliName())
                .field("crc", run.crc())
                .field("wait", h.waitMode().jsonName())
                .field("baseline", h.baseline().present() ? h.baseline().cliName() : null);
        seconds(w, "duration_sec", h.durationSeconds() != PerfSettings.NO_DURATION ? h.durationSeconds() : null);
        w.name("results").beginArray();
        java.util.List<Phase> phases = h.plan().phases();
        for (int i = 0; i < phases.size(); i++) {
            w.beginObject().field("bytes", phases.get(i).size());
            count(w, "iterations", phases.get(i).measured());
            count(w, "warmup", phases.get(i).warmup());
            w.field("served", run.tandem().get(i).operations());
            w.name("alloc_bytes_per_op").beginObject()
                    .field("tandem_server", run.tandem().get(i).allocPerOp())
                    .field(h.baseline().jsonKey() + "_server", i < run.baseline().size() ? run.baseline().get(i).allocPerOp() : Double.NaN)
                    .endObject();
            w.endObject();
        }
        return w.endArray().endObject().toString();
    }

    /** A span's iteration count, or null when it is a time (duration mode). */
    private static void count(JsonWriter w, String name, Span span) {
        if (span instanceof Span.Iterations(long n)) {
            w.field(name, n);
        } else {
            w.name(name).nullValue();
        }
    }

    private static void seconds(JsonWriter w, String name, Number value) {
        if (value == null) {
            w.name(name).nullValue();
        } else {
            w.field(name, value.longValue());
        }
    }

    private static void figures(JsonWriter w, Figures f) {
        w.beginObject().field("iterations", f.iterations());
        switch (f) {
            case BandwidthStats b -> w.field("bw_peak_mb_per_sec", b.peakMBps())
                    .field("bw_avg_mb_per_sec", b.avgMBps())
                    .field("msg_rate_mpps", b.msgRateMpps());
            case LatencyStats l -> w.field("t_min_usec", l.minUs())
                    .field("t_max_usec", l.maxUs())
                    .field("t_typical_usec", l.typicalUs())
                    .field("t_avg_usec", l.avgUs())
                    .field("t_stdev_usec", l.stdevUs())
                    .field("p99_usec", l.p99Us())
                    .field("p99_9_usec", l.p999Us());
        }
        w.endObject();
    }
}

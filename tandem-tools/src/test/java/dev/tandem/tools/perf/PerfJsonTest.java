package dev.tandem.tools.perf;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class PerfJsonTest {
    private static PerfSettings settings(PerfTest test, boolean baseline) {
        return new PerfSettings(test, test.defaultSize(), 1000, PerfSettings.NO_DURATION, 128, false, true, WaitMode.EVENT, PerfDevice.IWARP,
                baseline ? Baseline.TCP : Baseline.NONE, 10,
                Role.LOOPBACK, null, null, 0);
    }

    @Test
    @SuppressWarnings("unchecked")
    void bandwidthReportCarriesEveryFigureTheBaselineAndTheRatio() {
        PerfSettings s = settings(PerfTest.SEND_BW, true);
        SizeResult r = new SizeResult(new Phase(65536, 1000, 10), new BandwidthStats(65536, 1000, 900, 800, 0.0125), 12.5, 3.0,
                new BandwidthStats(65536, 1000, 1100, 1000, 0.015625), 0.0, Double.NaN);
        Map<String, Object> m = MiniJson.object(PerfJson.of(new PerfReport(s, "127.0.1.1", "127.0.1.2:4000", false, List.of(r))));

        assertThat(m).containsEntry("test", "send_bw").containsEntry("kind", "bandwidth").containsEntry("crc", false)
                .containsEntry("wait", "event").containsEntry("baseline", "tcp").containsEntry("tx_depth", 128.0)
                .containsEntry("local", "127.0.1.1").containsEntry("remote", "127.0.1.2:4000").containsKey("units");
        Map<String, Object> one = (Map<String, Object>) ((List<?>) m.get("results")).getFirst();
        assertThat(one).containsEntry("bytes", 65536.0).containsEntry("iterations", 1000.0).containsEntry("warmup", 10.0);
        assertThat((Map<String, Object>) one.get("tandem")).containsEntry("bw_peak_mb_per_sec", 900.0)
                .containsEntry("bw_avg_mb_per_sec", 800.0).containsEntry("msg_rate_mpps", 0.0125);
        assertThat((Map<String, Object>) one.get("tcp")).containsEntry("bw_avg_mb_per_sec", 1000.0);
        assertThat((Map<String, Object>) one.get("ratio")).containsEntry("bw", 0.8);
        assertThat((Map<String, Object>) one.get("alloc_bytes_per_op")).containsEntry("tandem_client", 12.5)
                .containsEntry("tandem_server", 3.0).containsEntry("tcp_client", 0.0).containsEntry("tcp_server", null);
    }

    @Test
    @SuppressWarnings("unchecked")
    void latencyReportWithoutBaseline() {
        PerfSettings s = settings(PerfTest.READ_LAT, false);
        SizeResult r = new SizeResult(new Phase(2, 1000, 10), new LatencyStats(2, 1000, 1, 9, 3, 4, 1.5, 8, 9), 0, 0,
                null, Double.NaN, Double.NaN);
        Map<String, Object> m = MiniJson.object(PerfJson.of(new PerfReport(s, "a", "b", true, List.of(r))));
        assertThat(m).containsEntry("kind", "latency").containsEntry("baseline", null).containsEntry("crc", true);
        Map<String, Object> one = (Map<String, Object>) ((List<?>) m.get("results")).getFirst();
        assertThat((Map<String, Object>) one.get("tandem")).containsOnlyKeys("iterations", "t_min_usec", "t_max_usec", "t_typical_usec",
                "t_avg_usec", "t_stdev_usec", "p99_usec", "p99_9_usec").containsEntry("t_typical_usec", 3.0);
        assertThat(one).containsEntry("tcp", null).containsEntry("ratio", null);
    }

    @Test
    @SuppressWarnings("unchecked")
    void durationReportHasNoPeakAndSaysHowPercentilesWereTaken() {
        PerfSettings bw = new PerfSettings(PerfTest.WRITE_BW, 65536, 5000, 10, 128, false, true, WaitMode.POLL, PerfDevice.IWARP, Baseline.NONE,
                PerfSettings.DEFAULT_WARMUP, Role.LOOPBACK, null, null, 0);
        Phase phase = bw.plan().phases().getFirst();
        SizeResult r = new SizeResult(phase, BandwidthStats.window(65536, 40_000, 0, 10_000_000_000L), 0.5, 0.1, null, Double.NaN, Double.NaN);
        Map<String, Object> m = MiniJson.object(PerfJson.of(new PerfReport(bw, "a", "b", true, List.of(r))));
        assertThat(m).containsEntry("duration_sec", 10.0).containsEntry("warmup_sec", 2.0);
        Map<String, Object> one = (Map<String, Object>) ((List<?>) m.get("results")).getFirst();
        assertThat(one).containsEntry("iterations", 40_000.0).containsEntry("warmup", null);
        assertThat((Map<String, Object>) one.get("tandem")).containsEntry("bw_peak_mb_per_sec", null).containsEntry("iterations", 40_000.0);
        assertThat((Map<String, Object>) m.get("units")).doesNotContainKey("percentiles");

        PerfSettings lat = new PerfSettings(PerfTest.SEND_LAT, 2, 1000, 10, 128, false, true, WaitMode.POLL, PerfDevice.IWARP, Baseline.NONE, 50,
                Role.LOOPBACK, null, null, 0);
        LatencyHistogram h = new LatencyHistogram();
        h.record(8000);
        SizeResult l = new SizeResult(lat.plan().phases().getFirst(), h.stats(2, 2), 0, 0, null, Double.NaN, Double.NaN);
        Map<String, Object> ml = MiniJson.object(PerfJson.of(new PerfReport(lat, "a", "b", true, List.of(l))));
        assertThat(ml).containsEntry("warmup_sec", null);
        assertThat((String) ((Map<String, Object>) ml.get("units")).get("percentiles")).startsWith("nearest-rank from a log-bucketed histogram");
        assertThat((Map<String, Object>) ((List<?>) ml.get("results")).getFirst()).containsEntry("warmup", 50.0).containsEntry("iterations", 1.0);
    }

    @Test
    @SuppressWarnings("unchecked")
    void iterationModeStatesExactPercentilesAndNoDuration() {
        PerfSettings s = settings(PerfTest.SEND_LAT, false);
        SizeResult r = new SizeResult(new Phase(2, 1000, 10), new LatencyStats(2, 1000, 1, 9, 3, 4, 1.5, 8, 9), 0, 0,
                null, Double.NaN, Double.NaN);
        Map<String, Object> m = MiniJson.object(PerfJson.of(new PerfReport(s, "a", "b", true, List.of(r))));
        assertThat(m).containsEntry("duration_sec", null).containsEntry("warmup_sec", null);
        assertThat((Map<String, Object>) m.get("units")).containsEntry("percentiles", "nearest-rank over every sample");
    }
}

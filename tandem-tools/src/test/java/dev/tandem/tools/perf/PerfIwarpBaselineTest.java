package dev.tandem.tools.perf;

import dev.tandem.tools.Adapters;
import dev.tandem.tools.CliRun;
import dev.tandem.verbs.RdmaDevice;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.within;

/**
 * {@code --device failover --baseline iwarp}: the fail-over device and the plain iWARP adapters under
 * it measured in one run, with the ratio between them. Few iterations; no timing is asserted.
 */
class PerfIwarpBaselineTest {
    private static CliRun.Result runOk(String... args) {
        CliRun.Result r = CliRun.run(args);
        assertThat(r.exit()).as("exit code of tandem %s%nstdout:%n%s%nstderr:%n%s", String.join(" ", args), r.out(), r.err()).isZero();
        return r;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> onlyResult(Map<String, Object> report) {
        return (Map<String, Object>) ((List<?>) report.get("results")).getFirst();
    }

    @Test
    @SuppressWarnings("unchecked")
    void writeBandwidthJsonHasTheIwarpFiguresAndTheRatio() {
        Map<String, Object> m = MiniJson.object(runOk("perf", "write_bw", "-s", "4096", "-n", "200", "--warmup", "20", "-t", "16",
                "--device", "failover", "--baseline", "iwarp", "--json").out().trim());
        assertThat(m).containsEntry("device", "failover").containsEntry("baseline", "iwarp")
                .containsEntry("baseline_wait_description", WaitMode.POLL.tandemDescription());
        Map<String, Object> r = onlyResult(m);
        assertThat(r).doesNotContainKey("tcp");
        Map<String, Object> tandem = (Map<String, Object>) r.get("tandem");
        Map<String, Object> iwarp = (Map<String, Object>) r.get("iwarp");
        assertThat(iwarp).containsEntry("iterations", 200.0);
        assertThat((Double) iwarp.get("bw_avg_mb_per_sec")).isPositive();
        assertThat((Double) ((Map<String, Object>) r.get("ratio")).get("bw"))
                .isCloseTo((Double) tandem.get("bw_avg_mb_per_sec") / (Double) iwarp.get("bw_avg_mb_per_sec"), within(1e-9));
        Map<String, Object> alloc = (Map<String, Object>) r.get("alloc_bytes_per_op");
        assertThat(alloc.keySet()).containsExactly("tandem_client", "tandem_server", "iwarp_client", "iwarp_server");
        assertThat((Double) alloc.get("iwarp_client")).isNotNegative();
        assertThat((Double) alloc.get("iwarp_server")).isNotNegative();
    }

    @Test
    @SuppressWarnings("unchecked")
    void sendLatencyJsonHasTheIwarpFiguresAndTheRatio() {
        Map<String, Object> m = MiniJson.object(runOk("perf", "send_lat", "-s", "8", "-n", "200", "--warmup", "20",
                "--device", "failover", "--baseline", "iwarp", "--json").out().trim());
        assertThat(m).containsEntry("device", "failover").containsEntry("baseline", "iwarp");
        Map<String, Object> r = onlyResult(m);
        Map<String, Object> tandem = (Map<String, Object>) r.get("tandem");
        Map<String, Object> iwarp = (Map<String, Object>) r.get("iwarp");
        assertThat(iwarp).containsEntry("iterations", 200.0);
        assertThat((Double) iwarp.get("t_typical_usec")).isPositive();
        assertThat((Double) ((Map<String, Object>) r.get("ratio")).get("t_typical"))
                .isCloseTo((Double) tandem.get("t_typical_usec") / (Double) iwarp.get("t_typical_usec"), within(1e-9));
    }

    @Test
    void textReportNamesTheDeviceAndTheBaseline() {
        String out = runOk("perf", "send_lat", "-n", "100", "--warmup", "10", "--device", "failover", "--baseline", "iwarp").out();
        assertThat(out).contains(" Provider        : " + PerfDevice.FAILOVER.description())
                .contains(" Baseline        : plain iWARP adapters on the same path, busy-polling the CQ")
                .contains(" Baseline: plain iWARP adapters, same path")
                .containsPattern("\nratio vs iwarp: t_typical \\d+\\.\\d\\dx\n")
                .doesNotContain("ratio vs tcp");
        String plain = runOk("perf", "send_lat", "-n", "100", "--warmup", "10").out();
        assertThat(plain).contains(" Provider        : Tandem software iWARP over TCP").doesNotContain("fail-over");
    }

    @Test
    void aTcpBaselineStillRunsUnderTheFailoverDevice() {
        String out = runOk("perf", "write_bw", "-s", "4096", "-n", "100", "--warmup", "10", "-t", "16", "--device", "failover",
                "--baseline", "tcp", "--json").out();
        Map<String, Object> r = onlyResult(MiniJson.object(out.trim()));
        assertThat(r).containsKey("tcp").doesNotContainKey("iwarp");
        assertThat(r.get("tcp")).isNotNull();
    }

    /** A server given no plain adapter (a --server) refuses an iWARP baseline, and says why. */
    @Test
    void aServerWithoutAPlainAdapterRefusesAnIwarpBaseline() throws Exception {
        InetAddress serverIp = InetAddress.getByName("127.0.3.2");
        InetAddress clientIp = InetAddress.getByName("127.0.3.1");
        PerfSettings s = new PerfSettings(PerfTest.SEND_LAT, 8, 100, PerfSettings.NO_DURATION, 16, false, false, WaitMode.POLL,
                PerfDevice.FAILOVER, Baseline.IWARP, 10, Role.LOOPBACK, null, null, 0);
        AtomicReference<Throwable> served = new AtomicReference<>();
        try (RdmaDevice serverDevice = Adapters.open(serverIp.getHostAddress(), false);
             RdmaDevice clientDevice = Adapters.open(clientIp.getHostAddress(), false);
             RdmaDevice baselineDevice = Adapters.open(clientIp.getHostAddress(), false);
             PerfServer server = PerfServer.listen(serverDevice, new InetSocketAddress(serverIp, 0), false)) {
            Thread serving = Thread.ofPlatform().name("perf-iwarp-baseline-refusal").start(
                    () -> served.set(catchThrowable(() -> server.serveOne(Duration.ofSeconds(30)))));
            Throwable thrown = catchThrowable(() -> PerfClient.run(clientDevice, baselineDevice, clientIp, server.address(), s,
                    PerfProgress.NONE, dev.tandem.tools.perf.rdma.Patience.DEFAULT));
            assertThat(serving.join(Duration.ofSeconds(60))).as("the server finished").isTrue();
            assertThat(thrown).isInstanceOf(PerfException.class).hasMessageContaining("refused the run: tandem perf server: "
                    + "this server has no plain iWARP adapter for an iWARP baseline; --baseline iwarp runs with --device failover");
            assertThat(served.get()).isInstanceOf(PerfException.class).hasMessageStartingWith("this server has no plain iWARP adapter");
        }
    }
}

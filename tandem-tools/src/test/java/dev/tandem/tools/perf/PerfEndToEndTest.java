package dev.tandem.tools.perf;

import dev.tandem.tools.Adapters;
import dev.tandem.tools.CliRun;
import dev.tandem.verbs.RdmaDevice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** Every perf test end to end over real adapters, with few iterations. No timing is asserted. */
class PerfEndToEndTest {
    private static String[] args(String line) {
        return line.trim().split(" +");
    }

    private static String runOk(String line) {
        CliRun.Result r = CliRun.run(args(line));
        assertThat(r.exit()).as("exit code of '%s', stderr: %s", line, r.err()).isZero();
        return r.out();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "perf write_bw -n 60 --warmup 20 -t 16 --baseline tcp",
            "perf send_bw -n 600 --warmup 20 -s 1024 --baseline tcp",
            "perf send_bw -n 60 --warmup 0 -e --crc off",
            "perf write_lat -n 50 --warmup 10 --baseline tcp",
            "perf write_lat -n 50 --warmup 10 -s 5000 --crc off",
            "perf send_lat -n 50 --warmup 10 -e --baseline tcp",
            "perf read_lat -n 50 --warmup 10 -s 70000 --baseline tcp",
            "perf read_lat -n 50 --warmup 10 -e",
            "perf send_lat -n 50 --warmup 10 --engine shared --idle spin --baseline tcp",
            "perf write_bw -n 60 --warmup 10 --engine dedicated --idle sleep"})
    void textReportHasPerftestsTableAndTheRatio(String line) {
        String out = runOk(line);
        PerfTest test = PerfTest.fromCliName(args(line)[1]);
        String[] lines = out.split("\n");
        assertThat(out).contains(test.title()).contains(PerfFormat.header(test.kind()));
        int header = java.util.Arrays.asList(lines).indexOf(PerfFormat.header(test.kind()));
        String[] row = lines[header + 1].trim().split("\\s+");
        int expectedColumns = test.isBandwidth() ? 5 : 9;
        assertThat(row).hasSize(expectedColumns);
        int size = line.contains("-s ") ? Integer.parseInt(line.replaceAll(".*-s (\\d+).*", "$1")) : test.defaultSize();
        assertThat(Long.parseLong(row[0])).isEqualTo(size);
        assertThat(Integer.parseInt(row[1])).isEqualTo(Integer.parseInt(line.replaceAll(".*-n (\\d+).*", "$1")));
        for (int i = 2; i < row.length; i++) {
            assertThat(Double.parseDouble(row[i])).as("column %d of %s", i, lines[header + 1]).isPositive();
        }
        assertThat(out).contains(line.contains("--crc off") ? "CRC             : OFF" : "CRC             : ON");
        if (line.contains("--baseline tcp")) {
            assertThat(out).contains(" Baseline: java.nio TCP, same path").containsPattern(
                    test.isBandwidth() ? "\nratio vs tcp: bw \\d+\\.\\d\\dx\n" : "\nratio vs tcp: t_typical \\d+\\.\\d\\dx\n");
        } else {
            assertThat(out).doesNotContain("ratio vs tcp");
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonReportIsOneObjectWithTheBaselineAndAllocation() {
        String out = runOk("perf send_lat -n 40 --warmup 10 --baseline tcp --json");
        Map<String, Object> m = MiniJson.object(out.trim());
        assertThat(m).containsEntry("test", "send_lat").containsEntry("crc", true).containsEntry("wait", "poll")
                .containsEntry("baseline", "tcp");
        Map<String, Object> r = (Map<String, Object>) ((List<?>) m.get("results")).getFirst();
        Map<String, Object> tandem = (Map<String, Object>) r.get("tandem");
        Map<String, Object> tcp = (Map<String, Object>) r.get("tcp");
        assertThat((Double) tandem.get("t_typical_usec")).isPositive();
        assertThat((Double) tcp.get("t_typical_usec")).isPositive();
        assertThat((Double) ((Map<String, Object>) r.get("ratio")).get("t_typical"))
                .isCloseTo((Double) tandem.get("t_typical_usec") / (Double) tcp.get("t_typical_usec"),
                        org.assertj.core.api.Assertions.within(1e-9));
        Map<String, Object> alloc = (Map<String, Object>) r.get("alloc_bytes_per_op");
        assertThat(alloc.keySet()).containsExactly("tandem_client", "tandem_server", "tcp_client", "tcp_server");
        assertThat((Double) alloc.get("tandem_client")).isNotNegative();
        assertThat((Double) alloc.get("tandem_server")).isNotNegative();
    }

    @Test
    void serverAndClientRolesTalkOverTheNetwork() throws Exception {
        InetAddress serverIp = InetAddress.getByName("127.0.3.2");
        InetAddress clientIp = InetAddress.getByName("127.0.3.1");
        PerfSettings s = new PerfSettings(PerfTest.SEND_BW, 512, 300, PerfSettings.NO_DURATION, 32, false, false, WaitMode.POLL, PerfDevice.IWARP, Baseline.TCP, 10,
                Role.CLIENT, serverIp.getHostAddress(), clientIp.getHostAddress(), 1);
        AtomicReference<Object> served = new AtomicReference<>();
        try (RdmaDevice serverDevice = Adapters.open(serverIp.getHostAddress(), true);
             RdmaDevice clientDevice = Adapters.open(clientIp.getHostAddress(), false);
             PerfServer server = PerfServer.listen(serverDevice, new InetSocketAddress(serverIp, 0), true)) {
            Thread serving = Thread.ofPlatform().name("perf-e2e-server").start(() -> {
                try {
                    served.set(server.serveOne(Duration.ofSeconds(30)));
                } catch (Throwable t) {
                    served.set(t);
                }
            });
            MeasuredRun run = PerfClient.run(clientDevice, clientIp, server.address(), s, PerfProgress.NONE);
            assertThat(serving.join(Duration.ofSeconds(60))).as("server finished").isTrue();

            assertThat(run.crc()).as("CRC is on when either side asks").isTrue();
            assertThat(run.results()).hasSize(1);
            SizeResult r = run.results().getFirst();
            assertThat(r.tandem().iterations()).isEqualTo(300);
            assertThat(r.baseline().iterations()).isEqualTo(300);
            assertThat(r.ratio()).isPositive();
            assertThat(served.get()).isInstanceOf(ServedRun.class);
            ServedRun sr = (ServedRun) served.get();
            assertThat(sr.hello().test()).isEqualTo(PerfTest.SEND_BW);
            assertThat(sr.hello().size()).isEqualTo(512);
            assertThat(sr.tandem()).hasSize(1);
            assertThat(sr.baseline()).hasSize(1);
            assertThat(sr.crc()).isTrue();
        }
    }
}

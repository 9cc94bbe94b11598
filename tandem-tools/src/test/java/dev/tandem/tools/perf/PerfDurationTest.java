package dev.tandem.tools.perf;

import dev.tandem.tools.CliRun;
import dev.tandem.tools.TandemCli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code -D SECONDS}: every test runs for a time, the client ends the phase and the server follows.
 * Short runs over real adapters; no timing is asserted, only that the run ends with a report of
 * what it measured.
 */
class PerfDurationTest {
    private static String runOk(String line) {
        CliRun.Result r = CliRun.run(line.trim().split(" +"));
        assertThat(r.exit()).as("exit code of '%s', stderr: %s", line, r.err()).isZero();
        return r.out();
    }

    /** The row after the first table header, split into columns. */
    private static String[] firstRow(String out, PerfTest test) {
        List<String> lines = Arrays.asList(out.split("\n"));
        int header = lines.indexOf(PerfFormat.header(test.kind()));
        assertThat(header).as("table header in:\n%s", out).isNotNegative();
        return lines.get(header + 1).trim().split("\\s+");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "perf write_bw -D 1 --warmup 10 -t 16 --baseline tcp",
            "perf send_bw -D 1 --warmup 10 -s 1024 -e",
            "perf write_lat -D 1 --warmup 10 --baseline tcp",
            "perf send_lat -D 1 --warmup 10 -e --baseline tcp",
            "perf read_lat -D 1 --warmup 10 -s 70000 --crc off"})
    void textReportCountsWhatTheDurationMeasured(String line) {
        String out = runOk(line);
        PerfTest test = PerfTest.fromCliName(line.split(" +")[1]);
        assertThat(out).contains(" Duration        : 1 s measured, after the warm-up").contains(" Warm-up         : 10 iterations, not counted");
        String[] row = firstRow(out, test);
        assertThat(row).hasSize(test.isBandwidth() ? 5 : 9);
        assertThat(Long.parseLong(row[1])).as("#iterations, measured in 1 s").isPositive();
        for (int i = 2; i < row.length; i++) {
            if (test.isBandwidth() && i == 2) {
                assertThat(row[i]).as("BW peak is not measured in duration mode").isEqualTo(PerfFormat.NO_PEAK);
            } else {
                assertThat(Double.parseDouble(row[i])).as("column %d of %s", i, String.join(" ", row)).isPositive();
            }
        }
        if (line.contains("--baseline tcp")) {
            String baseline = out.substring(out.indexOf(" Baseline: java.nio TCP"));
            String[] tcpRow = firstRow(baseline, test);
            assertThat(Long.parseLong(tcpRow[1])).as("the baseline's own count in 1 s").isPositive();
            assertThat(out).containsPattern("\nratio vs tcp: (bw|t_typical) \\d+\\.\\d\\dx\n");
        }
    }

    @ParameterizedTest
    @EnumSource(PerfTest.class)
    @SuppressWarnings("unchecked")
    void jsonReportCarriesTheDurationAndTheMeasuredCount(PerfTest test) {
        String out = runOk("perf " + test.cliName() + " -D 1 --warmup 10 --json");
        Map<String, Object> m = MiniJson.object(out.trim());
        assertThat(m).containsEntry("duration_sec", 1.0).containsEntry("warmup_sec", null).containsEntry("sweep", false);
        Map<String, Object> r = (Map<String, Object>) ((List<?>) m.get("results")).getFirst();
        Map<String, Object> tandem = (Map<String, Object>) r.get("tandem");
        assertThat((Double) r.get("iterations")).isPositive().isEqualTo(tandem.get("iterations"));
        assertThat(r).containsEntry("warmup", 10.0);
        if (test.isBandwidth()) {
            assertThat(tandem).containsEntry("bw_peak_mb_per_sec", null);
            assertThat((Double) tandem.get("bw_avg_mb_per_sec")).isPositive();
        } else {
            assertThat((Double) tandem.get("t_typical_usec")).isPositive();
            assertThat((Double) tandem.get("p99_9_usec")).isGreaterThanOrEqualTo((Double) tandem.get("p99_usec"));
            assertThat((String) ((Map<String, Object>) m.get("units")).get("percentiles")).contains("histogram, within 0.4%");
        }
        assertThat((Double) ((Map<String, Object>) r.get("alloc_bytes_per_op")).get("tandem_server")).isNotNegative();
    }

    @Test
    @SuppressWarnings("unchecked")
    void withoutAWarmupCountTheFirstTwoSecondsWarmUp() {
        String out = runOk("perf send_lat -D 1 --json");
        Map<String, Object> m = MiniJson.object(out.trim());
        assertThat(m).containsEntry("duration_sec", 1.0).containsEntry("warmup_sec", 2.0);
        Map<String, Object> r = (Map<String, Object>) ((List<?>) m.get("results")).getFirst();
        assertThat(r).containsEntry("warmup", null);
        assertThat((Double) r.get("iterations")).isPositive();
    }

    /** A --server and a --connect -D client, each its own command line, as on two machines. */
    @Test
    void serverFollowsAClientThatRunsForATime() throws Exception {
        CountDownLatch listening = new CountDownLatch(1);
        StringWriter serverErr = new StringWriter();
        StringWriter serverOut = new StringWriter();
        AtomicInteger serverExit = new AtomicInteger(-1);
        Writer watchedErr = new Writer() {
            @Override
            public void write(char[] buf, int off, int len) {
                serverErr.write(buf, off, len);
                if (serverErr.toString().contains("waiting for a client on ")) {
                    listening.countDown();
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Thread server = Thread.ofPlatform().name("perf-duration-test-server").start(() -> {
            CommandLine cl = TandemCli.commandLine();
            cl.setOut(new PrintWriter(serverOut, true));
            cl.setErr(new PrintWriter(watchedErr, true));
            serverExit.set(cl.execute("perf", "send_lat", "--server", "--local", "127.0.6.2", "-p", "0", "--json"));
        });
        assertThat(listening.await(30, TimeUnit.SECONDS)).as("the server listens; its stderr: %s", serverErr).isTrue();
        Matcher port = Pattern.compile("waiting for a client on 127\\.0\\.6\\.2:(\\d+)").matcher(serverErr.toString());
        assertThat(port.find()).isTrue();

        String out = runOk("perf send_lat --connect 127.0.6.2 -p " + port.group(1) + " --local 127.0.6.1 -D 1 --warmup 10 --baseline tcp");
        assertThat(server.join(java.time.Duration.ofSeconds(60))).as("the server finished").isTrue();
        assertThat(serverExit.get()).as("server exit code, stderr: %s", serverErr).isZero();

        assertThat(out).contains(" Duration        : 1 s measured");
        long measured = Long.parseLong(firstRow(out, PerfTest.SEND_LAT)[1]);
        Map<String, Object> served = MiniJson.object(serverOut.toString().trim());
        assertThat(served).containsEntry("role", "server").containsEntry("test", "send_lat").containsEntry("duration_sec", 1.0)
                .containsEntry("baseline", "tcp");
        @SuppressWarnings("unchecked")
        Map<String, Object> phase = (Map<String, Object>) ((List<?>) served.get("results")).getFirst();
        assertThat(phase).containsEntry("iterations", null).containsEntry("warmup", 10.0);
        assertThat((Double) phase.get("served")).as("the server served the measured iterations and the warm-up")
                .isEqualTo((double) (measured + 10));
    }
}

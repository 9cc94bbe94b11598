package dev.tandem.tools.perf;

import dev.tandem.tools.CliRun;
import dev.tandem.tools.TandemCli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import java.time.Duration;

import static dev.tandem.tools.CliRun.run;
import static dev.tandem.tools.CliRun.usageError;
import static org.assertj.core.api.Assertions.assertThat;

/** Option parsing: defaults as perftest's, and every bad input answered with a message that names it. */
class PerfCommandTest {
    private static PerfSettings parse(String... args) {
        CommandLine cl = TandemCli.commandLine();
        CommandLine.ParseResult parsed = cl.parseArgs(args);
        PerfCommand command = (PerfCommand) parsed.subcommand().commandSpec().userObject();
        return command.settings();
    }

    @ParameterizedTest(name = "[{index}] tandem {0}")
    @CsvSource(delimiter = '|', value = {
            "perf write_bw -s 0                      | --size 0 is out of range: give 1..8388608 bytes",
            "perf write_bw -s 8388609                | --size 8388609 is out of range",
            "perf foo                                | unknown test 'foo': choose one of write_bw, write_lat, send_bw, send_lat, read_lat",
            "perf send_lat -n 4                      | --iters 4 is out of range: give 5..100000000",
            "perf send_bw -t 0                       | --tx-depth 0 is out of range: give 1..15000",
            "perf write_bw -a -s 64                  | -a sweeps every size from 2 to 8388608 bytes; do not also give -s",
            "perf write_bw --crc maybe               | --crc takes on or off, got 'maybe'",
            "perf write_bw --engine both             | --engine takes dedicated or shared, got 'both'",
            "perf write_bw --idle nap                | --idle takes backoff, spin or sleep, got 'nap'",
            "perf write_bw --baseline udp            | --baseline takes tcp (plain java.nio TCP on the same path) or iwarp (plain iWARP adapters, with --device failover), got 'udp'",
            "perf write_bw --baseline iwarp          | --baseline iwarp compares a device with the plain iWARP adapters under it; the iwarp device is such an adapter, so there is nothing to compare: give --device failover, or --baseline tcp",
            "perf send_lat --device iwarp --baseline IWARP | --baseline iwarp compares a device with the plain iWARP adapters under it",
            "perf write_bw --device gpu              | --device takes iwarp or failover, got 'gpu'",
            "perf write_bw --device failover --server --local 127.0.1.1 | --device failover runs both sides in this process",
            "perf write_bw --device failover --baseline iwarp --connect 127.0.1.2 | --device failover runs both sides in this process (each on two loopback adapters); --server and --connect take the iwarp device",
            "perf write_bw --poll --event            | --poll and --event exclude each other",
            "perf write_lat --event                  | write_lat waits by polling the last byte of its receive buffer",
            "perf write_bw --server --connect host   | --server and --connect exclude each other",
            "perf write_bw --server                  | --server needs --local IP",
            "perf write_bw --connect 127.0.0.1 -p 0  | --connect needs the server's port",
            "perf write_bw --warmup -1               | --warmup -1 is negative",
            "perf write_bw -D 5 -n 100               | -D/--duration and -n/--iters exclude each other: measure for a time (-D SECONDS) or for a count (-n N)",
            "perf send_lat -n 100 --duration 5       | -D/--duration and -n/--iters exclude each other",
            "perf write_bw -D 5 -a                   | -D/--duration runs one size for a time and does not combine with -a/--all (perftest refuses that too)",
            "perf read_lat -D 0                      | -D/--duration 0 is not positive: give the seconds to measure, 1 or more",
            "perf read_lat -D -2                     | -D/--duration -2 is not positive",
            "perf read_lat -D soon                   | Invalid value for option '--duration': 'soon' is not an int",
            "perf write_bw -p 70000                  | --port 70000 is out of range",
            "perf write_bw --local 127.0.0.1         | --local and a host only apply with --server or --connect",
            "perf                                    | Missing required parameter: 'TEST'",
            "frobnicate                              | Unmatched argument at index 0: 'frobnicate'",
            "''                                      | Missing command"})
    void badInputGetsAClearMessage(String args, String message) {
        assertThat(usageError(args.isEmpty() ? new String[0] : args.split(" +"))).contains(message);
    }

    @Test
    void aFailoverDeviceRunsTheSamePatterns() {
        CliRun.Result r = CliRun.run("perf", "send_lat", "-n", "200", "--device", "failover", "--json");
        assertThat(r.exit()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        assertThat(r.out()).contains("\"test\":\"send_lat\"").containsPattern("\"t_typical_usec\":\\d");
        r = CliRun.run("perf", "write_bw", "-n", "200", "-s", "4096", "--device", "failover", "--json");
        assertThat(r.exit()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        assertThat(r.out()).containsPattern("\"bw_avg_mb_per_sec\":\\d");
    }

    @Test
    void perftestDefaults() {
        PerfSettings bw = parse("perf", "write_bw");
        assertThat(bw.size()).isEqualTo(65536);
        assertThat(bw.iterations()).isEqualTo(5000);
        assertThat(bw.txDepth()).isEqualTo(128);
        assertThat(bw.crc()).isTrue();
        assertThat(bw.waitMode()).isEqualTo(WaitMode.POLL);
        assertThat(bw.baseline()).isEqualTo(Baseline.NONE);
        assertThat(bw.device()).isEqualTo(PerfDevice.IWARP);
        assertThat(bw.role()).isEqualTo(Role.LOOPBACK);
        assertThat(bw.port()).isZero();
        assertThat(bw.warmup()).isEqualTo(PerfSettings.DEFAULT_WARMUP);

        PerfSettings lat = parse("perf", "send_lat");
        assertThat(lat.size()).isEqualTo(2);
        assertThat(lat.iterations()).isEqualTo(1000);
        assertThat(parse("perf", "send_bw").iterations()).isEqualTo(1000);
        assertThat(parse("perf", "read_lat", "--connect", "10.0.0.5").port()).isEqualTo(18515);
    }

    @Test
    void optionsAsPerftestNamesThem() {
        PerfSettings s = parse("perf", "send_bw", "-s", "4096", "-n", "300", "-t", "16", "--crc", "off", "-e", "--baseline", "tcp",
                "--warmup", "7", "--server", "--local", "127.0.0.1", "-p", "19000");
        assertThat(s).isEqualTo(new PerfSettings(PerfTest.SEND_BW, 4096, 300, PerfSettings.NO_DURATION, 16, false, false, WaitMode.EVENT, PerfDevice.IWARP, Baseline.TCP, 7,
                Role.SERVER, null, "127.0.0.1", 19000));
        assertThat(parse("perf", "WRITE_LAT", "-a").sweep()).isTrue();
    }

    @Test
    void deviceAndBaselineChoices() {
        PerfSettings s = parse("perf", "write_bw", "--device", "failover", "--baseline", "iwarp");
        assertThat(s.device()).isEqualTo(PerfDevice.FAILOVER);
        assertThat(s.baseline()).isEqualTo(Baseline.IWARP);
        assertThat(parse("perf", "send_lat", "--device", "FAILOVER", "--baseline", "tcp").baseline()).isEqualTo(Baseline.TCP);
        assertThat(parse("perf", "send_lat", "--device", "failover").baseline()).isEqualTo(Baseline.NONE);
        assertThat(parse("perf", "send_lat", "--baseline", "TCP").device()).isEqualTo(PerfDevice.IWARP);
    }

    @Test
    void durationMode() {
        PerfSettings d = parse("perf", "send_lat", "-D", "5");
        assertThat(d.durationSeconds()).isEqualTo(5);
        assertThat(d.timed()).isTrue();
        assertThat(d.warmup()).isEqualTo(PerfSettings.DEFAULT_WARMUP);
        assertThat(d.plan().phases()).containsExactly(new Phase(2, Span.of(Duration.ofSeconds(2)), Span.of(Duration.ofSeconds(5))));
        assertThat(parse("perf", "write_bw", "--duration", "3", "--warmup", "40").plan().phases().getFirst().warmup())
                .isEqualTo(Span.iterations(40));
        assertThat(parse("perf", "write_bw").timed()).isFalse();
    }

    @Test
    void helpListsTheCommandsAndOptions() {
        CliRun.Result top = run("--help");
        assertThat(top.exit()).isZero();
        assertThat(top.out()).contains("demo").contains("perf");
        CliRun.Result perf = run("perf", "--help");
        assertThat(perf.out()).contains("--size", "--iters", "--duration", "--tx-depth", "--crc=on|off", "--baseline=tcp|iwarp",
                "--device=iwarp|failover", "--json", "--warmup",
                "--server", "--connect", "--poll", "--event");
    }
}

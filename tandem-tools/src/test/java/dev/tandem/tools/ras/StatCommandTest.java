package dev.tandem.tools.ras;

import dev.tandem.ras.Counter;
import dev.tandem.ras.RasFile;
import dev.tandem.tools.CliRun;
import dev.tandem.tools.perf.MiniJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static dev.tandem.tools.CliRun.run;
import static dev.tandem.tools.CliRun.usageError;
import static dev.tandem.tools.ras.RasCli.DEAD_PID;
import static org.assertj.core.api.Assertions.assertThat;

class StatCommandTest {
    private static final String WEIRD = "odd \"quoted\" back\\slash\nnewline";
    /** One sample line of the Prometheus text format: name, escaped label values, a number. */
    private static final Pattern SAMPLE = Pattern.compile(
            "[a-zA-Z_:][a-zA-Z0-9_:]*\\{[a-zA-Z_][a-zA-Z0-9_]*=\"(\\\\[\\\\\"n]|[^\"\\\\\\n])*\"(,[a-zA-Z_][a-zA-Z0-9_]*=\"(\\\\[\\\\\"n]|[^\"\\\\\\n])*\")*} -?[0-9]+(\\.[0-9]+)?");

    private static RasFile withCounters(Path dir) {
        RasFile ras = RasFile.create(RasCli.config(dir));
        Counter send = ras.counters().allocate(1, "iwarp0@127.0.1.1 sent SEND", 0);
        Counter bytes = ras.counters().allocate(2, "iwarp0@127.0.1.1 qp 3 bytes_sent", 3);
        Counter messages = ras.counters().allocate(2, "iwarp0@127.0.1.1 qp 3 messages_sent", 3);
        Counter weird = ras.counters().allocate(7, WEIRD, 9);
        send.add(5);
        bytes.add(1024);
        messages.add(7);
        weird.set(-3);
        return ras;
    }

    @Test
    void listsTheProcessAndItsCountersGroupedByOwner(@TempDir Path dir) {
        try (RasFile ras = withCounters(dir)) {
            CliRun.Result r = run("stat", "--dir", dir.toString());
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.err()).isEmpty();
            List<String> lines = r.out().lines().toList();
            assertThat(lines).anySatisfy(l -> assertThat(l).matches(" *" + ras.pid() + "  alive +open +\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z +\\d+\\.\\ds ago  .+"));
            assertThat(r.out()).contains("pid " + ras.pid() + " (alive, file open): 4 counters");
            assertThat(lines).containsSubsequence(
                    "  OWNER     TYPE  VALUE  LABEL",
                    "      0  adapter      5  iwarp0@127.0.1.1 sent SEND",
                    "      3       qp   1024  iwarp0@127.0.1.1 qp 3 bytes_sent",
                    "              qp      7  iwarp0@127.0.1.1 qp 3 messages_sent",
                    "      9       mr     -3  odd \"quoted\" back\\slash?newline");
        }
    }

    @Test
    void readsTheCountersOfEveryPageTheFileGrew(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasCli.config(dir))) {
            int n = 3 * ras.config().counterCapacity() - 10; // the file's own counters and two pages appended
            for (int i = 0; i < n; i++) {
                ras.counters().allocate(7, "iwarp0@127.0.1.1 mr " + i + " bytes placed", i).add(i);
            }
            assertThat(ras.counters().pageCount()).isEqualTo(3);
            CliRun.Result r = run("stat", "--dir", dir.toString(), "--json");
            assertThat(r.exit()).as(r.err()).isZero();
            Map<String, Object> p = single(MiniJson.object(r.out()).get("processes"));
            assertThat(p).containsEntry("counters_total", (double) n);
            assertThat(maps(p.get("counters")).getLast()).containsEntry("label", "iwarp0@127.0.1.1 mr " + (n - 1) + " bytes placed")
                    .containsEntry("value", (double) (n - 1)).containsEntry("id", (double) (n - 1));
        }
    }

    @Test
    void filtersByLabelTextAndType(@TempDir Path dir) {
        try (RasFile ras = withCounters(dir)) {
            CliRun.Result r = run("stat", "--dir", dir.toString(), "--pid", String.valueOf(ras.pid()), "--filter", "bytes", "--filter", "SEND",
                    "--type", "qp");
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out()).contains("1 of 4 counters match label contains 'bytes' or 'SEND', type qp")
                    .contains("qp 3 bytes_sent").doesNotContain("messages_sent").doesNotContain("sent SEND");

            CliRun.Result any = run("stat", "--dir", dir.toString(), "--filter", "bytes", "--filter", "SEND");
            assertThat(any.out()).contains("2 of 4 counters match").contains("bytes_sent").contains("sent SEND");
        }
    }

    @Test
    void jsonHoldsTheHeaderAndEveryCounter(@TempDir Path dir) {
        try (RasFile ras = withCounters(dir)) {
            CliRun.Result r = run("stat", "--dir", dir.toString(), "--json");
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out().lines().count()).isOne();
            Map<String, Object> json = MiniJson.object(r.out());
            assertThat(json).containsEntry("dir", dir.toString()).containsKeys("time", "time_ms", "unreadable", "hidden_dead");
            Map<String, Object> p = single(json.get("processes"));
            assertThat(p).containsEntry("pid", (double) ras.pid()).containsEntry("alive", true).containsEntry("owner_state", "open")
                    .containsEntry("layout_version", (double) dev.tandem.ras.RasFileDescriptor.LAYOUT_VERSION).containsEntry("start_time_ms", (double) ras.startTimeMs())
                    .containsEntry("file", ras.path().toString()).containsEntry("counters_total", 4.0)
                    .containsKeys("start_time", "heartbeat", "heartbeat_ms", "heartbeat_age_ms", "command");
            List<Map<String, Object>> counters = maps(p.get("counters"));
            assertThat(counters).extracting(c -> c.get("label"))
                    .containsExactly("iwarp0@127.0.1.1 sent SEND", "iwarp0@127.0.1.1 qp 3 bytes_sent", "iwarp0@127.0.1.1 qp 3 messages_sent", WEIRD);
            assertThat(counters.get(1)).containsEntry("value", 1024.0).containsEntry("type", 2.0).containsEntry("owner", 3.0)
                    .containsEntry("id", 1.0);
            assertThat(counters.get(3)).containsEntry("value", -3.0);
        }
    }

    @Test
    void prometheusTextFormat(@TempDir Path dir) {
        try (RasFile ras = withCounters(dir)) {
            CliRun.Result r = run("stat", "--dir", dir.toString(), "--prometheus");
            assertThat(r.exit()).as(r.err()).isZero();
            List<String> lines = r.out().lines().toList();
            assertThat(lines).contains("# TYPE tandem_counter gauge", "# TYPE tandem_process_alive gauge",
                    "tandem_process_alive{pid=\"" + ras.pid() + "\"} 1",
                    "tandem_counter{pid=\"" + ras.pid() + "\",label=\"iwarp0@127.0.1.1 qp 3 bytes_sent\",type=\"2\",owner=\"3\",id=\"1\"} 1024",
                    "tandem_counter{pid=\"" + ras.pid() + "\",label=\"odd \\\"quoted\\\" back\\\\slash\\nnewline\",type=\"7\",owner=\"9\",id=\"3\"} -3");
            for (String line : lines) {
                if (line.startsWith("# ")) {
                    assertThat(line).matches("# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+");
                } else {
                    assertThat(line).matches(SAMPLE);
                }
            }
            assertThat(lines.stream().filter(l -> l.startsWith("tandem_counter{"))).hasSize(4);
            assertThat(lines.indexOf("# TYPE tandem_counter gauge"))
                    .isLessThan(lines.indexOf(lines.stream().filter(l -> l.startsWith("tandem_counter{")).findFirst().orElseThrow()));
        }
    }

    @Test
    void watchRefreshesUntilTheCount(@TempDir Path dir) {
        try (RasFile file = withCounters(dir)) {
            assertThat(file.path()).exists();
            CliRun.Result text = run("stat", "--dir", dir.toString(), "--watch", "0.1", "--count", "2");
            assertThat(text.exit()).as(text.err()).isZero();
            assertThat(text.out().lines().filter(l -> l.startsWith("=== tandem stat every 0.1 s at "))).hasSize(2);
            assertThat(text.out().lines().filter(l -> l.contains("qp 3 bytes_sent"))).hasSize(2);

            CliRun.Result json = run("stat", "--dir", dir.toString(), "--watch", "0.1", "--count", "2", "--json");
            assertThat(json.exit()).as(json.err()).isZero();
            List<String> frames = json.out().lines().toList();
            assertThat(frames).hasSize(2).allSatisfy(f -> assertThat(MiniJson.object(f)).containsKey("processes"));
        }
    }

    @Test
    void watchWithoutSecondsDefaultsToOne() {
        StatCommand stat = (StatCommand) dev.tandem.tools.TandemCli.commandLine().parseArgs("stat", "--watch", "--count", "3")
                .subcommand().commandSpec().userObject();
        assertThat(stat.watch).isEqualTo(1.0);
        assertThat(stat.count).isEqualTo(3);
    }

    @Test
    void readsTheFileOfADeadProcess(@TempDir Path dir, @TempDir Path deadDir) throws IOException {
        try (RasFile ras = withCounters(dir)) {
            RasCli.deadCopy(ras.path(), deadDir, System.currentTimeMillis() - 5_000);
        }
        CliRun.Result listing = run("stat", "--dir", deadDir.toString());
        assertThat(listing.exit()).as(listing.err()).isZero();
        assertThat(listing.out()).containsPattern(" " + DEAD_PID + "  dead +open +\\S+ +[5-9]\\.\\ds ago")
                .contains("pid " + DEAD_PID + " (dead, file open): 4 counters").contains("1024  iwarp0@127.0.1.1 qp 3 bytes_sent");

        CliRun.Result one = run("stat", "--dir", deadDir.toString(), "--pid", String.valueOf(DEAD_PID), "--json");
        assertThat(one.exit()).as(one.err()).isZero();
        Map<String, Object> p = single(MiniJson.object(one.out()).get("processes"));
        assertThat(p).containsEntry("alive", false).containsEntry("owner_state", "open");
        assertThat(maps(p.get("counters"))).hasSize(4);
    }

    @Test
    void aClosedFileIsListedAsClosed(@TempDir Path dir) {
        long pid;
        try (RasFile ras = withCounters(dir)) {
            pid = ras.pid();
        }
        // This JVM still runs, so the process is alive; its file says the owner closed it cleanly.
        CliRun.Result r = run("stat", "--dir", dir.toString(), "--pid", String.valueOf(pid));
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern(" " + pid + "  alive +closed ").contains("pid " + pid + " (alive, file closed): 4 counters")
                .contains("1024  iwarp0@127.0.1.1 qp 3 bytes_sent");
    }

    @Test
    void processesDeadForMoreThanADayAreListedOnlyWithAll(@TempDir Path dir, @TempDir Path deadDir) throws IOException {
        try (RasFile ras = withCounters(dir)) {
            RasCli.deadCopy(ras.path(), deadDir, System.currentTimeMillis() - 2 * RasFiles.RECENT_MS);
        }
        CliRun.Result hidden = run("stat", "--dir", deadDir.toString());
        assertThat(hidden.exit()).isEqualTo(1);
        assertThat(hidden.err()).contains("no Tandem processes in " + deadDir + " but 1 file(s) of processes dead for more than a day (--all lists them)");

        CliRun.Result all = run("stat", "--dir", deadDir.toString(), "--all");
        assertThat(all.exit()).as(all.err()).isZero();
        assertThat(all.out()).containsPattern(" " + DEAD_PID + "  dead +open +\\S+ +2d00h ago");

        assertThat(run("stat", "--dir", deadDir.toString(), "--pid", String.valueOf(DEAD_PID)).exit()).as("--pid finds it at any age").isZero();
    }

    @Test
    void unreadableFilesAreFlaggedAndFailWhenAskedFor(@TempDir Path dir) throws IOException {
        Files.write(dir.resolve("123.ras"), new byte[600]);
        try (RasFile ras = withCounters(dir)) {
            CliRun.Result r = run("stat", "--dir", dir.toString());
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out()).contains("unreadable: " + dir.resolve("123.ras") + ": ").contains("pid " + ras.pid() + " (alive, file open)");

            CliRun.Result one = run("stat", "--dir", dir.toString(), "--pid", "123");
            assertThat(one.exit()).isEqualTo(1);
            assertThat(one.err()).startsWith("tandem stat: error: RAS file " + dir.resolve("123.ras") + " is corrupt: ");
        }
    }

    @Test
    void noProcessOrFileExitsWithOne(@TempDir Path dir) {
        CliRun.Result empty = run("stat", "--dir", dir.toString());
        assertThat(empty.exit()).isEqualTo(1);
        assertThat(empty.out()).isEmpty();
        assertThat(empty.err()).startsWith("tandem stat: error: no Tandem processes in " + dir);

        CliRun.Result noDir = run("stat", "--dir", dir.resolve("missing").toString(), "--pid", "42");
        assertThat(noDir.exit()).isEqualTo(1);
        assertThat(noDir.err()).contains("no RAS directory " + dir.resolve("missing") + ", so no Tandem process 42");

        try (RasFile ras = withCounters(dir)) {
            CliRun.Result missing = run("stat", "--dir", dir.toString(), "--pid", "42");
            assertThat(missing.exit()).isEqualTo(1);
            assertThat(missing.out()).isEmpty();
            assertThat(missing.err()).isEqualTo("tandem stat: error: no RAS file for pid 42 in " + dir + " (it holds pids " + ras.pid() + ")"
                    + System.lineSeparator());
        }
    }

    @ParameterizedTest(name = "[{index}] tandem {0}")
    @CsvSource(delimiter = '|', value = {
            "stat --json --prometheus   | --json and --prometheus exclude each other",
            "stat --watch 0             | --watch 0.0 is out of range: give 0.1..3600.0 seconds",
            "stat --watch 5000          | --watch 5000.0 is out of range",
            "stat --count 2             | --count only applies with --watch",
            "stat --watch 1 --count 0   | --count 0 is out of range: give 1 or more refreshes",
            "stat --pid 0               | --pid 0 is not a process id",
            "stat --pid x               | Invalid value for option '--pid': 'x' is not a long",
            "stat --type x              | Invalid value for option '--type' (TYPE): 'x' is not a counter type: give one of adapter, qp, terminate, engine, cq, srq, mr, failover, or a type id",
            "stat --filter=             | --filter is empty"})
    void badUsageExitsWithTwo(String args, String message) {
        assertThat(usageError(args.split(" +"))).contains(message);
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> maps(Object array) {
        return (List<Map<String, Object>>) array;
    }

    static Map<String, Object> single(Object array) {
        List<Map<String, Object>> list = maps(array);
        assertThat(list).hasSize(1);
        return list.getFirst();
    }
}

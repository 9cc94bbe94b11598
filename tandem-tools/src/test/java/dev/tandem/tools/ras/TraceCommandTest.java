package dev.tandem.tools.ras;

import dev.tandem.ras.RasFile;
import dev.tandem.ras.TraceComponent;
import dev.tandem.ras.TraceEvent;
import dev.tandem.ras.TraceLevel;
import dev.tandem.tools.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static dev.tandem.tools.CliRun.run;
import static dev.tandem.tools.CliRun.usageError;
import static dev.tandem.tools.ras.RasCli.DEAD_PID;
import static org.assertj.core.api.Assertions.assertThat;

class TraceCommandTest {
    private static final TraceEvent TX_POST = TraceEvent.of("txPost");
    private static final TraceEvent RX_FPDU = TraceEvent.of("rxFpdu");

    private static RasFile withComponents(Path dir) {
        RasFile ras = RasFile.create(RasCli.config(dir));
        ras.trace().component("iwarp.rx");
        ras.trace().component("iwarp.tx").setLevel(TraceLevel.RARE);
        return ras;
    }

    private static String[] args(Path dir, long pid, String... more) {
        String[] all = new String[more.length + 5];
        all[0] = "trace";
        all[1] = "--dir";
        all[2] = dir.toString();
        all[3] = "--pid";
        all[4] = String.valueOf(pid);
        System.arraycopy(more, 0, all, 5, more.length);
        return all;
    }

    @Test
    void listsComponentsAndLevels(@TempDir Path dir) {
        try (RasFile ras = withComponents(dir)) {
            CliRun.Result r = run(args(dir, ras.pid()));
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out().lines().toList()).containsExactly(
                    "pid " + ras.pid() + " (alive, file open): 2 trace components",
                    "  COMPONENT  LEVEL  MEANING",
                    "  iwarp.rx       1  error",
                    "  iwarp.tx       2  rare");

            CliRun.Result one = run(args(dir, ras.pid(), "iwarp.tx"));
            assertThat(one.exit()).as(one.err()).isZero();
            assertThat(one.out()).isEqualTo("pid " + ras.pid() + " (alive, file open): iwarp.tx 2 (rare)" + System.lineSeparator());
        }
    }

    @Test
    void setsALevelThatTheOwnerPicksUp(@TempDir Path dir) {
        try (RasFile ras = withComponents(dir)) {
            TraceComponent rx = ras.trace().component("iwarp.rx");
            CliRun.Result r = run(args(dir, ras.pid(), "iwarp.rx", "8"));
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out()).isEqualTo("pid " + ras.pid() + " (alive, file open): iwarp.rx 1 (error) -> 8 (hot internals);"
                    + " the process applies it within a second" + System.lineSeparator());
            assertThat(rx.enabled(TraceLevel.HOT_INTERNALS)).as("not before the owner's duty").isFalse();
            ras.heartbeat();
            assertThat(rx.level()).isEqualTo(TraceLevel.HOT_INTERNALS);
            assertThat(rx.enabled(TraceLevel.HOT_INTERNALS)).isTrue();
            assertThat(run(args(dir, ras.pid(), "iwarp.rx")).out()).contains("iwarp.rx 8 (hot internals)");
        }
    }

    @Test
    void theOwnersDutyThreadAppliesTheLevelWithinASecond(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasCli.config(dir).withDutyIntervalMs(20))) {
            TraceComponent cm = ras.trace().component("iwarp.cm");
            CliRun.Result r = run(args(dir, ras.pid(), "iwarp.cm", "0"));
            assertThat(r.exit()).as(r.err()).isZero();
            long deadline = System.nanoTime() + 1_000_000_000L;
            while (cm.level() != TraceLevel.OFF && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            assertThat(cm.level()).as("level seen by the owner's hot path within 1 s").isEqualTo(TraceLevel.OFF);
            assertThat(cm.enabled(TraceLevel.ERROR)).isFalse();
        }
    }

    @Test
    void printsTheTraceRingOldestFirst(@TempDir Path dir) {
        try (RasFile ras = withComponents(dir)) {
            TraceComponent rx = ras.trace().component("iwarp.rx");
            TraceComponent tx = ras.trace().component("iwarp.tx");
            tx.record(TraceLevel.RARE, TX_POST, 1, 2, 3, 4, "first");
            rx.record(TraceLevel.ERROR, RX_FPDU, 10, 20, 30, 40, "second");
            rx.record(TraceLevel.ERROR, RX_FPDU, -1, 0, 0, Long.MAX_VALUE, null);
            long thread = Thread.currentThread().threadId();

            CliRun.Result r = run(args(dir, ras.pid(), "--records"));
            assertThat(r.exit()).as(r.err()).isZero();
            List<String> lines = r.out().lines().toList();
            assertThat(lines).hasSize(5);
            assertThat(lines.getFirst()).isEqualTo("pid " + ras.pid() + " (alive, file open): 3 trace records, oldest first");
            assertThat(lines.get(1)).matches("  TIME \\(UTC\\) +THREAD  COMPONENT  LEVEL  EVENT +A +B +C +D  TEXT");
            String time = "  \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z +" + thread + "  ";
            assertThat(lines.get(2)).matches(time + "iwarp.tx +2  txPost +1 +2 +3 +4  first");
            assertThat(lines.get(3)).matches(time + "iwarp.rx +1  rxFpdu +10 +20 +30 +40  second");
            assertThat(lines.get(4)).matches(time + "iwarp.rx +1  rxFpdu +-1 +0 +0 +" + Long.MAX_VALUE);

            CliRun.Result last = run(args(dir, ras.pid(), "--records", "--last", "2"));
            assertThat(last.exit()).as(last.err()).isZero();
            assertThat(last.out()).startsWith("pid " + ras.pid() + " (alive, file open): newest 2 of 3 trace records, oldest first")
                    .doesNotContainPattern("  first\\R").contains("second");
        }
    }

    @Test
    void refusesToSetALevelInADeadOrClosedProcessButReadsIt(@TempDir Path dir, @TempDir Path deadDir) throws IOException {
        long pid;
        try (RasFile ras = withComponents(dir)) {
            pid = ras.pid();
            ras.trace().component("iwarp.rx").record(TraceLevel.ERROR, RX_FPDU, 1, 2, 3, 4, "before the crash");
            RasCli.deadCopy(ras.path(), deadDir, System.currentTimeMillis());
        }
        CliRun.Result dead = run(args(deadDir, DEAD_PID, "iwarp.rx", "5"));
        assertThat(dead.exit()).isEqualTo(1);
        assertThat(dead.out()).isEmpty();
        assertThat(dead.err()).isEqualTo("tandem trace: error: process " + DEAD_PID + " is not running (its file "
                + deadDir.resolve(DEAD_PID + ".ras") + " is kept for post-mortem reading); a trace level set in it would change nothing"
                + System.lineSeparator());
        assertThat(run(args(deadDir, DEAD_PID)).out()).contains("iwarp.rx       1  error");
        assertThat(run(args(deadDir, DEAD_PID, "--records")).out()).contains("before the crash");

        CliRun.Result closed = run(args(dir, pid, "iwarp.rx", "5"));
        assertThat(closed.exit()).isEqualTo(1);
        assertThat(closed.err()).contains("process " + pid + " has closed its RAS file");
    }

    @Test
    void unknownComponentNamesTheKnownOnes(@TempDir Path dir) {
        try (RasFile ras = withComponents(dir)) {
            assertThat(usageError(args(dir, ras.pid(), "iwarp.qq", "3")))
                    .contains("process " + ras.pid() + " has no trace component 'iwarp.qq'; known: iwarp.rx, iwarp.tx");
            assertThat(ras.trace().level("iwarp.rx")).isEqualTo(TraceLevel.ERROR);
        }
    }

    @Test
    void missingProcessExitsWithOne(@TempDir Path dir) {
        CliRun.Result r = run(args(dir, 4242, "iwarp.rx", "3"));
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).startsWith("tandem trace: error: no RAS file for pid 4242 in " + dir);
        assertThat(run(args(dir, 4242, "--records")).exit()).isEqualTo(1);
        assertThat(run(args(dir, 4242)).exit()).isEqualTo(1);
    }

    @ParameterizedTest(name = "[{index}] tandem trace --pid 1 {0}")
    @CsvSource(delimiter = '|', value = {
            "iwarp.rx 10            | LEVEL 10 is out of range: trace level 10 must be 0..9",
            "iwarp.rx -1            | LEVEL -1 is out of range",
            "iwarp.rx high          | LEVEL 'high' is not a number: give 0..9",
            "--last 3               | --last only applies with --records",
            "--records --last 0     | --last 0 is out of range",
            "--records iwarp.rx     | --records prints the whole ring; do not also give COMPONENT or LEVEL",
            "iwarp.rx 1 2           | Unmatched argument at index 7: '2'"})
    void badUsageExitsWithTwo(String more, String message) {
        assertThat(usageError(args(Path.of("unused"), 1, more.split(" +")))).contains(message);
    }

    @Test
    void pidIsRequired() {
        CliRun.Result r = run("trace", "iwarp.rx", "3");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("Missing required option: '--pid=PID'");
    }
}

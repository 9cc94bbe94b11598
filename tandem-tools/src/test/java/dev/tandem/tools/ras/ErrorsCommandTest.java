package dev.tandem.tools.ras;

import dev.tandem.ras.RasFile;
import dev.tandem.ras.RasReader;
import dev.tandem.tools.CliRun;
import dev.tandem.tools.perf.MiniJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.tandem.tools.CliRun.run;
import static dev.tandem.tools.ras.RasCli.DEAD_PID;
import static org.assertj.core.api.Assertions.assertThat;

class ErrorsCommandTest {
    private static final String ISO = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z";
    private static final String TERMINATE = "terminate sent: DDP tagged invalid STag";

    private static RasFile withErrors(Path dir) {
        RasFile ras = RasFile.create(RasCli.config(dir));
        ras.errorLog().record(TERMINATE, "qp 3 stag 0x1234\n\tat the peer");
        ras.errorLog().record(TERMINATE, "a later detail is not kept");
        ras.errorLog().record(new IllegalStateException("engine broke"));
        return ras;
    }

    @Test
    void printsEachDistinctErrorWithCountTimesCauseAndIndentedDetail(@TempDir Path dir) {
        try (RasFile ras = withErrors(dir)) {
            CliRun.Result r = run("errors", "--dir", dir.toString(), "--pid", String.valueOf(ras.pid()));
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.err()).isEmpty();
            List<String> lines = r.out().lines().toList();
            assertThat(lines.getFirst()).isEqualTo("pid " + ras.pid() + " (alive, file open): 2 distinct errors, "
                    + "0 observation(s) dropped because the log was full");
            assertThat(lines.get(1)).matches("  \\[1] count 2, first " + ISO + ", last " + ISO);
            assertThat(lines.subList(2, 5)).containsExactly(
                    "      cause: " + TERMINATE,
                    "      first: qp 3 stag 0x1234",
                    "                 at the peer");
            assertThat(lines.get(5)).matches("  \\[2] count 1, first " + ISO + ", last " + ISO);
            assertThat(lines.get(6)).startsWith("      cause: ").contains("IllegalStateException");
            assertThat(lines.get(7)).isEqualTo("      first: java.lang.IllegalStateException: engine broke");
            assertThat(lines.get(8)).matches(" {17}at dev\\.tandem\\.tools\\.ras\\.ErrorsCommandTest\\.withErrors.*");
            assertThat(r.out()).doesNotContain("a later detail");
        }
    }

    @Test
    void jsonHoldsEveryField(@TempDir Path dir) {
        try (RasFile ras = withErrors(dir)) {
            CliRun.Result r = run("errors", "--dir", dir.toString(), "--json");
            assertThat(r.exit()).as(r.err()).isZero();
            Map<String, Object> p = StatCommandTest.single(MiniJson.object(r.out()).get("processes"));
            assertThat(p).containsEntry("pid", (double) ras.pid()).containsEntry("alive", true).containsEntry("dropped", 0.0);
            List<Map<String, Object>> errors = StatCommandTest.maps(p.get("errors"));
            assertThat(errors).hasSize(2);
            assertThat(errors.getFirst()).containsEntry("cause", TERMINATE).containsEntry("count", 2.0)
                    .containsEntry("text", "qp 3 stag 0x1234\n\tat the peer").containsKeys("first_ms", "last_ms");
            assertThat((String) errors.getFirst().get("first")).matches(ISO);
            assertThat((String) errors.getFirst().get("last")).matches(ISO);
            assertThat((double) errors.getFirst().get("last_ms")).isGreaterThanOrEqualTo((double) errors.getFirst().get("first_ms"));
        }
    }

    @Test
    void countsObservationsDroppedWhenTheLogIsFull(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasCli.config(dir))) {
            int cause = 0;
            while (ras.errorLog().record("distinct cause " + cause++, "x".repeat(500))) {
                assertThat(cause).as("a 4 KiB log fills up").isLessThan(100);
            }
            ras.errorLog().record("one more cause", "y".repeat(500));
            long dropped;
            try (RasReader reader = RasReader.open(ras.path())) {
                dropped = reader.droppedErrors();
            }
            assertThat(dropped).isEqualTo(2);
            CliRun.Result r = run("errors", "--dir", dir.toString());
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out()).contains((cause - 1) + " distinct errors, 2 observation(s) dropped because the log was full");
        }
    }

    @Test
    void readsTheLogAfterTheProcessDied(@TempDir Path dir, @TempDir Path deadDir) throws IOException {
        long pid;
        try (RasFile ras = withErrors(dir)) {
            pid = ras.pid();
            RasCli.deadCopy(ras.path(), deadDir, System.currentTimeMillis());
        }
        CliRun.Result dead = run("errors", "--dir", deadDir.toString(), "--pid", String.valueOf(DEAD_PID));
        assertThat(dead.exit()).as(dead.err()).isZero();
        assertThat(dead.out()).startsWith("pid " + DEAD_PID + " (dead, file open): 2 distinct errors").contains("cause: " + TERMINATE);

        CliRun.Result closed = run("errors", "--dir", dir.toString());
        assertThat(closed.exit()).as(closed.err()).isZero();
        assertThat(closed.out()).startsWith("pid " + pid + " (alive, file closed): 2 distinct errors").contains("count 2");
    }

    @Test
    void listsEveryProcessWhenThereAreSeveral(@TempDir Path dir) throws IOException {
        try (RasFile ras = withErrors(dir)) {
            RasCli.deadCopy(ras.path(), dir, System.currentTimeMillis());
            CliRun.Result r = run("errors", "--dir", dir.toString());
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out()).startsWith("Tandem processes in " + dir)
                    .contains("pid " + ras.pid() + " (alive, file open): 2 distinct errors")
                    .contains("pid " + DEAD_PID + " (dead, file open): 2 distinct errors");
        }
    }

    @Test
    void aProcessWithoutErrorsSaysSo(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasCli.config(dir))) {
            CliRun.Result r = run("errors", "--dir", dir.toString());
            assertThat(r.exit()).isZero();
            assertThat(r.out()).isEqualTo("pid " + ras.pid() + " (alive, file open): 0 distinct errors, 0 observation(s) dropped"
                    + " because the log was full" + System.lineSeparator() + "  no errors recorded" + System.lineSeparator());
        }
    }

    @Test
    void missingProcessOrBadPidFails(@TempDir Path dir) {
        CliRun.Result none = run("errors", "--dir", dir.toString());
        assertThat(none.exit()).isEqualTo(1);
        assertThat(none.err()).startsWith("tandem errors: error: no Tandem processes in " + dir);

        CliRun.Result missing = run("errors", "--dir", dir.toString(), "--pid", "77");
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.err()).startsWith("tandem errors: error: no RAS file for pid 77 in " + dir + " (it holds none)");

        CliRun.Result bad = run("errors", "--pid", "-5");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("--pid -5 is not a process id");
    }
}

package dev.tandem.tools.ras;

import dev.tandem.ras.RasFile;
import dev.tandem.ras.ResourceSlot;
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

/** {@code tandem stat --resources}: the resource owner table of a process, running or dead, as text and JSON. */
class StatResourcesTest {
    private static final String ISO = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z";
    private static final String SITE = "com.acme.App.main(App.java:42)";

    private static RasFile withResources(Path dir) {
        RasFile ras = RasFile.create(RasCli.config(dir));
        ras.resources().register("PD", 1, "iwarp0@127.0.1.1 pd 1", "app-main", SITE);
        ResourceSlot qp = ras.resources().register("QP", 3, "iwarp0@127.0.1.1 qp 3", "app-main", SITE);
        qp.detail("state RTS peer 127.0.1.2:4791");
        ras.resources().register("MR", 0x1234, "iwarp0@127.0.1.1 mr 0x1234", "worker-1", "com.acme.Pool.grow(Pool.java:7)").close();
        return ras;
    }

    @Test
    void printsEachLiveResourceWithItsOwnerAndDetail(@TempDir Path dir) {
        try (RasFile ras = withResources(dir)) {
            CliRun.Result r = run("stat", "--dir", dir.toString(), "--pid", String.valueOf(ras.pid()), "--resources");
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.err()).isEmpty();
            List<String> lines = r.out().lines().toList();
            int title = lines.indexOf("pid " + ras.pid() + " (alive, file open): 2 live resources, 0 registration(s) dropped"
                    + " because the table was full");
            assertThat(title).as(r.out()).isPositive();
            assertThat(lines.get(title + 1)).matches("  TYPE  ID  NAME +PID  THREAD +CREATED \\(UTC\\) +AGE  CALL SITE +DETAIL");
            assertThat(lines.get(title + 2)).matches("  PD +1  iwarp0@127\\.0\\.1\\.1 pd 1 +" + ras.pid() + "  app-main  " + ISO
                    + " +\\d+\\.\\ds  com\\.acme\\.App\\.main\\(App\\.java:42\\)");
            assertThat(lines.get(title + 3)).matches("  QP +3  iwarp0@127\\.0\\.1\\.1 qp 3 +" + ras.pid() + "  app-main  " + ISO
                    + " +\\d+\\.\\ds  com\\.acme\\.App\\.main\\(App\\.java:42\\)  state RTS peer 127\\.0\\.1\\.2:4791");
            assertThat(lines).hasSize(title + 4);
            assertThat(r.out()).as("closed resources are gone").doesNotContain("mr 0x1234").doesNotContain("OWNER");
        }
    }

    @Test
    void readsTheResourcesOfADeadProcess(@TempDir Path dir) throws IOException {
        Path dead;
        try (RasFile ras = withResources(dir.resolve("live"))) {
            dead = RasCli.deadCopy(ras.path(), dir, System.currentTimeMillis());
        }
        CliRun.Result r = run("stat", "--dir", dir.toString(), "--resources");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("pid " + DEAD_PID + " (dead, file open): 2 live resources")
                .contains("iwarp0@127.0.1.1 qp 3").contains("state RTS peer 127.0.1.2:4791");
        assertThat(dead).exists();
    }

    @Test
    void jsonHoldsEveryField(@TempDir Path dir) {
        try (RasFile ras = withResources(dir)) {
            CliRun.Result r = run("stat", "--dir", dir.toString(), "--resources", "--json");
            assertThat(r.exit()).as(r.err()).isZero();
            Map<String, Object> json = MiniJson.object(r.out());
            assertThat(json).containsEntry("dir", dir.toString()).containsKeys("time", "time_ms", "unreadable", "hidden_dead");
            Map<String, Object> p = StatCommandTest.single(json.get("processes"));
            assertThat(p).containsEntry("pid", (double) ras.pid()).containsEntry("alive", true).containsEntry("resources_dropped", 0.0)
                    .doesNotContainKey("counters");
            List<Map<String, Object>> resources = StatCommandTest.maps(p.get("resources"));
            assertThat(resources).hasSize(2);
            assertThat(resources.get(1)).containsEntry("type", "QP").containsEntry("id", 3.0)
                    .containsEntry("name", "iwarp0@127.0.1.1 qp 3").containsEntry("pid", (double) ras.pid())
                    .containsEntry("thread", "app-main").containsEntry("call_site", SITE)
                    .containsEntry("detail", "state RTS peer 127.0.1.2:4791").containsKeys("created", "created_ms");
            assertThat((String) resources.get(1).get("created")).matches(ISO);
            assertThat((double) resources.get(1).get("created_ms")).isBetween((double) ras.startTimeMs(), (double) System.currentTimeMillis());
        }
    }

    @Test
    void countsRegistrationsDroppedWhenTheTableIsFull(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasCli.config(dir).withResourceCapacity(1))) {
            ras.resources().register("PD", 1, "pd 1", "main", "");
            ras.resources().register("PD", 2, "pd 2", "main", "");
            CliRun.Result r = run("stat", "--dir", dir.toString(), "--resources");
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out()).contains(": 1 live resource, 1 registration(s) dropped because the table was full");
        }
    }

    @Test
    void resourcesRefuseCounterOptionsAndPrometheus(@TempDir Path dir) {
        CliRun.Result prometheus = run("stat", "--dir", dir.toString(), "--resources", "--prometheus");
        assertThat(prometheus.exit()).isEqualTo(2);
        assertThat(prometheus.err()).contains("--resources has no Prometheus format");
        CliRun.Result filter = run("stat", "--dir", dir.toString(), "--resources", "--filter", "bytes");
        assertThat(filter.exit()).isEqualTo(2);
        assertThat(filter.err()).contains("--filter selects counters; --resources prints the whole resource table");
        CliRun.Result type = run("stat", "--dir", dir.toString(), "--resources", "--type", "2");
        assertThat(type.exit()).isEqualTo(2);
        assertThat(type.err()).contains("--type selects counters");
    }

    @Test
    void missingProcessFailsWithOneLine(@TempDir Path dir) {
        CliRun.Result r = run("stat", "--dir", dir.toString(), "--pid", "123456789", "--resources");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err().lines().toList()).singleElement().asString().startsWith("tandem stat: error: no RAS file for pid 123456789");
    }
}

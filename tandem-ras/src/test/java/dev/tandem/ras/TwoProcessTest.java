package dev.tandem.ras;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/**
 * A child JVM owns a RAS file; this JVM reads its counters, errors and resources from outside, changes
 * a trace level that the child sees while running, has it write a dump, kills it, and still reads the
 * file post-mortem (and dumps it from the file alone).
 */
class TwoProcessTest {

    @Test
    @Timeout(60)
    void readsAndTunesALiveProcessAndReadsItAfterItDied(@TempDir Path dir) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(List.of(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
                RasChildProcess.class.getName(), dir.toString()))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread pump = Thread.ofPlatform().name("ras-child-stdout").start(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII))) {
                for (String line; (line = out.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            assertThat(lines.poll(30, TimeUnit.SECONDS)).as("child start line").isEqualTo("READY " + child.pid());

            try (RasReader reader = RasReader.open(dir, child.pid())) {
                RasHeader header = reader.header();
                assertThat(header.pid()).isEqualTo(child.pid());
                assertThat(header.ownerState()).isEqualTo(OwnerState.OPEN);
                assertThat(header.command()).contains(RasChildProcess.class.getName());
                assertThat(reader.processAlive()).isTrue();
                assertThat(reader.counters()).containsExactly(
                        new CounterSnapshot(0, 1, 7, "child.sends", 42),
                        new CounterSnapshot(1, 2, 7, "child.bytes", 42 * 1024));
                assertThat(reader.errors()).singleElement().satisfies(e -> {
                    assertThat(e.cause()).startsWith("java.lang.IllegalStateException: QP # moved to ERROR @ ");
                    assertThat(e.count()).isEqualTo(1);
                });
                assertThat(reader.traceLevels()).containsExactly(new TraceLevelEntry(0, "iwarp.rx", TraceLevel.ERROR));
                assertThat(reader.resources()).extracting(ResourceEntry::type, ResourceEntry::id, ResourceEntry::name)
                        .containsExactly(tuple("PD", 1L, "child0 pd 1"), tuple("QP", 3L, "child0 qp 3"));
                assertThat(reader.resources()).allSatisfy(r -> {
                    assertThat(r.pid()).isEqualTo(child.pid());
                    assertThat(r.thread()).isEqualTo("main");
                    assertThat(r.callSite()).startsWith(RasChildProcess.class.getName() + ".main(RasChildProcess.java:");
                });
                assertThat(reader.resources().get(1).detail()).isEqualTo("state RTS peer 127.0.1.2:4791");

                long request = reader.requestDump();
                Await.until(Duration.ofSeconds(10), "the child to write the requested dump", () -> reader.dumpDone() >= request);
                try (DumpReader dump = DumpReader.open(reader.lastDump().orElseThrow())) {
                    assertThat(dump.header().pid()).isEqualTo(child.pid());
                    assertThat(dump.header().writerPid()).isEqualTo(child.pid());
                    assertThat(dump.header().reason()).isEqualTo("requested");
                    assertThat(dump.tree()).containsExactly(new SnapshotNode.Group("adapter", "child0@127.0.0.1", List.of(
                            new SnapshotNode.LongField("qps", 1),
                            new SnapshotNode.Group("qp", "3", List.of(new SnapshotNode.EnumField("state", "State", "RUNNABLE"))))));
                    assertThat(dump.ras().resources()).hasSize(2);
                    assertThat(dump.ras().counters()).extracting(CounterSnapshot::value).containsExactly(42L, 42L * 1024);
                }
                long beat = reader.header().heartbeatMs();
                Await.until(Duration.ofSeconds(5), "the child's heartbeat to advance", () -> reader.header().heartbeatMs() > beat);
                assertThat(RasReader.list(dir)).singleElement().isInstanceOfSatisfying(RasListing.Found.class,
                        f -> assertThat(f.alive()).isTrue());

                long start = System.nanoTime();
                reader.setTraceLevel("iwarp.rx", TraceLevel.INTERNALS);
                String seen = lines.poll(5, TimeUnit.SECONDS);
                long micros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
                assertThat(seen).as("child's report of its new level").isEqualTo("LEVEL iwarp.rx 5");
                System.out.println("trace level change seen by the child after " + micros + " us");
                assertThat(reader.traceRecords()).singleElement().satisfies(r -> {
                    assertThat(r.component()).isEqualTo("iwarp.rx");
                    assertThat(r.event()).isEqualTo("lvlSeen");
                    assertThat(r.a()).isEqualTo(5);
                    assertThat(r.text()).isEqualTo("level changed from outside");
                });

                child.destroyForcibly();
                assertThat(child.waitFor(10, TimeUnit.SECONDS)).as("child killed").isTrue();
                assertThat(reader.processAlive()).isFalse();
                assertThatThrownBy(() -> reader.setTraceLevel("iwarp.rx", 1)).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("not running");
            }

            assertThat(RasReader.list(dir)).singleElement().isInstanceOfSatisfying(RasListing.Found.class, f -> {
                assertThat(f.alive()).as("post-mortem: owner dead").isFalse();
                assertThat(f.header().ownerState()).as("died without closing").isEqualTo(OwnerState.OPEN);
            });
            try (RasReader postMortem = RasReader.open(dir, child.pid())) {
                postMortem.verify();
                assertThat(postMortem.counters()).extracting(CounterSnapshot::value).containsExactly(42L, 42L * 1024);
                assertThat(postMortem.errors()).hasSize(1);
                assertThat(postMortem.traceLevels()).containsExactly(new TraceLevelEntry(0, "iwarp.rx", TraceLevel.INTERNALS));
                assertThat(postMortem.traceRecords()).hasSize(1);
                assertThat(postMortem.resources()).as("resources of the killed child").extracting(ResourceEntry::name)
                        .containsExactly("child0 pd 1", "child0 qp 3");
                assertThat(postMortem.droppedResources()).isZero();
                assertThatThrownBy(postMortem::requestDump).isInstanceOf(IllegalStateException.class).hasMessageContaining("not running");
            }
            Path dumpFile = DumpFiles.writeFromRasFile(dir.resolve(child.pid() + ".ras"), dir, "post-mortem");
            try (DumpReader dump = DumpReader.open(dumpFile)) {
                assertThat(dump.header().fromRasFileOnly()).isTrue();
                assertThat(dump.ras().resources()).extracting(ResourceEntry::detail).containsExactly("", "state RTS peer 127.0.1.2:4791");
            }
            assertThat(DumpFiles.list(dir, child.pid())).hasSize(2).contains(dumpFile);
        } finally {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
            pump.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(pump.isAlive()).as("stdout pump stopped").isFalse();
        }
    }
}

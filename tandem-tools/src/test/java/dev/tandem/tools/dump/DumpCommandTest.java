package dev.tandem.tools.dump;

import dev.tandem.ras.DumpFiles;
import dev.tandem.ras.DumpReader;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasConfig;
import dev.tandem.ras.RasFile;
import dev.tandem.ras.SnapshotNode;
import dev.tandem.ras.SnapshotSource;
import dev.tandem.ras.TraceEvent;
import dev.tandem.ras.TraceLevel;
import dev.tandem.tools.CliRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static dev.tandem.tools.CliRun.run;
import static dev.tandem.tools.CliRun.usageError;
import static dev.tandem.tools.dump.DumpCli.DEAD_PID;
import static org.assertj.core.api.Assertions.assertThat;

class DumpCommandTest {
    private static final long PID = ProcessHandle.current().pid();
    private static final String ISO = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z";

    enum QpState { RTS }

    /** A fake adapter with one QP. */
    private static final SnapshotSource ADAPTER = out -> {
        out.begin("adapter", "iwarp0@127.0.1.1").field("local port", 4791).field("engine", "dedicated");
        out.begin("qp", "3").field("state", QpState.RTS).field("sq outstanding", 2).field("peer", "127.0.1.2:4791")
                .hex("last header", MemorySegment.ofArray("TANDEM-hdr-0123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII)))
                .end();
        out.end();
    };

    /** A fake adapter whose snapshot fails half-way. */
    private static final SnapshotSource BROKEN = out -> {
        out.begin("adapter", "iwarp1@127.0.1.3").begin("qp", "9");
        throw new IllegalStateException("QP 9 is being torn down");
    };

    @AfterEach
    void restoreProcessRas() {
        ProcessRas.removeSnapshotSource(ADAPTER);
        ProcessRas.removeSnapshotSource(BROKEN);
        assertThat(ProcessRas.current()).as("each test releases what it acquires").isNull();
        ProcessRas.configure(RasConfig.defaults());
    }

    @Test
    void aRunningProcessWritesTheDumpAndItsPathIsPrinted(@TempDir Path dir) {
        ProcessRas.configure(DumpCli.config(dir).withDutyIntervalMs(5));
        ProcessRas.addSnapshotSource(ADAPTER);
        ProcessRas.acquire();
        try {
            CliRun.Result r = run("dump", "--pid", String.valueOf(PID), "--dir", dir.toString(), "--timeout", "30s");
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.err()).isEmpty();
            Path dump = Path.of(r.out().strip());
            assertThat(dump.getFileName().toString()).matches(PID + "-\\d{8}-\\d{6}-\\d{3}-requested\\.dump");
            assertThat(dump.getParent()).isEqualTo(dir.toAbsolutePath());
            try (DumpReader reader = DumpReader.open(dump)) {
                assertThat(reader.header().reason()).isEqualTo("requested");
                assertThat(reader.header().fromRasFileOnly()).isFalse();
                assertThat(reader.tree()).singleElement().isInstanceOfSatisfying(SnapshotNode.Group.class,
                        g -> assertThat(g.name()).isEqualTo("iwarp0@127.0.1.1"));
            }
        } finally {
            ProcessRas.release();
        }
    }

    @Test
    void aDeadProcessIsDumpedFromItsRasFileAlone(@TempDir Path dir) throws IOException {
        Path dead;
        try (RasFile ras = RasFile.create(DumpCli.config(dir.resolve("live")))) {
            ras.resources().register("QP", 3, "iwarp0@127.0.1.1 qp 3", "main", "com.acme.App.main(App.java:42)");
            ras.errorLog().record("it crashed", "");
            dead = DumpCli.deadCopy(ras.path(), dir);
        }
        CliRun.Result r = run("dump", "--pid", String.valueOf(DEAD_PID), "--dir", dir.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).isEqualTo("tandem dump: process " + DEAD_PID + " is not running: dump holds its RAS file only"
                + System.lineSeparator());
        Path dump = Path.of(r.out().strip());
        assertThat(dump.getFileName().toString()).matches(DEAD_PID + "-\\d{8}-\\d{6}-\\d{3}-post-mortem\\.dump");
        assertThat(DumpFiles.list(dir, DEAD_PID)).containsExactly(dump);
        try (DumpReader reader = DumpReader.open(dump)) {
            assertThat(reader.header().pid()).isEqualTo(DEAD_PID);
            assertThat(reader.header().fromRasFileOnly()).isTrue();
            assertThat(reader.tree()).isEmpty();
            assertThat(reader.ras().resources()).extracting(r2 -> r2.name()).containsExactly("iwarp0@127.0.1.1 qp 3");
        }
        assertThat(dead).exists();
    }

    @Test
    void aProcessThatDoesNotAnswerInTimeFailsWithTheReason(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(DumpCli.config(dir))) {
            CliRun.Result r = run("dump", "--pid", String.valueOf(PID), "--dir", dir.toString(), "--timeout", "100ms");
            assertThat(r.exit()).isEqualTo(1);
            assertThat(r.out()).isEmpty();
            assertThat(r.err().lines().toList()).singleElement().asString()
                    .startsWith("tandem dump: error: process " + PID + " did not write the dump within 100ms: ")
                    .contains("request 1 stays pending");
            ras.heartbeat();
            assertThat(DumpFiles.list(dir, PID)).as("the pending request is served by the next duty").hasSize(1);
        }
    }

    @Test
    void aMissingProcessOrDumpFailsWithOneLine(@TempDir Path dir) throws IOException {
        CliRun.Result noFile = run("dump", "--pid", "123456789", "--dir", dir.toString());
        assertThat(noFile.exit()).isEqualTo(1);
        assertThat(noFile.err()).isEqualTo("tandem dump: error: no RAS file for pid 123456789 in " + dir
                + " (give --dir if the process uses another directory)" + System.lineSeparator());

        CliRun.Result noDir = run("dump", "--pid", "123456789", "--dir", dir.resolve("missing").toString());
        assertThat(noDir.exit()).isEqualTo(1);
        assertThat(noDir.err()).startsWith("tandem dump: error: no RAS directory " + dir.resolve("missing"));

        CliRun.Result noDump = run("dump", "--decode", dir.resolve("nope.dump").toString());
        assertThat(noDump.exit()).isEqualTo(1);
        assertThat(noDump.err()).isEqualTo("tandem dump: error: no dump file " + dir.resolve("nope.dump") + System.lineSeparator());

        Path garbage = Files.write(dir.resolve("garbage.dump"), "not a dump at all, just some text to fill the header up to 144 bytes"
                .repeat(4).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        CliRun.Result corrupt = run("dump", "--decode", garbage.toString());
        assertThat(corrupt.exit()).isEqualTo(1);
        assertThat(corrupt.out()).isEmpty();
        assertThat(corrupt.err().lines().toList()).singleElement().asString()
                .startsWith("tandem dump: error: dump " + garbage + " is corrupt: corrupt structure 'dump " + garbage + "' at offset 0")
                .contains("TANDEMDUMP  v001");
    }

    @Test
    void aTruncatedDumpIsReportedAsSuch(@TempDir Path dir) throws IOException {
        Path dump;
        try (RasFile ras = RasFile.create(DumpCli.config(dir))) {
            ras.heartbeat();
            dump = DumpFiles.writeFromRasFile(ras.path(), dir, "test");
        }
        byte[] bytes = Files.readAllBytes(dump);
        Files.write(dump, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        CliRun.Result r = run("dump", "--decode", dump.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("the dump is truncated");
    }

    @Test
    void badUsageExitsWithTwo() {
        assertThat(usageError("dump")).contains("give --pid PID to dump a process, or --decode FILE to print a dump");
        assertThat(usageError("dump", "--pid", "1", "--decode", "x.dump")).contains("give either --pid or --decode, not both");
        assertThat(usageError("dump", "--pid", "0")).contains("--pid 0 is not a process id");
        assertThat(usageError("dump", "--pid", "5", "--timeout", "5")).contains("--timeout '5' is not a duration")
                .contains("e.g. 500ms, 5s or 1m");
        assertThat(usageError("dump", "--pid", "5", "--timeout", "0s")).contains("--timeout 0s is out of range");
        assertThat(usageError("dump", "--pid", "5", "--timeout", "61m")).contains("at most an hour");
        assertThat(usageError("dump", "--decode", "x.dump", "--timeout", "1s")).contains("--timeout only applies with --pid");
        assertThat(usageError("dump", "--decode", "x.dump", "--dir", "/tmp")).contains("--dir only applies with --pid");
        assertThat(usageError("dump", "--pid", "abc")).contains("abc");
    }

    @Test
    void decodePrintsStateResourcesCountersErrorsAndTraceForPeople(@TempDir Path dir) {
        ProcessRas.configure(DumpCli.config(dir));
        ProcessRas.addSnapshotSource(ADAPTER);
        ProcessRas.addSnapshotSource(BROKEN);
        RasFile ras = ProcessRas.acquire();
        Path dump;
        try {
            ras.counters().allocate(1, "iwarp0@127.0.1.1 sent SEND", 0).add(5);
            ras.counters().allocate(2, "iwarp0@127.0.1.1 qp 3 bytes sent", 3).add(4096);
            ras.counters().allocate(2, "iwarp0@127.0.1.1 qp 3 messages sent", 3).add(7);
            ras.counters().allocate(1, "iwarp1@127.0.1.3 crc errors", 0).add(1);
            ras.counters().allocate(9, "uptime", 0).add(60);
            ras.errorLog().record("terminate sent: DDP tagged invalid STag", "qp 3 stag 0x1234\n\tat the peer");
            ras.errorLog().record("terminate sent: DDP tagged invalid STag", "a later detail is not kept");
            ras.trace().component("iwarp.cm").record(TraceLevel.ERROR, TraceEvent.of("connect"), 3, 7);
            ras.trace().component("iwarp.rx").record(TraceLevel.RARE, TraceEvent.of("fpdu-rx"), 3, 1500, 0, 0, "first");
            ras.resources().register("QP", 3, "iwarp0@127.0.1.1 qp 3", "app-main", "com.acme.App.main(App.java:42)")
                    .detail("state RTS peer 127.0.1.2:4791");
            ras.resources().register("PD", 1, "iwarp0@127.0.1.1 pd 1", "app-main", "com.acme.App.main(App.java:40)");
            dump = ProcessRas.dump("adapter fatal");
        } finally {
            ProcessRas.release();
        }

        CliRun.Result r = run("dump", "--decode", dump.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).isEmpty();
        List<String> lines = r.out().lines().toList();
        assertThat(lines.getFirst()).isEqualTo("dump " + dump);
        assertThat(lines.subList(1, 6)).satisfiesExactly(
                l -> assertThat(l).isEqualTo("  pid       " + PID),
                l -> assertThat(l).matches("  written   " + ISO),
                l -> assertThat(l).isEqualTo("  reason    adapter fatal"),
                l -> assertThat(l).startsWith("  command   ").hasSizeGreaterThan(12),
                l -> assertThat(l).matches("  RAS file  layout v3, created " + ISO + ", last heartbeat " + ISO + ", file open"));
        assertThat(lines).containsSubsequence(
                "state:",
                "  adapter iwarp0@127.0.1.1",
                "    local port  4791",
                "    engine      dedicated",
                "    qp 3",
                "      state           RTS",
                "      sq outstanding  2",
                "      peer            127.0.1.2:4791",
                "      last header     21 bytes:",
                "          0000  54 41 4e 44 45 4d 2d 68 64 72 2d 30 31 32 33 34  |TANDEM-hdr-01234|",
                "          0010  35 36 37 38 39                                   |56789|",
                "  adapter iwarp1@127.0.1.3",
                "    qp 9",
                "  ! snapshot source " + DumpCommandTest.class.getName() + " (lambda) failed in adapter iwarp1@127.0.1.3 / qp 9:",
                "      java.lang.IllegalStateException: QP 9 is being torn down");
        assertThat(lines).containsSubsequence(
                "resources: 2 live, 0 registration(s) dropped because the table was full",
                "counters: 5",
                "  iwarp0@127.0.1.1",
                "    VALUE  COUNTER",
                "        5  sent SEND",
                "    qp 3",
                "      VALUE  COUNTER",
                "       4096  bytes sent",
                "          7  messages sent",
                "  iwarp1@127.0.1.3",
                "    VALUE  COUNTER",
                "        1  crc errors",
                "  (no prefix)",
                "    VALUE  COUNTER",
                "       60  uptime",
                "errors: 1 distinct, 0 observation(s) dropped because the log was full",
                "      cause: terminate sent: DDP tagged invalid STag",
                "      first: qp 3 stag 0x1234",
                "                 at the peer",
                "trace: 2 records, oldest first");
        int resources = lines.indexOf("resources: 2 live, 0 registration(s) dropped because the table was full");
        assertThat(lines.get(resources + 1)).matches("  TYPE  ID  NAME +PID +THREAD +CREATED \\(UTC\\) +CALL SITE +DETAIL");
        assertThat(lines.get(resources + 2)).matches("  QP +3  iwarp0@127\\.0\\.1\\.1 qp 3  +" + PID + "  app-main  " + ISO
                + "  com\\.acme\\.App\\.main\\(App\\.java:42\\)  state RTS peer 127\\.0\\.1\\.2:4791");
        assertThat(lines.get(resources + 3)).matches("  PD +1  iwarp0@127\\.0\\.1\\.1 pd 1  +" + PID + "  app-main  " + ISO
                + "  com\\.acme\\.App\\.main\\(App\\.java:40\\)");
        int errors = lines.indexOf("errors: 1 distinct, 0 observation(s) dropped because the log was full");
        assertThat(lines.get(errors + 1)).matches("  \\[1] count 2, first " + ISO + ", last " + ISO);
        assertThat(r.out()).doesNotContain("a later detail");
        int trace = lines.indexOf("trace: 2 records, oldest first");
        assertThat(lines.get(trace + 1)).matches("  TIME \\(UTC\\) +THREAD  COMPONENT  LEVEL +EVENT +A +B  C  D  TEXT");
        String micros = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z";
        long thread = Thread.currentThread().threadId();
        assertThat(lines.get(trace + 2)).matches("  " + micros + " +" + thread + "  iwarp\\.cm +1 error +connect +3 +7  0  0");
        assertThat(lines.get(trace + 3)).matches("  " + micros + " +" + thread + "  iwarp\\.rx +2 rare +fpdu-rx +3  1500  0  0  first");
    }

    @Test
    void decodeOfARasFileOnlyDumpSaysSo(@TempDir Path dir) throws IOException {
        try (RasFile ras = RasFile.create(DumpCli.config(dir.resolve("live")))) {
            DumpCli.deadCopy(ras.path(), dir);
        }
        Path dump = DumpFiles.writeFromRasFile(dir.resolve(DEAD_PID + ".ras"), dir, "post-mortem");
        CliRun.Result r = run("dump", "--decode", dump.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out().lines().toList()).contains(
                "  pid       " + DEAD_PID + " (dumped by pid " + PID + " from its RAS file alone)",
                "state: none (the dump holds the process's RAS file only)",
                "resources: 0 live, 0 registration(s) dropped because the table was full",
                "counters: 0",
                "errors: 0 distinct, 0 observation(s) dropped because the log was full",
                "trace: 0 records, oldest first");
    }
}

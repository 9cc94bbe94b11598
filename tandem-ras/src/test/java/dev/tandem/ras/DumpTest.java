package dev.tandem.ras;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Dumps: what ProcessRas.dump writes, how DumpReader reads it back, and how a damaged dump is refused. */
class DumpTest {
    private static final long PID = ProcessHandle.current().pid();

    enum QpState { RTS, ERROR }

    /** A fake adapter: one group with two QP groups holding every kind of field. */
    static final SnapshotSource ADAPTER = out -> {
        out.begin("adapter", "iwarp0@127.0.1.1").field("local port", 4791).field("engine", "dedicated");
        for (int qp = 3; qp <= 4; qp++) {
            byte[] header = new byte[300];
            for (int i = 0; i < header.length; i++) {
                header[i] = (byte) i;
            }
            out.begin("qp", String.valueOf(qp)).field("state", qp == 3 ? QpState.RTS : QpState.ERROR)
                    .field("sq outstanding", -qp).field("peer", "127.0.1.2:" + (5000 + qp))
                    .hex("last header", MemorySegment.ofArray(header)).end();
        }
        out.end();
    };

    @AfterEach
    void noFileLeftOpen() {
        assertThat(ProcessRas.current()).as("each test releases what it acquires").isNull();
        ProcessRas.configure(RasConfig.defaults());
    }

    static RasConfig config(Path dir) {
        return RasFileTest.small(dir).withTraceRingBytes(1 << 16);
    }

    @Test
    void dumpHoldsHeaderStateTreeAndACopyOfTheRasFile(@TempDir Path dir) {
        ProcessRas.configure(config(dir));
        RasFile ras = ProcessRas.acquire();
        ProcessRas.addSnapshotSource(ADAPTER);
        Path dump;
        long before = System.currentTimeMillis();
        try {
            ras.counters().allocate(1, "iwarp0@127.0.1.1 qp 3 bytes sent", 3).add(4096);
            ras.errorLog().record("terminate sent: DDP tagged invalid STag", "qp 3");
            ras.trace().component("iwarp.cm").record(TraceLevel.ERROR, TraceEvent.of("connect"), 3, 7);
            ras.resources().register("QP", 3, "iwarp0@127.0.1.1 qp 3", "main", "App.main(App.java:42)").detail("state RTS");
            dump = ProcessRas.dump("adapter fatal: iwarp0");
        } finally {
            ProcessRas.removeSnapshotSource(ADAPTER);
            ProcessRas.release();
        }
        assertThat(dump.getParent()).isEqualTo(dir.toAbsolutePath());
        assertThat(dump.getFileName().toString()).matches(PID + "-\\d{8}-\\d{6}-\\d{3}-adapter-fatal-iwarp0\\.dump");
        assertThat(DumpFiles.list(dir, PID)).containsExactly(dump);

        try (DumpReader reader = DumpReader.open(dump)) {
            DumpHeader h = reader.header();
            assertThat(h.pid()).isEqualTo(PID);
            assertThat(h.writerPid()).isEqualTo(PID);
            assertThat(h.fromRasFileOnly()).isFalse();
            assertThat(h.timeMs()).isBetween(before, System.currentTimeMillis());
            assertThat(h.reason()).isEqualTo("adapter fatal: iwarp0");
            assertThat(h.command()).isEqualTo(reader.ras().header().command()).isNotEmpty();
            assertThat(h.formatVersion()).isEqualTo(DumpFileDescriptor.FORMAT_VERSION);

            byte[] first256 = new byte[256];
            for (int i = 0; i < first256.length; i++) {
                first256[i] = (byte) i;
            }
            String hex = HexFormat.of().formatHex(first256);
            assertThat(reader.tree()).containsExactly(new SnapshotNode.Group("adapter", "iwarp0@127.0.1.1", List.of(
                    new SnapshotNode.LongField("local port", 4791),
                    new SnapshotNode.TextField("engine", "dedicated"),
                    new SnapshotNode.Group("qp", "3", List.of(
                            new SnapshotNode.EnumField("state", "QpState", "RTS"),
                            new SnapshotNode.LongField("sq outstanding", -3),
                            new SnapshotNode.TextField("peer", "127.0.1.2:5003"),
                            new SnapshotNode.HexField("last header", 300, hex))),
                    new SnapshotNode.Group("qp", "4", List.of(
                            new SnapshotNode.EnumField("state", "QpState", "ERROR"),
                            new SnapshotNode.LongField("sq outstanding", -4),
                            new SnapshotNode.TextField("peer", "127.0.1.2:5004"),
                            new SnapshotNode.HexField("last header", 300, hex))))));

            RasReader copy = reader.ras();
            copy.verify();
            assertThat(copy.header().pid()).isEqualTo(PID);
            assertThat(copy.counters()).singleElement().satisfies(c -> {
                assertThat(c.label()).isEqualTo("iwarp0@127.0.1.1 qp 3 bytes sent");
                assertThat(c.value()).isEqualTo(4096);
            });
            assertThat(copy.errors()).extracting(ErrorEntry::cause).containsExactly("terminate sent: DDP tagged invalid STag");
            assertThat(copy.traceRecords()).singleElement().satisfies(r -> {
                assertThat(r.component()).isEqualTo("iwarp.cm");
                assertThat(r.event()).isEqualTo("connect");
            });
            assertThat(copy.resources()).singleElement().satisfies(r -> {
                assertThat(r.name()).isEqualTo("iwarp0@127.0.1.1 qp 3");
                assertThat(r.detail()).isEqualTo("state RTS");
            });
            assertThat(copy.lastDump()).isEmpty();
            assertThatThrownBy(copy::requestDump).isInstanceOf(IllegalStateException.class).hasMessageContaining("copy in " + dump);
            assertThatThrownBy(() -> copy.setTraceLevel("iwarp.cm", 5)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("belongs to no running process");
        }
    }

    @Test
    void aSourceThatThrowsIsRecordedInItsPlaceAndTheDumpGoesOn(@TempDir Path dir) {
        SnapshotSource broken = out -> {
            out.begin("adapter", "iwarp1@127.0.1.3").field("ok before", 1).begin("qp", "9");
            throw new IllegalStateException("QP 9 table is being rebuilt");
        };
        SnapshotSource leavesOpen = out -> out.begin("adapter", "iwarp2@127.0.1.4");
        ProcessRas.configure(config(dir));
        ProcessRas.acquire();
        ProcessRas.addSnapshotSource(broken);
        ProcessRas.addSnapshotSource(leavesOpen);
        ProcessRas.addSnapshotSource(ADAPTER);
        Path dump;
        try {
            dump = ProcessRas.dump("test");
        } finally {
            ProcessRas.removeSnapshotSource(broken);
            ProcessRas.removeSnapshotSource(leavesOpen);
            ProcessRas.removeSnapshotSource(ADAPTER);
            ProcessRas.release();
        }
        try (DumpReader reader = DumpReader.open(dump)) {
            List<SnapshotNode> tree = reader.tree();
            assertThat(tree).hasSize(5);
            assertThat(tree.get(0)).isEqualTo(new SnapshotNode.Group("adapter", "iwarp1@127.0.1.3", List.of(
                    new SnapshotNode.LongField("ok before", 1), new SnapshotNode.Group("qp", "9", List.of()))));
            assertThat(tree.get(1)).isInstanceOfSatisfying(SnapshotNode.SourceError.class, e -> {
                assertThat(e.source()).isEqualTo(DumpTest.class.getName() + " (lambda)");
                assertThat(e.where()).isEqualTo("adapter iwarp1@127.0.1.3 / qp 9");
                assertThat(e.error()).startsWith("java.lang.IllegalStateException: QP 9 table is being rebuilt\n\tat ")
                        .contains("DumpTest");
            });
            assertThat(tree.get(2)).isEqualTo(new SnapshotNode.Group("adapter", "iwarp2@127.0.1.4", List.of()));
            assertThat(tree.get(3)).isInstanceOfSatisfying(SnapshotNode.SourceError.class, e -> {
                assertThat(e.where()).isEqualTo("adapter iwarp2@127.0.1.4");
                assertThat(e.error()).isEqualTo("left 1 group(s) open; the dump closed them");
            });
            assertThat(tree.get(4)).isInstanceOfSatisfying(SnapshotNode.Group.class,
                    g -> assertThat(g.name()).as("the source after them is dumped").isEqualTo("iwarp0@127.0.1.1"));
        }
    }

    @Test
    void writerRefusesBadInput() {
        SnapshotWriter out = new SnapshotWriter();
        assertThatThrownBy(out::end).isInstanceOf(IllegalStateException.class).hasMessageContaining("end() without an open group");
        assertThatThrownBy(() -> out.begin(" ", "3")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("group kind is blank");
        assertThatThrownBy(() -> out.begin("qp", null)).hasMessageContaining("group name is null for kind 'qp'");
        assertThatThrownBy(() -> out.field(null, 1)).hasMessageContaining("field key is null");
        assertThatThrownBy(() -> out.hex("bytes", null)).hasMessageContaining("hex field 'bytes' has no segment");
        out.field("nothing", (String) null).field("no state", (QpState) null);
        assertThat(out.depth()).isZero();
    }

    @Test
    void dumpNeedsAnOpenFileAndAReason(@TempDir Path dir) {
        assertThatThrownBy(() -> ProcessRas.dump("x")).isInstanceOf(IllegalStateException.class).hasMessageContaining("no RAS file is open");
        assertThatThrownBy(() -> ProcessRas.dump(" ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dump reason is blank");
        assertThatThrownBy(() -> ProcessRas.addSnapshotSource(null)).isInstanceOf(IllegalArgumentException.class);
        ProcessRas.addSnapshotSource(ADAPTER);
        try {
            assertThatThrownBy(() -> ProcessRas.addSnapshotSource(ADAPTER)).hasMessageContaining("already added");
        } finally {
            ProcessRas.removeSnapshotSource(ADAPTER);
            ProcessRas.removeSnapshotSource(ADAPTER);
        }
        assertThat(DumpFiles.slug("Adapter FATAL: iwarp0@127.0.1.1!")).isEqualTo("adapter-fatal-iwarp0-127-0-1-1");
        assertThat(DumpFiles.slug("???")).isEqualTo("dump");
        assertThat(DumpFiles.slug("x".repeat(100))).hasSize(32);
    }

    @Test
    void sameMillisecondDumpsGetDistinctNames(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(config(dir))) {
            Path first = ras.dump("burst");
            Path second = ras.dump("burst");
            Path third = ras.dump("burst");
            assertThat(List.of(first, second, third)).doesNotHaveDuplicates().allSatisfy(p -> assertThat(p).exists());
            assertThat(DumpFiles.list(dir, ras.pid())).containsExactly(first, second, third);
            assertThat(dir).isDirectoryNotContaining("glob:**.tmp");
        }
    }

    @Test
    void aDumpRequestedFromOutsideIsWrittenByTheDutyThread(@TempDir Path dir) {
        ProcessRas.configure(config(dir).withDutyIntervalMs(5));
        ProcessRas.acquire();
        ProcessRas.addSnapshotSource(ADAPTER);
        try (RasReader outside = RasReader.open(dir, PID)) {
            assertThat(outside.dumpDone()).isZero();
            assertThat(outside.lastDump()).isEmpty();
            long first = outside.requestDump();
            assertThat(first).isEqualTo(1);
            Await.until(Duration.ofSeconds(10), "the duty thread to serve dump request 1", () -> outside.dumpDone() >= first);
            Path dump = outside.lastDump().orElseThrow();
            assertThat(dump.getFileName().toString()).matches(PID + "-\\d{8}-\\d{6}-\\d{3}-requested\\.dump");
            try (DumpReader reader = DumpReader.open(dump)) {
                assertThat(reader.header().reason()).isEqualTo("requested");
                assertThat(reader.tree()).singleElement().isInstanceOfSatisfying(SnapshotNode.Group.class,
                        g -> assertThat(g.name()).isEqualTo("iwarp0@127.0.1.1"));
            }

            long second = outside.requestDump();
            assertThat(second).isEqualTo(2);
            Await.until(Duration.ofSeconds(10), "the duty thread to serve dump request 2", () -> outside.dumpDone() >= second);
            assertThat(outside.lastDump().orElseThrow()).isNotEqualTo(dump).exists();
            assertThat(DumpFiles.list(dir, PID)).hasSize(2);
        } finally {
            ProcessRas.removeSnapshotSource(ADAPTER);
            ProcessRas.release();
        }
    }

    @Test
    void aRequestedDumpThatCannotBeWrittenIsAnsweredAndLogged(@TempDir Path dir) throws IOException {
        Path rasDir = dir.resolve("ras");
        try (RasFile ras = RasFile.create(config(rasDir)); RasReader outside = RasReader.open(ras.path())) {
            long request = outside.requestDump();
            Files.move(rasDir, dir.resolve("moved"));
            Files.write(rasDir, new byte[1]);
            ras.heartbeat();
            assertThat(outside.dumpDone()).isEqualTo(request);
            assertThat(outside.lastDump()).as("no dump to name").isEmpty();
            assertThat(ras.errorLog().snapshot()).singleElement().satisfies(e -> {
                assertThat(e.cause()).isEqualTo("RAS dump failed");
                assertThat(e.text()).contains("cannot write a dump of process " + PID + " into " + rasDir.toAbsolutePath());
            });
            assertThat(ras.dutyFailure()).isEmpty();
        }
    }

    @Test
    void periodicDumpsKeepOnlyTheNewestOfThisPid(@TempDir Path dir) throws IOException {
        Files.createDirectories(dir);
        Path otherPid = Files.write(dir.resolve("1-20250101-000000-000-periodic.dump"), new byte[1]);
        try (RasFile ras = RasFile.create(config(dir).withDumpIntervalMs(1).withDumpsKept(3))) {
            Path requested = ras.dump("requested");
            for (int i = 0; i < 6; i++) {
                long now = System.currentTimeMillis();
                Await.until(Duration.ofSeconds(2), "the clock to pass the dump interval", () -> System.currentTimeMillis() > now);
                ras.heartbeat();
            }
            List<Path> periodic = DumpFiles.list(dir, ras.pid()).stream()
                    .filter(p -> p.getFileName().toString().endsWith("-periodic.dump")).toList();
            assertThat(periodic).hasSize(3);
            for (Path p : periodic) {
                try (DumpReader reader = DumpReader.open(p)) {
                    assertThat(reader.header().reason()).isEqualTo("periodic");
                }
            }
            assertThat(requested).as("other reasons are kept").exists();
            assertThat(otherPid).as("other processes' dumps are kept").exists();
        }
    }

    @Test
    void noPeriodicDumpsUnlessConfigured(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(config(dir))) {
            long now = System.currentTimeMillis();
            Await.until(Duration.ofSeconds(2), "the clock to tick", () -> System.currentTimeMillis() > now + 1);
            ras.heartbeat();
            assertThat(DumpFiles.list(dir, ras.pid())).isEmpty();
        }
    }

    @Test
    void aDeadProcessIsDumpedFromItsRasFileAlone(@TempDir Path dir) throws IOException {
        long deadPid = 999_999_999L;
        Path dead;
        try (RasFile ras = RasFile.create(config(dir.resolve("live")))) {
            ras.resources().register("MR", 0x42, "iwarp0 mr 0x42", "main", "");
            ras.errorLog().record("it crashed", "");
            dead = dir.resolve(deadPid + ".ras");
            Files.copy(ras.path(), dead);
        }
        try (FileChannel channel = FileChannel.open(dead, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, deadPid), RasFileDescriptor.PID_OFFSET);
        }
        try (RasReader reader = RasReader.open(dead)) {
            assertThatThrownBy(reader::requestDump).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("process " + deadPid).hasMessageContaining("not running");
        }
        Path dump = DumpFiles.writeFromRasFile(dead, dir.resolve("dumps"), "post-mortem");
        assertThat(dump.getFileName().toString()).startsWith(deadPid + "-").endsWith("-post-mortem.dump");
        try (DumpReader reader = DumpReader.open(dump)) {
            assertThat(reader.header().pid()).isEqualTo(deadPid);
            assertThat(reader.header().writerPid()).isEqualTo(PID);
            assertThat(reader.header().fromRasFileOnly()).isTrue();
            assertThat(reader.tree()).isEmpty();
            assertThat(reader.ras().resources()).extracting(ResourceEntry::name).containsExactly("iwarp0 mr 0x42");
            assertThat(reader.ras().errors()).extracting(ErrorEntry::cause).containsExactly("it crashed");
        }
    }

    @Test
    void damagedDumpsAreRefusedWithWhereAndWhat(@TempDir Path dir) throws IOException {
        Path dump;
        try (RasFile ras = RasFile.create(config(dir))) {
            dump = ras.dump("test");
        }
        byte[] good = Files.readAllBytes(dump);

        Path truncated = dir.resolve("truncated.dump");
        Files.write(truncated, java.util.Arrays.copyOf(good, good.length - 100));
        assertThatThrownBy(() -> DumpReader.open(truncated)).isInstanceOfSatisfying(CorruptStructureException.class, e -> {
            assertThat(e.structure()).isEqualTo("dump " + truncated);
            assertThat(e.offset()).isEqualTo(DumpFileDescriptor.FILE_LENGTH_OFFSET);
            assertThat(e.getMessage()).contains("the dump is truncated");
        });

        Path tiny = dir.resolve("tiny.dump");
        Files.write(tiny, new byte[10]);
        assertThatThrownBy(() -> DumpReader.open(tiny)).isInstanceOf(CorruptStructureException.class)
                .hasMessageContaining("a dump of at least 144 bytes").hasMessageContaining("10 bytes");

        Path notADump = dir.resolve("ras-file.dump");
        Files.copy(dir.resolve(PID + ".ras"), notADump);
        assertThatThrownBy(() -> DumpReader.open(notADump)).isInstanceOf(CorruptStructureException.class)
                .hasMessageContaining("TANDEMDUMP  v001").hasMessageContaining("TANDEMRAS");

        int treeOffset = ByteBuffer.wrap(good).order(ByteOrder.nativeOrder()).getInt(DumpFileDescriptor.TREE_OFFSET_OFFSET);
        Path badTree = corrupt(dir, good, "bad-tree.dump", treeOffset, "XX");
        assertThatThrownBy(() -> DumpReader.open(badTree)).isInstanceOfSatisfying(CorruptStructureException.class, e -> {
            assertThat(e.structure()).isEqualTo("state tree of dump " + badTree);
            assertThat(e.offset()).isEqualTo(treeOffset);
        });

        int copyOffset = ByteBuffer.wrap(good).order(ByteOrder.nativeOrder()).getInt(DumpFileDescriptor.COPY_OFFSET_OFFSET);
        Path badCopy = corrupt(dir, good, "bad-copy.dump", copyOffset + 3, "XX");
        assertThatThrownBy(() -> DumpReader.open(badCopy)).isInstanceOfSatisfying(CorruptStructureException.class,
                e -> assertThat(e.structure()).isEqualTo("RAS file copy in " + badCopy));

    }

    @Test
    void corruptStateTreeOpIsNamed(@TempDir Path dir) throws IOException {
        SnapshotSource one = out -> out.field("answer", 42);
        Path dump;
        try (RasFile ras = RasFile.create(config(dir), List.of(one))) {
            dump = ras.dump("test");
        }
        byte[] good = Files.readAllBytes(dump);
        int treeOffset = ByteBuffer.wrap(good).order(ByteOrder.nativeOrder()).getInt(DumpFileDescriptor.TREE_OFFSET_OFFSET);
        int body = treeOffset + StructureMarker.LENGTH;
        // body: string count 1, "answer" (length 6 + 6 bytes), then op LONG at body + 8
        assertThat(good[body + 8]).isEqualTo((byte) DumpFileDescriptor.OP_LONG);
        Path badOp = corrupt(dir, good, "bad-op.dump", body + 8, "\u0009");
        assertThatThrownBy(() -> DumpReader.open(badOp)).isInstanceOfSatisfying(CorruptStructureException.class, e -> {
            assertThat(e.structure()).isEqualTo("state tree of dump " + badOp);
            assertThat(e.offset()).isEqualTo(body + 8);
            assertThat(e.expected()).isEqualTo("a state tree op 1..7");
            assertThat(e.found()).isEqualTo("9");
        });
        Path badIndex = corrupt(dir, good, "bad-index.dump", body + 9, "\u0005");
        assertThatThrownBy(() -> DumpReader.open(badIndex)).isInstanceOf(CorruptStructureException.class)
                .hasMessageContaining("a string index below 1").hasMessageContaining("found 5");
    }

    private static Path corrupt(Path dir, byte[] good, String name, int offset, String bytes) throws IOException {
        byte[] bad = good.clone();
        byte[] patch = bytes.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        System.arraycopy(patch, 0, bad, offset, patch.length);
        return Files.write(dir.resolve(name), bad);
    }
}

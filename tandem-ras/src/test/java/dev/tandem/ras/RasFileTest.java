package dev.tandem.ras;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static dev.tandem.ras.RasFileDescriptor.SECTION_ALIGNMENT;
import static dev.tandem.ras.RasFileDescriptor.SECTION_TABLE_ENTRY_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.SECTION_TABLE_OFFSET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RasFileTest {

    static RasConfig small(Path dir) {
        return RasConfig.defaults().withDir(dir).withCounterCapacity(16).withErrorLogBytes(4096)
                .withTraceRingBytes(4096).withTraceComponentCapacity(8).withResourceCapacity(16).withDutyIntervalMs(0);
    }

    static boolean threadRunning(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name) && t.isAlive());
    }

    @Test
    void createsPidFileWithHeaderAndMarkersReadableInAHexDump(@TempDir Path dir) throws IOException {
        long before = System.currentTimeMillis();
        try (RasFile ras = RasFile.create(small(dir))) {
            long pid = ProcessHandle.current().pid();
            assertThat(ras.path()).isEqualTo(dir.toAbsolutePath().resolve(pid + ".ras"));
            assertThat(ras.pid()).isEqualTo(pid);

            byte[] bytes = Files.readAllBytes(ras.path());
            ByteBuffer raw = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
            assertThat(ascii(bytes, 0)).isEqualTo("TANDEMRAS   v003");
            assertThat(ascii(bytes, bytes.length - 16)).isEqualTo("/TANDEMRAS  v003");
            assertThat(raw.getInt(RasFileDescriptor.LAYOUT_VERSION_OFFSET)).isEqualTo(RasFileDescriptor.LAYOUT_VERSION);
            assertThat(raw.getLong(RasFileDescriptor.PID_OFFSET)).isEqualTo(pid);
            assertThat(raw.getLong(RasFileDescriptor.FILE_LENGTH_OFFSET)).isEqualTo(bytes.length);

            String[] starts = {"CTRMETA     v003", "CTRVALUES   v003", "ERRORLOG    v003", "TRACELVL    v003", "TRACERING   v003",
                    "RESOURCES   v003"};
            String[] ends = {"/CTRMETA    v003", "/CTRVALUES  v003", "/ERRORLOG   v003", "/TRACELVL   v003", "/TRACERING  v003",
                    "/RESOURCES  v003"};
            long previousEnd = RasFileDescriptor.FILE_HEADER_LENGTH;
            for (int i = 0; i < starts.length; i++) {
                int offset = (int) raw.getLong(SECTION_TABLE_OFFSET + i * SECTION_TABLE_ENTRY_LENGTH);
                int length = (int) raw.getLong(SECTION_TABLE_OFFSET + i * SECTION_TABLE_ENTRY_LENGTH + 8);
                assertThat(offset).as("section %d offset", i).isEqualTo(previousEnd);
                assertThat(offset % SECTION_ALIGNMENT).isZero();
                assertThat(ascii(bytes, offset)).isEqualTo(starts[i]);
                long body = raw.getLong(offset + RasFileDescriptor.SECTION_BODY_LENGTH_OFFSET);
                assertThat(ascii(bytes, (int) (offset + RasFileDescriptor.SECTION_HEADER_LENGTH + body))).isEqualTo(ends[i]);
                previousEnd = offset + length;
            }
            assertThat(previousEnd + 16).isEqualTo(bytes.length);

            try (RasReader reader = RasReader.open(ras.path())) {
                RasHeader header = reader.header();
                assertThat(header.pid()).isEqualTo(pid);
                assertThat(header.layoutVersion()).isEqualTo(3);
                assertThat(header.startTimeMs()).isBetween(before, System.currentTimeMillis());
                assertThat(header.ownerState()).isEqualTo(OwnerState.OPEN);
                assertThat(reader.processAlive()).isTrue();
                reader.verify();
            }
        }
    }

    @Test
    void heartbeatAdvancesAndCloseKeepsFileMarkedClosed(@TempDir Path dir) {
        RasFile ras = RasFile.create(small(dir));
        Path path = ras.path();
        try (RasReader reader = RasReader.open(path)) {
            long first = reader.header().heartbeatMs();
            Await.until(java.time.Duration.ofSeconds(2), "the clock to tick", () -> System.currentTimeMillis() > first);
            ras.heartbeat();
            assertThat(reader.header().heartbeatMs()).isGreaterThan(first);
            ras.close();
            ras.close();
            assertThat(reader.header().ownerState()).isEqualTo(OwnerState.CLOSED);
        }
        assertThat(path).exists();
        assertThat(RasReader.list(dir)).singleElement().isInstanceOfSatisfying(RasListing.Found.class, found -> {
            assertThat(found.header().ownerState()).isEqualTo(OwnerState.CLOSED);
            assertThat(found.alive()).isTrue();
        });
    }

    @Test
    void dutyThreadBeatsTheHeartbeatAndStopsOnClose(@TempDir Path dir) {
        String name = "tandem-ras-duty-" + ProcessHandle.current().pid();
        RasFile ras = RasFile.create(small(dir).withDutyIntervalMs(5));
        try (RasReader reader = RasReader.open(ras.path())) {
            assertThat(threadRunning(name)).isTrue();
            long first = reader.header().heartbeatMs();
            Await.until(java.time.Duration.ofSeconds(2), "the duty thread's heartbeat", () -> reader.header().heartbeatMs() > first);
        } finally {
            ras.close();
        }
        assertThat(threadRunning(name)).as("duty thread stopped by close").isFalse();
        assertThat(ras.dutyFailure()).isEmpty();
    }

    @Test
    void dutyThreadPausesOnACorruptHeaderAndResumesOnceItIsRepaired(@TempDir Path dir) throws IOException {
        try (RasFile ras = RasFile.create(small(dir).withErrorLogBytes(64 << 10).withDutyIntervalMs(1));
             RasReader reader = RasReader.open(ras.path());
             java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(ras.path(),
                     java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
            ByteBuffer saved = ByteBuffer.allocate(8);
            channel.read(saved, 0);
            channel.write(ByteBuffer.wrap("stomped!".getBytes(StandardCharsets.US_ASCII)), 0);
            Await.until(java.time.Duration.ofSeconds(2), "the duty thread to notice", () -> ras.dutyFailure().isPresent());
            assertThat(ras.dutyFailure().orElseThrow()).isInstanceOf(CorruptStructureException.class)
                    .hasMessageContaining("RAS file " + ras.path());
            assertThat(ras.errorLog().snapshot()).extracting(ErrorEntry::cause).containsExactly("RAS duty paused: corrupt structure");
            assertThat(threadRunning("tandem-ras-duty-" + ras.pid())).as("the duty thread waits for a repair").isTrue();

            channel.write(saved.flip(), 0);
            Await.until(java.time.Duration.ofSeconds(2), "the duty to resume", () -> ras.dutyFailure().isEmpty());
            long beat = reader.header().heartbeatMs();
            Await.until(java.time.Duration.ofSeconds(2), "the heartbeat to move again", () -> reader.header().heartbeatMs() > beat);
        }
    }

    @Test
    void replacesAStaleFileLeftByAnEarlierProcessWithTheSamePid(@TempDir Path dir) throws IOException {
        Path stale = dir.resolve(ProcessHandle.current().pid() + ".ras");
        Files.write(stale, "not a RAS file".getBytes(StandardCharsets.US_ASCII));
        try (RasFile ras = RasFile.create(small(dir)); RasReader reader = RasReader.open(stale)) {
            assertThat(reader.header().pid()).isEqualTo(ras.pid());
        }
    }

    @Test
    void deleteOnCloseRemovesTheFile(@TempDir Path dir) {
        RasFile ras = RasFile.create(small(dir).withDeleteOnClose(true));
        Path path = ras.path();
        assertThat(path).exists();
        ras.close();
        assertThat(path).doesNotExist();
    }

    @Test
    void oneFilePerProcessAndDirectory(@TempDir Path dir) {
        try (RasFile first = RasFile.create(small(dir))) {
            assertThat(first.path()).exists();
            assertThatThrownBy(() -> RasFile.create(small(dir))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already open in this process");
        }
        try (RasFile again = RasFile.create(small(dir))) {
            assertThat(again.path()).exists();
        }
    }

    @Test
    void useAfterCloseFailsInsteadOfWritingUnmappedMemory(@TempDir Path dir) {
        RasFile ras = RasFile.create(small(dir));
        Counter counter = ras.counters().allocate(1, "c", 0);
        ras.close();
        assertThatThrownBy(counter::increment).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void listsNothingForAMissingDirectoryAndFlagsUnreadableFiles(@TempDir Path dir) throws IOException {
        assertThat(RasReader.list(dir.resolve("missing"))).isEmpty();
        Files.write(dir.resolve("12345.ras"), new byte[100]);
        Files.write(dir.resolve("notes.txt"), new byte[10]);
        assertThat(RasReader.list(dir)).singleElement().isInstanceOfSatisfying(RasListing.Unreadable.class,
                u -> assertThat(u.reason()).contains("12345.ras").contains("at least"));
    }

    @Test
    void configIsValidated() {
        RasConfig ok = RasConfig.defaults();
        assertThat(ok.dir()).isEqualTo(Path.of(System.getProperty("java.io.tmpdir"), "tandem"));
        assertThatThrownBy(() -> ok.withDir(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dir");
        assertThatThrownBy(() -> ok.withCounterCapacity(0)).hasMessageContaining("counterCapacity 0");
        assertThatThrownBy(() -> ok.withErrorLogBytes(100)).hasMessageContaining("errorLogBytes 100");
        assertThatThrownBy(() -> ok.withTraceRingBytes(5000)).hasMessageContaining("power of two");
        assertThatThrownBy(() -> ok.withTraceComponentCapacity(0)).hasMessageContaining("traceComponentCapacity");
        assertThatThrownBy(() -> ok.withDefaultTraceLevel(10)).hasMessageContaining("0..9");
        assertThatThrownBy(() -> ok.withDutyIntervalMs(1001)).hasMessageContaining("dutyIntervalMs 1001");
        assertThatThrownBy(() -> ok.withDutyIntervalMs(-1)).hasMessageContaining("dutyIntervalMs -1");
        assertThat(ok.resourceCapacity()).isEqualTo(4096);
        assertThat(ok.dumpIntervalMs()).as("periodic dumps off by default").isZero();
        assertThat(ok.dumpsKept()).isEqualTo(3);
        assertThatThrownBy(() -> ok.withResourceCapacity(0)).hasMessageContaining("resourceCapacity 0 must be 1..1048576");
        assertThatThrownBy(() -> ok.withDumpIntervalMs(-5)).hasMessageContaining("dumpIntervalMs -5");
        assertThatThrownBy(() -> ok.withDumpIntervalMs(RasConfig.MAX_DUMP_INTERVAL_MS + 1)).hasMessageContaining("a week");
        assertThatThrownBy(() -> ok.withDumpsKept(0)).hasMessageContaining("dumpsKept 0 must be 1..1000");
    }

    private static String ascii(byte[] bytes, int offset) {
        return new String(bytes, offset, 16, StandardCharsets.US_ASCII);
    }
}

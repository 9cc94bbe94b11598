package dev.tandem.ras;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Overwrites markers in the file and expects a fatal error naming the structure, never silent use. */
class CorruptionTest {

    private static Path closedFile(Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir))) {
            ras.counters().allocate(1, "c", 0).increment();
            ras.errorLog().record("cause", "detail");
            return ras.path();
        }
    }

    private static void overwrite(Path file, long offset, String bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(bytes.getBytes(StandardCharsets.US_ASCII)), offset);
        }
    }

    private static long sectionOffset(Path file, RasSection section) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer entry = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
            channel.read(entry, RasFileDescriptor.SECTION_TABLE_OFFSET + (long) section.ordinal() * RasFileDescriptor.SECTION_TABLE_ENTRY_LENGTH);
            return entry.getLong(0);
        }
    }

    @Test
    void corruptStartMarkerFailsTheAttach(@TempDir Path dir) throws IOException {
        Path file = closedFile(dir);
        overwrite(file, 2, "XX");
        assertThatThrownBy(() -> RasReader.open(file)).isInstanceOfSatisfying(CorruptStructureException.class, e -> {
            assertThat(e.structure()).isEqualTo("RAS file " + file);
            assertThat(e.offset()).isZero();
            assertThat(e.expected()).contains("TANDEMRAS   v003");
            assertThat(e.found()).isEqualTo("'TAXXEMRAS   v003'");
        });
        assertThat(RasReader.list(dir)).singleElement().isInstanceOf(RasListing.Unreadable.class);
    }

    @Test
    void corruptEndMarkerFailsTheAttach(@TempDir Path dir) throws IOException {
        Path file = closedFile(dir);
        long length = file.toFile().length();
        overwrite(file, length - 16, "overrun.........");
        assertThatThrownBy(() -> RasReader.open(file)).isInstanceOfSatisfying(CorruptStructureException.class, e -> {
            assertThat(e.structure()).isEqualTo("RAS file " + file);
            assertThat(e.offset()).isEqualTo(length - 16);
            assertThat(e.expected()).contains("/TANDEMRAS  v003");
            assertThat(e.found()).contains("overrun");
        });
    }

    @Test
    void newerLayoutVersionIsNamed(@TempDir Path dir) throws IOException {
        Path file = closedFile(dir);
        overwrite(file, 0, "TANDEMRAS   v004");
        assertThatThrownBy(() -> RasReader.open(file)).isInstanceOf(CorruptStructureException.class)
                .hasMessageContaining("another layout version");
    }

    @Test
    void corruptSectionMarkersNameTheSection(@TempDir Path dir) throws IOException {
        Path file = closedFile(dir);
        long errorLog = sectionOffset(file, RasSection.ERROR_LOG);
        overwrite(file, errorLog, "garbage!");
        assertThatThrownBy(() -> RasReader.open(file)).isInstanceOfSatisfying(CorruptStructureException.class, e -> {
            assertThat(e.structure()).isEqualTo("error log of " + file);
            assertThat(e.offset()).isEqualTo(errorLog);
        });
        overwrite(file, errorLog, "ERRORLOG");
        RasReader.open(file).close();

        long metadata = sectionOffset(file, RasSection.COUNTER_METADATA);
        long endMarker = metadata + RasFileDescriptor.SECTION_HEADER_LENGTH + 16L * RasFileDescriptor.COUNTER_METADATA_LENGTH;
        overwrite(file, endMarker, "label overrun...");
        assertThatThrownBy(() -> RasReader.open(file)).isInstanceOf(CorruptStructureException.class)
                .hasMessageContaining("'counter metadata of " + file + "'").hasMessageContaining("/CTRMETA");
    }

    @Test
    void ownerDetectsCorruptionWhenItTouchesTheHeaderOrASection(@TempDir Path dir) throws IOException {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir))) {
            ras.heartbeat();
            ras.verify();
            overwrite(ras.path(), 0, "stomped!");
            assertThatThrownBy(ras::heartbeat).isInstanceOf(CorruptStructureException.class)
                    .hasMessageContaining("RAS file " + ras.path());
            assertThatThrownBy(ras::verify).isInstanceOf(CorruptStructureException.class);
            overwrite(ras.path(), 0, "TANDEMRAS");

            long errorLog = sectionOffset(ras.path(), RasSection.ERROR_LOG);
            overwrite(ras.path(), errorLog, "XXXX");
            assertThatThrownBy(() -> ras.errorLog().record("new cause", "x")).isInstanceOfSatisfying(CorruptStructureException.class,
                    e -> assertThat(e.structure()).isEqualTo("error log of " + ras.path()));

            long values = sectionOffset(ras.path(), RasSection.COUNTER_VALUES);
            overwrite(ras.path(), values + 4, "XX");
            assertThatThrownBy(() -> ras.counters().allocate(1, "c", 0)).isInstanceOfSatisfying(CorruptStructureException.class,
                    e -> assertThat(e.structure()).isEqualTo("counter values of " + ras.path()));

            long levels = sectionOffset(ras.path(), RasSection.TRACE_LEVELS);
            overwrite(ras.path(), levels, "X");
            assertThatThrownBy(() -> ras.trace().component("iwarp.rx")).isInstanceOfSatisfying(CorruptStructureException.class,
                    e -> assertThat(e.structure()).isEqualTo("trace level table of " + ras.path()));
        }
    }

    @Test
    void corruptResourceTableMarkersAreDetectedByReaderAndOwner(@TempDir Path dir) throws IOException {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir))) {
            ras.resources().register("QP", 3, "iwarp0 qp 3", "main", "App.main(App.java:1)");
            long table = sectionOffset(ras.path(), RasSection.RESOURCES);
            long endMarker = table + RasFileDescriptor.SECTION_HEADER_LENGTH + 16L * RasFileDescriptor.RESOURCE_ENTRY_LENGTH;
            overwrite(ras.path(), endMarker, "detail overrun..");
            assertThatThrownBy(() -> RasReader.open(ras.path())).isInstanceOfSatisfying(CorruptStructureException.class, e -> {
                assertThat(e.structure()).isEqualTo("resource table of " + ras.path());
                assertThat(e.offset()).isEqualTo(endMarker);
                assertThat(e.expected()).contains("/RESOURCES  v003");
                assertThat(e.found()).contains("detail overrun");
            });
            assertThatThrownBy(() -> ras.resources().register("MR", 1, "mr", "main", ""))
                    .isInstanceOfSatisfying(CorruptStructureException.class,
                            e -> assertThat(e.structure()).isEqualTo("resource table of " + ras.path()));
            assertThatThrownBy(ras::verify).isInstanceOf(CorruptStructureException.class).hasMessageContaining("resource table");

            overwrite(ras.path(), endMarker, "/RESOURCES  v003");
            try (RasReader reader = RasReader.open(ras.path())) {
                overwrite(ras.path(), table, "RESOURCEZ");
                assertThatThrownBy(reader::resources).isInstanceOfSatisfying(CorruptStructureException.class, e -> {
                    assertThat(e.structure()).isEqualTo("resource table of " + ras.path());
                    assertThat(e.offset()).isEqualTo(table);
                });
            }
        }
    }
}

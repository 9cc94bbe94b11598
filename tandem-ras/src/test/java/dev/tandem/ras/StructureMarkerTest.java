package dev.tandem.ras;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StructureMarkerTest {

    @Test
    void isSixteenReadableBytesWithVersion() {
        StructureMarker marker = StructureMarker.of("TANDEMRAS", 1);
        assertThat(marker.text()).isEqualTo("TANDEMRAS   v001").hasSize(StructureMarker.LENGTH);
        assertThat(StructureMarker.of("/TRACERING", 42).text()).isEqualTo("/TRACERING  v042");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(64, 8);
            marker.write(segment, 8);
            assertThat(new String(segment.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII))
                    .isEqualTo("TANDEMRAS   v001");
            assertThat(marker.matches(segment, 8)).isTrue();
            marker.check(segment, 8, "test structure");
        }
    }

    @Test
    void mismatchNamesStructureExpectedAndFound() {
        StructureMarker marker = StructureMarker.of("ERRORLOG", 1);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(32, 8);
            assertThatThrownBy(() -> marker.check(segment, 0, "error log of x.ras"))
                    .isInstanceOfSatisfying(CorruptStructureException.class, e -> {
                        assertThat(e.structure()).isEqualTo("error log of x.ras");
                        assertThat(e.offset()).isZero();
                        assertThat(e.expected()).contains("ERRORLOG    v001");
                        assertThat(e.found()).contains("zero bytes");
                    });
            marker.write(segment, 0);
            segment.set(ValueLayout.JAVA_BYTE, 3, (byte) 'X');
            assertThatThrownBy(() -> marker.check(segment, 0, "error log of x.ras"))
                    .isInstanceOf(CorruptStructureException.class)
                    .hasMessageContaining("'error log of x.ras'").hasMessageContaining("'ERRXRLOG    v001'");
            StructureMarker.of("ERRORLOG", 2).write(segment, 0);
            assertThatThrownBy(() -> marker.check(segment, 0, "error log of x.ras"))
                    .hasMessageContaining("another layout version");
            assertThatThrownBy(() -> marker.check(segment, 20, "error log of x.ras"))
                    .hasMessageContaining("ends before its marker");
        }
    }

    @Test
    void rejectsBadEyeCatchersAndVersions() {
        assertThatThrownBy(() -> StructureMarker.of("TWELVECHARSX", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StructureMarker.of("HAS SPACE", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StructureMarker.of("", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StructureMarker.of("OK", 1000)).isInstanceOf(IllegalArgumentException.class);
    }
}

package dev.tandem.failover;

import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.Sge;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The 32-byte fail-over header: every field read back as written, big-endian, at its offset, and nothing outside it touched. */
class FailoverHeaderTest {

    @Test
    void everyFieldReadsBackAsWritten() {
        Random rnd = new Random(7);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(3 * FailoverHeader.LENGTH);
            for (int i = 0; i < 500; i++) {
                long at = rnd.nextInt(2 * FailoverHeader.LENGTH + 1);
                int type = rnd.nextInt(256);
                int flags = rnd.nextInt(0x10000);
                int messageId = rnd.nextInt();
                int lastAcked = rnd.nextInt();
                int session = rnd.nextInt();
                int length = rnd.nextInt();
                int invalidate = rnd.nextInt();
                long incarnation = rnd.nextLong();
                FailoverHeader.write(s, at, type, flags, messageId, lastAcked, session, length, invalidate, incarnation);
                String what = "header " + i + " at " + at;
                assertThat(FailoverHeader.present(s, at)).as(what).isTrue();
                assertThat(FailoverHeader.type(s, at)).as("%s: type", what).isEqualTo(type);
                assertThat(FailoverHeader.flags(s, at)).as("%s: flags, PRESENT set by the writer", what)
                        .isEqualTo(flags | FailoverHeader.FLAG_PRESENT);
                assertThat(FailoverHeader.messageId(s, at)).as("%s: message id", what).isEqualTo(messageId);
                assertThat(FailoverHeader.lastAcked(s, at)).as("%s: last acked", what).isEqualTo(lastAcked);
                assertThat(FailoverHeader.session(s, at)).as("%s: session", what).isEqualTo(session);
                assertThat(FailoverHeader.length(s, at)).as("%s: length", what).isEqualTo(length);
                assertThat(FailoverHeader.invalidateStag(s, at)).as("%s: invalidate STag", what).isEqualTo(invalidate);
                assertThat(FailoverHeader.incarnation(s, at)).as("%s: incarnation", what).isEqualTo(incarnation);
            }
        }
    }

    @Test
    void theLayoutIsBigEndianAtTheDocumentedOffsets() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(FailoverHeader.LENGTH + 16);
            s.fill((byte) 0xEE);
            FailoverHeader.write(s, 8, FailoverHeader.TYPE_SEND_INVALIDATE, FailoverHeader.FLAG_SOLICITED, 0x01020304, 0x05060708,
                    0x090A0B0C, 0x0D0E0F10, 0x11121314, 0x15161718191A1B1CL);
            byte[] expected = {
                1, 2, 0, 3, // version, type, flags (SOLICITED | PRESENT)
                1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0x11, 0x12, 0x13, 0x14,
                0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C};
            assertThat(expected).hasSize(FailoverHeader.LENGTH);
            for (int i = 0; i < s.byteSize(); i++) {
                byte b = s.get(ValueLayout.JAVA_BYTE, i);
                if (i < 8 || i >= 8 + FailoverHeader.LENGTH) {
                    assertThat(b).as("byte %d is outside the header", i).isEqualTo((byte) 0xEE);
                } else {
                    assertThat(b).as("header byte %d", i - 8).isEqualTo(expected[i - 8]);
                }
            }
            assertThat(FailoverHeader.type(s, 8)).isEqualTo(2);
        }
    }

    @Test
    void aClearedHeaderIsNotPresentAndOnlyItsOwnBytesAreCleared() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(3 * FailoverHeader.LENGTH);
            s.fill((byte) 0x33);
            FailoverHeader.write(s, FailoverHeader.LENGTH, FailoverHeader.TYPE_SEND, 0, 1, 0, 1, 0, 0, 1);
            FailoverHeader.clear(s, FailoverHeader.LENGTH);
            for (int i = 0; i < s.byteSize(); i++) {
                byte expected = i >= FailoverHeader.LENGTH && i < 2 * FailoverHeader.LENGTH ? 0 : (byte) 0x33;
                assertThat(s.get(ValueLayout.JAVA_BYTE, i)).as("byte %d", i).isEqualTo(expected);
            }
            assertThat(FailoverHeader.present(s, FailoverHeader.LENGTH)).as("a zeroed buffer holds no message").isFalse();
        }
    }

    @Test
    void presentNeedsTheVersionAndThePresentFlag() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(FailoverHeader.LENGTH);
            FailoverHeader.write(s, 0, FailoverHeader.TYPE_SEND, 0, 1, 0, 1, 0, 0, 1);
            assertThat(FailoverHeader.present(s, 0)).isTrue();
            s.set(ValueLayout.JAVA_BYTE, FailoverHeader.VERSION_OFFSET, (byte) 2);
            assertThat(FailoverHeader.present(s, 0)).as("another version").isFalse();
            s.set(ValueLayout.JAVA_BYTE, FailoverHeader.VERSION_OFFSET, FailoverHeader.VERSION);
            s.set(ValueLayout.JAVA_BYTE, FailoverHeader.FLAGS_OFFSET + 1, (byte) FailoverHeader.FLAG_SOLICITED);
            assertThat(FailoverHeader.present(s, 0)).as("flags without PRESENT").isFalse();
            s.set(ValueLayout.JAVA_BYTE, FailoverHeader.FLAGS_OFFSET + 1, (byte) FailoverHeader.FLAG_PRESENT);
            assertThat(FailoverHeader.present(s, 0)).isTrue();
        }
    }

    @Test
    void theHeaderGoesInFrontOfThePayloadAsAnImmutableList() {
        MemoryRegion r = Fakes.region();
        Sge header = new Sge(r, 0, FailoverHeader.LENGTH);
        for (int n = 0; n <= 4; n++) {
            List<Sge> payload = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                payload.add(new Sge(r, 100L * (i + 1), i + 1));
            }
            List<Sge> all = FailoverHeader.inFront(header, payload);
            List<Sge> expected = new ArrayList<>(List.of(header));
            expected.addAll(payload);
            assertThat(all).as("%d payload elements", n).isEqualTo(expected);
            assertThatThrownBy(() -> all.add(header)).as("immutable: a work request keeps it as it is")
                    .isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Test
    void theLastFieldEndsTheHeader() {
        assertThat(FailoverHeader.INCARNATION_OFFSET + Long.BYTES).isEqualTo(FailoverHeader.LENGTH);
        assertThat(FailoverHeader.LENGTH).isEqualTo(32);
    }
}

package dev.tandem.failover.check;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The layout of one Send of a checked stream: a 32-byte header, then payload bytes made from the
 * sequence number (so that a message of another number never passes as this one). The CRC32C covers
 * every byte after itself, the header included. Big-endian, like the wire around it.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                 CRC32C of bytes 4 .. length                   |  0
 * +---------------------------------------------------------------+
 * |                  length (bytes of the Send)                   |  4
 * +---------------------------------------------------------------+
 * |                 kind (1 = data, 2 = credit)                   |  8
 * +---------------------------------------------------------------+
 * |   data: ring slot of the block it announces, or -1; credit: 0 | 12
 * +---------------------------------------------------------------+
 * |                                                               | 16
 * +        sequence number (data: the stream's; credit: its own)  +
 * |                                                               | 20
 * +---------------------------------------------------------------+
 * |                                                               | 24
 * +  data: the announced block's sequence number, 0 for none;     +
 * |  credit: receives the receiver re-posted in all               | 28
 * +---------------------------------------------------------------+
 * |                     payload (length - 32)                     | 32
 * </pre>
 *
 * Data messages go from sender to receiver; credit messages go back and grant more Sends.
 */
final class CheckedMessage {
    /** Bytes of the header. */
    static final int HEADER = 32;
    static final int CRC_OFFSET = 0;
    static final int LENGTH_OFFSET = 4;
    static final int KIND_OFFSET = 8;
    static final int SLOT_OFFSET = 12;
    static final int SEQUENCE_OFFSET = 16;
    static final int VALUE_OFFSET = 24;

    static final int KIND_DATA = 1;
    static final int KIND_CREDIT = 2;
    /** The slot of a data message that announces no block. */
    static final int NO_SLOT = -1;

    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private CheckedMessage() {
    }

    /** Writes data message {@code seq} of {@code length} bytes at the start of {@code m}, announcing {@code blockSeq} in {@code slot}. */
    static void writeData(MemorySegment m, int length, long seq, int slot, long blockSeq) {
        write(m, length, KIND_DATA, slot, seq, blockSeq);
    }

    /** Writes credit message {@code number}, which grants {@code reposted} receives in all, at the start of {@code m}. */
    static void writeCredit(MemorySegment m, long number, long reposted) {
        write(m, HEADER, KIND_CREDIT, 0, number, reposted);
    }

    private static void write(MemorySegment m, int length, int kind, int slot, long seq, long value) {
        m.set(U32, LENGTH_OFFSET, length);
        m.set(U32, KIND_OFFSET, kind);
        m.set(U32, SLOT_OFFSET, slot);
        m.set(U64, SEQUENCE_OFFSET, seq);
        m.set(U64, VALUE_OFFSET, value);
        Payload.fill(m, HEADER, length, seq);
        m.set(U32, CRC_OFFSET, crc(m, length));
    }

    /**
     * Whether {@code m} holds an intact message of {@code byteLength} bytes (as its receive completion
     * said): long enough for a header, the length it carries equal to that, and its CRC right.
     */
    static boolean intact(MemorySegment m, long byteLength) {
        if (byteLength < HEADER || byteLength > m.byteSize() || m.get(U32, LENGTH_OFFSET) != byteLength) {
            return false;
        }
        return m.get(U32, CRC_OFFSET) == crc(m, (int) byteLength);
    }

    static int kind(MemorySegment m) {
        return m.get(U32, KIND_OFFSET);
    }

    static int slot(MemorySegment m) {
        return m.get(U32, SLOT_OFFSET);
    }

    static long sequence(MemorySegment m) {
        return m.get(U64, SEQUENCE_OFFSET);
    }

    /** The announced block's sequence number (data) or the receives re-posted in all (credit). */
    static long value(MemorySegment m) {
        return m.get(U64, VALUE_OFFSET);
    }

    static int crc(MemorySegment m, int length) {
        CRC32C crc = new CRC32C();
        crc.update(m.asSlice(LENGTH_OFFSET, length - LENGTH_OFFSET).asByteBuffer());
        return (int) crc.getValue();
    }
}

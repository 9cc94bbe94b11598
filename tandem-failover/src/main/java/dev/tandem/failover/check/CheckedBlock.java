package dev.tandem.failover.check;

import java.lang.foreign.MemorySegment;

/**
 * The layout of one block a checked stream writes into the receiver's ring with an RDMA Write: a
 * 16-byte header, then payload bytes made from the block's sequence number. Blocks count from 1, so
 * a slot that was never written (zeros) holds no block. Big-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                 CRC32C of bytes 4 .. length                   |  0
 * +---------------------------------------------------------------+
 * |                  length (bytes of the block)                  |  4
 * +---------------------------------------------------------------+
 * |                                                               |  8
 * +                  block sequence number (from 1)               +
 * |                                                               | 12
 * +---------------------------------------------------------------+
 * |                     payload (length - 16)                     | 16
 * </pre>
 */
final class CheckedBlock {
    /** Bytes of the header. */
    static final int HEADER = 16;
    static final int CRC_OFFSET = 0;
    static final int LENGTH_OFFSET = 4;
    static final int SEQUENCE_OFFSET = 8;

    private CheckedBlock() {
    }

    /** Writes block {@code seq} of {@code length} bytes at the start of {@code b}. */
    static void write(MemorySegment b, int length, long seq) {
        b.set(CheckedMessage.U32, LENGTH_OFFSET, length);
        b.set(CheckedMessage.U64, SEQUENCE_OFFSET, seq);
        Payload.fill(b, HEADER, length, -seq);
        b.set(CheckedMessage.U32, CRC_OFFSET, CheckedMessage.crc(b, length));
    }

    /** Whether {@code b} holds an intact block of {@code length} bytes: its length, then its CRC. */
    static boolean intact(MemorySegment b, int length) {
        return b.get(CheckedMessage.U32, LENGTH_OFFSET) == length && b.get(CheckedMessage.U32, CRC_OFFSET) == CheckedMessage.crc(b, length);
    }

    /** Whether {@code b} was never written: its header is all zeros. */
    static boolean empty(MemorySegment b) {
        return b.get(CheckedMessage.U32, CRC_OFFSET) == 0 && b.get(CheckedMessage.U32, LENGTH_OFFSET) == 0 && sequence(b) == 0;
    }

    static long sequence(MemorySegment b) {
        return b.get(CheckedMessage.U64, SEQUENCE_OFFSET);
    }
}

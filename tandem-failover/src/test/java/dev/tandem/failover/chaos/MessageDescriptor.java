package dev.tandem.failover.chaos;

import java.util.zip.CRC32C;

/**
 * The layout of every application message the chaos traffic sends, so a receiver can tell what it got
 * without trusting the transport: which stream, which number, how long, and a CRC32C over the rest.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                     MAGIC 0x43484153 ("CHAS")                 |  0
 * +-------------------------------+---------------+---------------+
 * |          connection           |  from node    |    shape      |  4
 * +-------------------------------+---------------+---------------+
 * |                        message number                         |  8
 * +---------------------------------------------------------------+
 * |                  length of the whole message                  | 12
 * +---------------------------------------------------------------+
 * |            length of the Write it names (0: none)             | 16
 * +---------------------------------------------------------------+
 * |                CRC32C of the Write's bytes                    | 20
 * +---------------------------------------------------------------+
 * |           number of the request it answers (-1: none)         | 24
 * +---------------------------------------------------------------+
 * |                CRC32C of that request                         | 28
 * +---------------------------------------------------------------+
 * |        CRC32C of bytes 0..31 and of the body (36..length)     | 32
 * +---------------------------------------------------------------+
 * |                     body (deterministic bytes) ...            | 36
 * </pre>
 *
 * All fields big-endian. Shape 0 is a plain Send, 1 a Send naming the RDMA Write before it.
 */
final class MessageDescriptor {
    static final int MAGIC = 0x43484153;
    static final int MAGIC_OFFSET = 0;
    static final int CONNECTION_OFFSET = 4;
    static final int FROM_OFFSET = 6;
    static final int SHAPE_OFFSET = 7;
    static final int NUMBER_OFFSET = 8;
    static final int LENGTH_OFFSET = 12;
    static final int WRITE_LENGTH_OFFSET = 16;
    static final int WRITE_CRC_OFFSET = 20;
    static final int ANSWERS_OFFSET = 24;
    static final int ANSWERED_CRC_OFFSET = 28;
    static final int CRC_OFFSET = 32;
    static final int HEADER_LENGTH = 36;

    private MessageDescriptor() {
    }

    static int getInt(byte[] b, int offset) {
        return (b[offset] & 0xFF) << 24 | (b[offset + 1] & 0xFF) << 16 | (b[offset + 2] & 0xFF) << 8 | b[offset + 3] & 0xFF;
    }

    static void putInt(byte[] b, int offset, int v) {
        b[offset] = (byte) (v >>> 24);
        b[offset + 1] = (byte) (v >>> 16);
        b[offset + 2] = (byte) (v >>> 8);
        b[offset + 3] = (byte) v;
    }

    static int connection(byte[] b) {
        return (b[CONNECTION_OFFSET] & 0xFF) << 8 | b[CONNECTION_OFFSET + 1] & 0xFF;
    }

    /** The CRC32C the message carries must equal this, computed over {@code length} bytes of {@code b}. */
    static int crcOf(byte[] b, int length) {
        CRC32C c = new CRC32C();
        c.update(b, 0, CRC_OFFSET);
        c.update(b, HEADER_LENGTH, length - HEADER_LENGTH);
        return (int) c.getValue();
    }

    static int crc(byte[] b, int offset, int length) {
        CRC32C c = new CRC32C();
        c.update(b, offset, length);
        return (int) c.getValue();
    }
}

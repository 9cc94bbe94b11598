package dev.tandem.failover.check;

import java.nio.ByteBuffer;

/**
 * What a sender needs from its receiver: the stream's shape and where the receiver's ring of block
 * slots is (its rkey and tagged offset). Where the two sides run in two processes it travels as
 * {@link #encode() bytes}, e.g. in the private data of the receiver's accept.
 *
 * <pre>
 *  byte 0          4               8               12              16
 *       +---------------+---------------+---------------+---------------+
 *     0 |     MAGIC     |    window     | messageBytes  |   ringSlots   |
 *       +---------------+---------------+---------------+---------------+
 *    16 |  blockBytes   |  writeEvery   |     rkey      | offset (high) |
 *       +---------------+---------------+---------------+---------------+
 *    32 | offset (low)  |   every field a big-endian int, offset a long
 *       +---------------+
 * </pre>
 */
public record RingOffer(StreamShape shape, int rkey, long offset) {
    /** Bytes of {@link #encode()}. */
    public static final int BYTES = 36;
    /** First four bytes of an encoded offer: "TCSO" (Tandem checked stream offer). */
    static final int MAGIC = 0x5443534F;

    public RingOffer {
        if (shape == null) {
            throw new IllegalArgumentException("a ring offer needs the stream's shape");
        }
        if (offset < 0) {
            throw new IllegalArgumentException("the ring's tagged offset " + offset + " is negative");
        }
    }

    /** The offer as {@link #BYTES} bytes. */
    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(BYTES);
        b.putInt(MAGIC).putInt(shape.window()).putInt(shape.messageBytes()).putInt(shape.ringSlots()).putInt(shape.blockBytes())
                .putInt(shape.writeEvery()).putInt(rkey).putLong(offset);
        return b.array();
    }

    /**
     * The offer in {@code bytes}, as {@link #encode()} made it.
     *
     * @throws IllegalArgumentException when they are not an encoded offer (wrong length or magic, or a shape out of range)
     */
    public static RingOffer decode(byte[] bytes) {
        if (bytes == null || bytes.length != BYTES) {
            throw new IllegalArgumentException("a ring offer has " + BYTES + " bytes, got " + (bytes == null ? "none" : bytes.length)
                    + ": was the connection accepted by a checked stream's receiver?");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int magic = b.getInt();
        if (magic != MAGIC) {
            throw new IllegalArgumentException(String.format("a ring offer starts with 0x%08x, got 0x%08x", MAGIC, magic));
        }
        StreamShape shape = new StreamShape(b.getInt(), b.getInt(), b.getInt(), b.getInt(), b.getInt());
        return new RingOffer(shape, b.getInt(), b.getLong());
    }
}

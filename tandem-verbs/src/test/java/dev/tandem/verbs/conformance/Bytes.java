package dev.tandem.verbs.conformance;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.fail;

/** Byte patterns to fill buffers with and to verify them byte for byte. */
public final class Bytes {
    private Bytes() {
    }

    /** The byte at position {@code i} of pattern {@code seed}: never the same for neighbouring seeds or positions. */
    public static byte at(int seed, long i) {
        long x = (i + 1) * 0x9E3779B97F4A7C15L + seed * 0xC2B2AE3D27D4EB4FL;
        x ^= x >>> 29;
        return (byte) (x ^ (x >>> 32) ^ seed);
    }

    /** Fills {@code length} bytes at {@code offset} of {@code segment} with pattern {@code seed}. */
    public static void fill(MemorySegment segment, long offset, long length, int seed) {
        for (long i = 0; i < length; i++) {
            segment.set(ValueLayout.JAVA_BYTE, offset + i, at(seed, i));
        }
    }

    /** Sets {@code length} bytes at {@code offset} to {@code value}. */
    public static void clear(MemorySegment segment, long offset, long length, byte value) {
        segment.asSlice(offset, length).fill(value);
    }

    /**
     * Asserts that {@code length} bytes at {@code offset} of {@code segment} hold pattern {@code seed}
     * from its position {@code patternOffset} on.
     */
    public static void assertPattern(MemorySegment segment, long offset, long length, int seed, long patternOffset, String what) {
        for (long i = 0; i < length; i++) {
            byte expected = at(seed, patternOffset + i);
            byte actual = segment.get(ValueLayout.JAVA_BYTE, offset + i);
            if (expected != actual) {
                fail(what + ": byte " + i + " of " + length + " (segment offset " + (offset + i) + ") is 0x"
                        + Integer.toHexString(actual & 0xFF) + ", expected 0x" + Integer.toHexString(expected & 0xFF));
            }
        }
    }

    public static void assertPattern(MemorySegment segment, long offset, long length, int seed, String what) {
        assertPattern(segment, offset, length, seed, 0, what);
    }

    /** Asserts that every byte of the range is {@code value} (memory that must not have been touched). */
    public static void assertFilled(MemorySegment segment, long offset, long length, byte value, String what) {
        for (long i = 0; i < length; i++) {
            byte actual = segment.get(ValueLayout.JAVA_BYTE, offset + i);
            if (actual != value) {
                fail(what + ": byte at segment offset " + (offset + i) + " is 0x" + Integer.toHexString(actual & 0xFF)
                        + ", expected it untouched (0x" + Integer.toHexString(value & 0xFF) + ")");
            }
        }
    }

    /** Private data that carries a region's rkey and length: 4-byte rkey, 8-byte length, big-endian. */
    public static byte[] encodeKey(int rkey, long length) {
        return ByteBuffer.allocate(12).putInt(rkey).putLong(length).array();
    }

    public static int decodeRkey(byte[] privateData) {
        return ByteBuffer.wrap(privateData).getInt(0);
    }

    public static long decodeLength(byte[] privateData) {
        return ByteBuffer.wrap(privateData).getLong(4);
    }

    public static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** {@code n} bytes of pattern {@code seed}. */
    public static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = at(seed, i);
        }
        return b;
    }
}

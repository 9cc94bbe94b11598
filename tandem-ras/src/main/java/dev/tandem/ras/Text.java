package dev.tandem.ras;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Writing and reading the strings of the file: UTF-8 cut at a character boundary, and allocation-free ASCII. */
final class Text {
    private Text() {
    }

    /** {@code s} as UTF-8, cut to at most {@code maxBytes} without splitting a character. */
    static byte[] utf8(String s, int maxBytes) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= maxBytes) {
            return bytes;
        }
        int n = maxBytes;
        while (n > 0 && (bytes[n] & 0xC0) == 0x80) {
            n--;
        }
        return Arrays.copyOf(bytes, n);
    }

    static void put(MemorySegment segment, long offset, byte[] bytes) {
        MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, offset, bytes.length);
    }

    static String utf8(MemorySegment segment, long offset, int length) {
        return new String(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    /**
     * Writes up to {@code max} characters of {@code s} as ASCII ('?' for anything else) without
     * allocating; returns the bytes written.
     */
    static int putAscii(MemorySegment segment, long offset, String s, int max) {
        int n = Math.min(s.length(), max);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            segment.set(ValueLayout.JAVA_BYTE, offset + i, c >= 0x20 && c < 0x7F ? (byte) c : (byte) '?');
        }
        return n;
    }

    static String ascii(MemorySegment segment, long offset, int length) {
        return new String(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII);
    }
}

package dev.tandem.failover.check;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Payload bytes made from a seed: a message or block of another number has other bytes, not just another header. */
final class Payload {
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private Payload() {
    }

    /** Fills {@code m[from, to)} from {@code seed}. */
    static void fill(MemorySegment m, long from, long to, long seed) {
        long x = seed * GOLDEN;
        long at = from;
        for (; at + 8 <= to; at += 8) {
            x += GOLDEN;
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, at, x ^ (x >>> 29));
        }
        for (; at < to; at++) {
            m.set(ValueLayout.JAVA_BYTE, at, (byte) at);
        }
    }
}

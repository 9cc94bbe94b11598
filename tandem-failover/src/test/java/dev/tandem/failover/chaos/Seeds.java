package dev.tandem.failover.chaos;

import java.util.HexFormat;

/** Seeds derived from seeds: one scenario seed per (master, kind, index), one stream per purpose of a scenario. */
final class Seeds {
    private Seeds() {
    }

    /** A well-mixed 64-bit value of {@code parts} (the splitmix64 finaliser over a running sum). */
    static long mix(long... parts) {
        long h = 0x9E3779B97F4A7C15L;
        for (long p : parts) {
            h = finalise(h + p * 0xBF58476D1CE4E5B9L);
        }
        return h;
    }

    private static long finalise(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** How seeds are printed: {@code 0x} and 16 hex digits. */
    static String format(long seed) {
        return "0x" + HexFormat.of().toHexDigits(seed);
    }

    /** Reads a seed printed by {@link #format} or written in decimal. */
    static long parse(String text) {
        String t = text.strip();
        if (t.startsWith("0x") || t.startsWith("0X")) {
            return Long.parseUnsignedLong(t.substring(2), 16);
        }
        return Long.parseLong(t);
    }
}

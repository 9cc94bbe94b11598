package dev.tandem.tools.text;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Times as the commands print them: ISO-8601 in UTC (also in JSON), and ages such as {@code 3m04s}. */
public final class TimeFormat {
    private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter MICROS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
            .withZone(ZoneOffset.UTC);

    private TimeFormat() {
    }

    /** {@code epochMs} as e.g. {@code 2025-06-01T10:00:00.123Z}. */
    public static String iso(long epochMs) {
        return MILLIS.format(Instant.ofEpochMilli(epochMs));
    }

    /** {@code epochNanos} to the microsecond, e.g. {@code 2025-06-01T10:00:00.123456Z}. */
    public static String isoMicros(long epochNanos) {
        return MICROS.format(Instant.ofEpochSecond(Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L)));
    }

    /** A duration in ms for people: {@code 0.4s}, {@code 12s}, {@code 3m04s}, {@code 2h05m}, {@code 3d04h}. */
    public static String age(long ms) {
        if (ms < 0) {
            return "in " + age(-ms);
        }
        if (ms < 10_000) {
            return String.format("%d.%ds", ms / 1000, ms % 1000 / 100);
        }
        long s = ms / 1000;
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return String.format("%dm%02ds", s / 60, s % 60);
        }
        if (s < 86_400) {
            return String.format("%dh%02dm", s / 3600, s % 3600 / 60);
        }
        return String.format("%dd%02dh", s / 86_400, s % 86_400 / 3600);
    }
}

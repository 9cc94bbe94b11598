package dev.tandem.tools.dump;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Times as the dump printout shows them: ISO-8601 in UTC, like the other RAS commands. */
final class Times {
    private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter MICROS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
            .withZone(ZoneOffset.UTC);

    private Times() {
    }

    /** E.g. {@code 2025-06-01T10:00:00.123Z}. */
    static String iso(long epochMs) {
        return MILLIS.format(Instant.ofEpochMilli(epochMs));
    }

    /** To the microsecond, e.g. {@code 2025-06-01T10:00:00.123456Z}. */
    static String isoMicros(long epochNanos) {
        return MICROS.format(Instant.ofEpochSecond(Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L)));
    }
}

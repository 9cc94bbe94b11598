package dev.tandem.tools.dump;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The {@code --timeout} of {@code tandem dump}: a whole number with a unit, {@code ms}, {@code s} or {@code m}, up to an hour. */
final class Timeout {
    static final Duration MAX = Duration.ofHours(1);
    private static final Pattern FORMAT = Pattern.compile("([0-9]{1,9})(ms|s|m)");

    private Timeout() {
    }

    /**
     * {@code text} as a duration.
     *
     * @throws IllegalArgumentException saying what is wrong and what would be right
     */
    static Duration parse(String text) {
        Matcher m = FORMAT.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("--timeout '" + text + "' is not a duration: give a whole number with a unit,"
                    + " e.g. 500ms, 5s or 1m");
        }
        long n = Long.parseLong(m.group(1));
        Duration d = switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            default -> Duration.ofMinutes(n);
        };
        if (d.isZero() || d.compareTo(MAX) > 0) {
            throw new IllegalArgumentException("--timeout " + text + " is out of range: give more than 0 and at most an hour (60m)");
        }
        return d;
    }

    /** {@code d} as the user would write it: {@code 500ms}, {@code 5s}, {@code 2m}. */
    static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}

package dev.tandem.provider;

import java.util.regex.Pattern;

/**
 * An error's text with its distinct-error key (the text with its numbers blanked), under which the
 * process's error log counts it. Work the key out once for a cause recorded often (a listener under
 * attack).
 */
public record ErrorCause(String text, String key) {
    private static final Pattern HEX = Pattern.compile("0x[0-9a-fA-F]+");
    private static final Pattern DIGITS = Pattern.compile("\\d+");

    /** {@code text} with its key. */
    public static ErrorCause of(String text) {
        return new ErrorCause(text, keyOf(text));
    }

    /** The distinct-error key of a cause: its text with the numbers blanked. */
    static String keyOf(String text) {
        return DIGITS.matcher(HEX.matcher(text).replaceAll("0x#")).replaceAll("#");
    }
}

package dev.tandem.ras;

import java.util.Locale;

/**
 * The measurement switch. A JVM started with {@code -Dtandem.ras=off} does no RAS work on the data
 * path: every {@link Counter} update is a no-op (counters stay 0) and {@link TraceComponent#enabled}
 * is always false (nothing is traced), so a benchmark run with and without the switch shows what RAS
 * costs. The property is read once, into a {@code static final} the JIT folds: with RAS on (the
 * default, or {@code -Dtandem.ras=on}) the check costs nothing. For measurement only: the RAS file,
 * the error log and the trace level table keep working, but {@code tandem stat} shows zeros.
 */
public final class RasSwitch {
    /** The system property: {@code on} (default) or {@code off}. */
    public static final String PROPERTY = "tandem.ras";

    /** False when the JVM was started with {@code -Dtandem.ras=off}. */
    public static final boolean ON = read();

    private RasSwitch() {
    }

    private static boolean read() {
        String value = System.getProperty(PROPERTY);
        try {
            return parse(value);
        } catch (IllegalArgumentException e) {
            System.getLogger(RasSwitch.class.getName()).log(System.Logger.Level.WARNING, e.getMessage() + "; RAS stays on");
            return true;
        }
    }

    /**
     * The switch's state for a property value: null, empty or {@code on} is on, {@code off} is off
     * (case and surrounding blanks ignored).
     *
     * @throws IllegalArgumentException for any other value
     */
    static boolean parse(String value) {
        if (value == null) {
            return true;
        }
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "", "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("-D" + PROPERTY + "=" + value + " is neither 'on' nor 'off'");
        };
    }
}

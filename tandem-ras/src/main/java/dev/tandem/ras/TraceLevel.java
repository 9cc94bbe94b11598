package dev.tandem.ras;

/**
 * Trace levels 0..9 with the meaning of the reference's Figure 16. A component traced at level N
 * records events of levels 1..N; level 0 records nothing. Plain {@code int}s, because the hot path
 * compares them.
 */
public final class TraceLevel {
    /** Nothing is recorded. */
    public static final int OFF = 0;
    /** Errors (the default: errors are always traced). */
    public static final int ERROR = 1;
    /** Rare events: connection set-up, state changes, resource creation. */
    public static final int RARE = 2;
    /** Function entry and exit on control paths. */
    public static final int ENTRY_EXIT = 4;
    /** Function internals on control paths. */
    public static final int INTERNALS = 5;
    /** Entry and exit of hot (data path) functions. */
    public static final int HOT_ENTRY_EXIT = 7;
    /** Internals of hot (data path) functions. */
    public static final int HOT_INTERNALS = 8;
    /** Data dumps. */
    public static final int DATA_DUMP = 9;
    /** Highest level. */
    public static final int MAX = 9;

    private TraceLevel() {
    }

    /** Returns {@code level} if it is 0..9, else throws {@link IllegalArgumentException}. */
    public static int check(int level) {
        if (level < OFF || level > MAX) {
            throw new IllegalArgumentException("trace level " + level + " must be 0..9 (0 off, 1 error, 2 rare, "
                    + "4 entry/exit, 5 internals, 7 hot entry/exit, 8 hot internals, 9 data dumps)");
        }
        return level;
    }

    /** Figure 16's name of {@code level}, e.g. {@code "hot entry/exit"}. */
    public static String describe(int level) {
        return switch (level) {
            case OFF -> "off";
            case ERROR -> "error";
            case RARE -> "rare";
            case 3, 6 -> "reserved";
            case ENTRY_EXIT -> "entry/exit";
            case INTERNALS -> "internals";
            case HOT_ENTRY_EXIT -> "hot entry/exit";
            case HOT_INTERNALS -> "hot internals";
            case DATA_DUMP -> "data dumps";
            default -> "invalid(" + level + ")";
        };
    }
}

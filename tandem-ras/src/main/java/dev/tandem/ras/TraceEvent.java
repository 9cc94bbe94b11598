package dev.tandem.ras;

/**
 * A trace event's name, up to 8 ASCII characters packed into a long (the reference's 8-byte trace
 * tag), so recording it is one store and a hex dump of the ring shows it readably. Create them once,
 * as constants: {@code static final TraceEvent TX_POST = TraceEvent.of("txPost");}.
 */
public final class TraceEvent {
    /** Longest event name. */
    public static final int MAX_LENGTH = 8;

    private final String name;
    private final long code;

    private TraceEvent(String name, long code) {
        this.name = name;
        this.code = code;
    }

    /** The event called {@code name}: 1..8 printable ASCII characters. */
    public static TraceEvent of(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_LENGTH || !name.chars().allMatch(c -> c > 0x20 && c < 0x7F)) {
            throw new IllegalArgumentException("trace event name '" + name + "' must be 1..8 printable ASCII characters");
        }
        long code = 0;
        for (int i = 0; i < name.length(); i++) {
            code |= (long) name.charAt(i) << (8 * i);
        }
        return new TraceEvent(name, code);
    }

    public String name() {
        return name;
    }

    /** The packed name as stored in a trace record. */
    public long code() {
        return code;
    }

    /** The name packed in {@code code}. */
    static String decode(long code) {
        StringBuilder name = new StringBuilder(MAX_LENGTH);
        for (int i = 0; i < MAX_LENGTH; i++) {
            int c = (int) (code >>> (8 * i)) & 0xFF;
            if (c == 0) {
                break;
            }
            name.append(c >= 0x20 && c < 0x7F ? (char) c : '?');
        }
        return name.toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TraceEvent e && e.code == code;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(code);
    }

    @Override
    public String toString() {
        return name;
    }
}

package dev.tandem.ras;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Handle of one trace component (e.g. {@code iwarp.rx}). Its level lives in the RAS file's level
 * table, where another process may change it; the handle caches it in a heap {@code int} that
 * {@link Trace#refresh()} (run by the RAS duty thread) keeps in step with the file. So all the hot
 * path pays when tracing is off is one opaque load of that int and one comparison:
 * <pre>{@code
 * if (rx.enabled(TraceLevel.HOT_INTERNALS)) {
 *     rx.record(TraceLevel.HOT_INTERNALS, FPDU, msn, length, 0, 0, null);
 * }
 * }</pre>
 */
public final class TraceComponent {
    private static final VarHandle FILE_INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LEVEL;

    static {
        try {
            LEVEL = MethodHandles.lookup().findVarHandle(TraceComponent.class, "level", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    private final int slot;
    private final MemorySegment file;
    private final long levelOffset;
    private final TraceRing ring;
    @SuppressWarnings("unused") // accessed through LEVEL
    private int level;

    TraceComponent(String name, int slot, MemorySegment file, long levelOffset, TraceRing ring, int level) {
        this.name = name;
        this.slot = slot;
        this.file = file;
        this.levelOffset = levelOffset;
        this.ring = ring;
        this.level = level;
    }

    /**
     * True when events of {@code level} (1..9) are traced, i.e. {@code level <=} the component's level.
     * One opaque int load and one comparison; never hoisted out of a loop, so a change is seen.
     * Always false under the measurement switch {@code -Dtandem.ras=off} ({@link RasSwitch}).
     */
    public boolean enabled(int level) {
        return RasSwitch.ON && level <= (int) LEVEL.getOpaque(this);
    }

    /** The level 0..9 the hot path currently uses. */
    public int level() {
        return (int) LEVEL.getOpaque(this);
    }

    /** Sets the level 0..9, in the file and for this process's hot path at once. */
    public void setLevel(int level) {
        FILE_INT.setVolatile(file, levelOffset, TraceLevel.check(level));
        LEVEL.setVolatile(this, level);
    }

    /**
     * Records an event in the trace ring, without checking the level (guard with {@link #enabled}).
     * Allocates nothing.
     *
     * @param level event level 1..9
     * @param event what happened
     * @param a     first number (e.g. a QP number)
     * @param b     second number
     * @param c     third number
     * @param d     fourth number
     * @param text  up to {@value RasFileDescriptor#MAX_TRACE_TEXT_LENGTH} ASCII characters, or null
     */
    public void record(int level, TraceEvent event, long a, long b, long c, long d, String text) {
        if (level < TraceLevel.ERROR || level > TraceLevel.MAX) {
            throw new IllegalArgumentException("trace event level " + level + " must be 1..9 (0 is 'off', not an event level)");
        }
        ring.write(slot, level, event.code(), a, b, c, d, text);
    }

    /** Records an event with two numbers and no text. */
    public void record(int level, TraceEvent event, long a, long b) {
        record(level, event, a, b, 0L, 0L, null);
    }

    public String name() {
        return name;
    }

    /** Slot in the level table; trace records refer to the component by it. */
    public int slot() {
        return slot;
    }

    /**
     * Copies the level from the file to the cache if it changed (the duty thread calls this through
     * {@link Trace#refresh()}).
     *
     * @throws CorruptStructureException when the file holds no valid level
     */
    void refresh(Section table) {
        int current = (int) FILE_INT.getOpaque(file, levelOffset);
        if (current < TraceLevel.OFF || current > TraceLevel.MAX) {
            throw new CorruptStructureException(table.structure(), levelOffset, "a trace level 0..9 for '" + name + "'",
                    String.valueOf(current));
        }
        if (current != (int) LEVEL.getOpaque(this)) {
            LEVEL.setRelease(this, current);
        }
    }

    @Override
    public String toString() {
        return "TraceComponent[" + name + " level " + level() + "]";
    }
}

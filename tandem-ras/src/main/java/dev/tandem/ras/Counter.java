package dev.tandem.ras;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Flyweight over one counter's value slot in the RAS file. Updates take no lock and allocate
 * nothing: the single-writer methods are a plain read and a release store (readers in this or another
 * process see whole values, never torn ones); the {@code *Atomic} methods are an atomic add for
 * counters that several threads update. Close to give the slot back. Under the measurement switch
 * {@code -Dtandem.ras=off} ({@link RasSwitch}) every update is a no-op.
 */
public final class Counter implements AutoCloseable {
    private static final VarHandle VALUE = ValueLayout.JAVA_LONG.varHandle();

    private final Counters counters;
    private final MemorySegment file;
    private final long valueOffset;
    private final int id;
    private final int typeId;
    private final long ownerKey;
    private final String label;
    private volatile boolean closed;

    Counter(Counters counters, MemorySegment file, long valueOffset, int id, int typeId, long ownerKey, String label) {
        this.counters = counters;
        this.file = file;
        this.valueOffset = valueOffset;
        this.id = id;
        this.typeId = typeId;
        this.ownerKey = ownerKey;
        this.label = label;
    }

    /** Adds one (single writer). */
    public void increment() {
        if (!RasSwitch.ON) {
            return;
        }
        VALUE.setRelease(file, valueOffset, (long) VALUE.get(file, valueOffset) + 1L);
    }

    /** Adds {@code delta} (single writer). */
    public void add(long delta) {
        if (!RasSwitch.ON) {
            return;
        }
        VALUE.setRelease(file, valueOffset, (long) VALUE.get(file, valueOffset) + delta);
    }

    /** Stores {@code value} (single writer). */
    public void set(long value) {
        if (!RasSwitch.ON) {
            return;
        }
        VALUE.setRelease(file, valueOffset, value);
    }

    /** Raises the value to {@code value} if it is higher: a high-water mark (single writer). */
    public void setMax(long value) {
        if (!RasSwitch.ON) {
            return;
        }
        if (value > (long) VALUE.get(file, valueOffset)) {
            VALUE.setRelease(file, valueOffset, value);
        }
    }

    /**
     * Raises the value to {@code value} if it is higher; safe when several threads update this
     * counter. A plain read when the mark is not exceeded (the usual case), a CAS when it is.
     */
    public void setMaxAtomic(long value) {
        if (!RasSwitch.ON) {
            return;
        }
        long current = (long) VALUE.getAcquire(file, valueOffset);
        while (value > current) {
            long witness = (long) VALUE.compareAndExchange(file, valueOffset, current, value);
            if (witness == current) {
                return;
            }
            current = witness;
        }
    }

    /** Adds one; safe when several threads update this counter. */
    public void incrementAtomic() {
        if (!RasSwitch.ON) {
            return;
        }
        VALUE.getAndAdd(file, valueOffset, 1L);
    }

    /** Adds {@code delta}; safe when several threads update this counter. */
    public void addAtomic(long delta) {
        if (!RasSwitch.ON) {
            return;
        }
        VALUE.getAndAdd(file, valueOffset, delta);
    }

    /** The current value. */
    public long get() {
        return (long) VALUE.getAcquire(file, valueOffset);
    }

    /** Counter id: the index of its slots in the file. */
    public int id() {
        return id;
    }

    public int typeId() {
        return typeId;
    }

    public long ownerKey() {
        return ownerKey;
    }

    public String label() {
        return label;
    }

    /** True once closed. */
    public boolean isClosed() {
        return closed;
    }

    /** Gives the slot back (it may be reused by the next allocation); idempotent. Do not update afterwards. */
    @Override
    public void close() {
        counters.reclaim(this);
    }

    /** Marks closed; false if it already was (called under the allocator's lock). */
    boolean markClosed() {
        if (closed) {
            return false;
        }
        closed = true;
        return true;
    }

    @Override
    public String toString() {
        return "Counter[" + id + " '" + label + "' type " + typeId + " owner " + ownerKey + (closed ? " closed]" : " = " + get() + "]");
    }
}

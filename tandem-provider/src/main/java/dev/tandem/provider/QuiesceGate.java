package dev.tandem.provider;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * Atomic thread tracking for an adapter's verb entry points: each call enters (one atomic add) and
 * leaves; {@link #shut()} stops new entries and {@link #awaitEmpty} waits, bounded, for the threads
 * still inside, so a close or a reset never pulls state from under a running verb. Blocking waits
 * (CQ waits, accepts, connects) are outside the gate, so they never hold a quiesce up.
 */
public final class QuiesceGate {
    /** Added to the count while shut: the count goes negative and entries back out. */
    private static final int SHUT = Integer.MIN_VALUE;
    private static final VarHandle STATE;

    /** An open gate with nobody inside. */
    public QuiesceGate() {
    }

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(QuiesceGate.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Threads inside, plus {@link #SHUT} while entries are refused. */
    @SuppressWarnings("unused")
    private volatile int state;

    /** Enters; false when the gate is shut (the caller then throws its specific error). */
    public boolean tryEnter() {
        if ((int) STATE.getAndAdd(this, 1) < 0) {
            STATE.getAndAdd(this, -1);
            return false;
        }
        return true;
    }

    public void leave() {
        STATE.getAndAdd(this, -1);
    }

    /** Refuses new entries; threads already inside go on. Idempotent. */
    public void shut() {
        int s;
        do {
            s = state;
            if (s < 0) {
                return;
            }
        } while (!STATE.compareAndSet(this, s, s + SHUT));
    }

    /** Lets entries in again. Idempotent. */
    public void open() {
        int s;
        do {
            s = state;
            if (s >= 0) {
                return;
            }
        } while (!STATE.compareAndSet(this, s, s - SHUT));
    }

    public boolean isShut() {
        return state < 0;
    }

    /** Threads inside right now (refused entries that are backing out count for an instant). */
    public int inside() {
        int s = state;
        return s < 0 ? s - SHUT : s;
    }

    /**
     * Waits until no thread is inside or {@code timeoutNanos} passed; returns the threads still inside.
     * Call after {@link #shut()}.
     */
    public int awaitEmpty(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        int n;
        while ((n = inside()) > 0 && deadline - System.nanoTime() > 0) {
            LockSupport.parkNanos(50_000);
        }
        return n;
    }
}

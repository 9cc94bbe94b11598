package dev.tandem.failover.chaos;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The phases of a scenario's traffic, shared by its threads: RUN (the drivers make new messages),
 * DRAIN (they finish what is in flight, by a deadline), and an abort that ends every wait at once.
 */
final class TrafficClock {
    private volatile long startNanos = System.nanoTime();
    private volatile boolean draining;
    private volatile long drainDeadlineNanos = Long.MAX_VALUE;
    private final CountDownLatch abort = new CountDownLatch(1);

    /** The traffic starts now: times in reports count from here (set-up shows as negative). */
    void begin() {
        startNanos = System.nanoTime();
    }

    long startNanos() {
        return startNanos;
    }

    long millisSinceStart() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    boolean draining() {
        return draining;
    }

    /** Stops new traffic; what is in flight must drain within {@code bound}. */
    void drain(Duration bound) {
        drainDeadlineNanos = System.nanoTime() + bound.toNanos();
        draining = true;
    }

    boolean drainOverdue() {
        return draining && System.nanoTime() - drainDeadlineNanos > 0;
    }

    /** Ends the scenario early: every {@link #pause} returns at once. */
    void abort() {
        abort.countDown();
    }

    boolean aborted() {
        return abort.getCount() == 0;
    }

    /** Waits {@code d} (the randomness of a schedule, or the traffic's duration); false when aborted first. */
    boolean pause(Duration d) {
        try {
            return !abort.await(Math.max(0, d.toNanos()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}

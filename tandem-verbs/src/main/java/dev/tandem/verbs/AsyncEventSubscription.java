package dev.tandem.verbs;

import java.time.Duration;

/**
 * One subscriber's own queue of a device's async events: every subscription sees every event raised
 * after it was made, whatever the others (and {@link RdmaDevice#pollAsyncEvent}) take. A subscriber
 * that falls behind loses its own oldest-undelivered events, counted in {@link #dropped()}, and
 * nobody else's.
 */
public interface AsyncEventSubscription extends AutoCloseable {
    /** The next event, waiting up to {@code timeout}; null when none arrived in time or once closed. */
    AsyncEvent poll(Duration timeout);

    /** Events this subscription could not hold (its queue was full) and so never delivered. */
    long dropped();

    /** Stops the subscription: no more events are queued for it. Closing twice is harmless. */
    @Override
    void close();
}

package dev.tandem.failover;

import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** One watcher's own queue of {@link FailoverEvent}s, from when it was made until it is closed. */
public final class FailoverWatch implements AutoCloseable {
    private static final int CAPACITY = 4096;
    private final LinkedBlockingQueue<FailoverEvent> queue = new LinkedBlockingQueue<>(CAPACITY);
    /** What closing it does: the device stops telling it. */
    private final Consumer<FailoverWatch> onClose;
    private volatile long dropped;

    FailoverWatch(Consumer<FailoverWatch> onClose) {
        this.onClose = onClose;
    }

    void offer(FailoverEvent e) {
        if (!queue.offer(e)) {
            dropped++;
        }
    }

    /** The next event, waiting up to {@code timeout}; null when none came in time. */
    public FailoverEvent poll(Duration timeout) {
        try {
            return queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Events this watch could not hold (nobody took them). */
    public long dropped() {
        return dropped;
    }

    @Override
    public void close() {
        onClose.accept(this);
    }
}

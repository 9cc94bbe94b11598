package dev.tandem.provider;

import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventSubscription;

import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An adapter's async events: the application's queue ({@code pollAsyncEvent}) and every
 * subscription's own queue each get a copy of every event, so that no reader takes another's.
 * Raising never blocks (it runs on engine threads): a full queue drops the event for its reader and
 * counts it.
 */
public final class AsyncEvents {
    private final int capacity;
    private final Subscription application;
    private final CopyOnWriteArrayList<Subscription> subscriptions = new CopyOnWriteArrayList<>();

    /** Event queues of {@code capacity} events each. */
    public AsyncEvents(int capacity) {
        this.capacity = capacity;
        this.application = new Subscription();
    }

    /**
     * Queues {@code event} for the application and for every subscription. Returns false when the
     * application's queue was full (the event is lost to it; the caller counts and logs that).
     */
    public boolean raise(AsyncEvent event) {
        for (Subscription s : subscriptions) {
            s.offer(event);
        }
        return application.queue.offer(event);
    }

    /** The application's next event, waiting up to {@code timeout}; null if none came. */
    public AsyncEvent poll(Duration timeout) {
        return application.poll(timeout);
    }

    /** A new subscription that gets every event raised from now on. */
    public AsyncEventSubscription subscribe() {
        Subscription s = new Subscription();
        subscriptions.add(s);
        return s;
    }

    /** How many subscriptions are open (for dumps). */
    public int subscribers() {
        return subscriptions.size();
    }

    private final class Subscription implements AsyncEventSubscription {
        private final LinkedBlockingQueue<AsyncEvent> queue = new LinkedBlockingQueue<>(capacity);
        private final AtomicLong dropped = new AtomicLong();
        private volatile boolean closed;

        void offer(AsyncEvent event) {
            if (!queue.offer(event)) {
                dropped.incrementAndGet();
            }
        }

        @Override
        public AsyncEvent poll(Duration timeout) {
            if (closed) {
                return null;
            }
            try {
                return queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        @Override
        public long dropped() {
            return dropped.get();
        }

        @Override
        public void close() {
            closed = true;
            subscriptions.remove(this);
            queue.clear();
        }

        @Override
        public String toString() {
            return "AsyncEventSubscription[queued=" + queue.size() + ", dropped=" + dropped.get() + "]";
        }
    }
}

package dev.tandem.verbs;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where completion queues report completion events, so that one thread can wait on several CQs, of
 * one device or of several (ibv_comp_channel). Give it to
 * {@link RdmaDevice#createCompletionQueue(int, CompletionChannel)}; arm a CQ with
 * {@link CompletionQueue#requestNotification(boolean)}; {@link #await(Duration)} returns a CQ that had
 * an event it was armed for. Then poll that CQ empty and arm it again:
 *
 * <pre>{@code
 * try (CompletionChannel channel = new CompletionChannel()) {
 *     CompletionQueue a = device.createCompletionQueue(64, channel), b = other.createCompletionQueue(64, channel);
 *     a.requestNotification(false);
 *     b.requestNotification(false);
 *     CompletionQueue ready = channel.await(Duration.ofSeconds(1));   // a or b, or null
 *     ready.requestNotification(false);                               // arm first, then poll: nothing slips by
 *     int n = ready.poll(completions);
 * }
 * }</pre>
 *
 * An armed CQ reports once; a CQ reported and not yet returned by {@code await} is reported once, however
 * many events it had. Thread-safe; CQs of any provider may share a channel.
 */
public final class CompletionChannel implements AutoCloseable {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition ready = lock.newCondition();
    /** CQs with an event not yet returned by await, oldest first. */
    private final ArrayDeque<CompletionQueue> pending = new ArrayDeque<>();
    /** What each attached CQ's provider runs before a thread blocks here (it stops leaving progress to pollers). */
    private final Map<CompletionQueue, Runnable> beforeWait = new ConcurrentHashMap<>();
    private boolean closed;

    /** An open channel with no CQ yet; a CQ joins it when created with it. */
    public CompletionChannel() {
    }

    /**
     * The next CQ that had an event it was armed for, waiting up to {@code timeout}; null when none came
     * in time. The CQ is disarmed: arm it again for its next event.
     *
     * @throws ResourceClosedException when the channel is closed (also to a thread waiting when it closes)
     */
    public CompletionQueue await(Duration timeout) {
        long left = timeout.toNanos();
        boolean told = false;
        lock.lock();
        try {
            while (pending.isEmpty()) {
                if (closed) {
                    throw new ResourceClosedException("completion channel is closed");
                }
                if (left <= 0) {
                    return null;
                }
                if (!told) {
                    told = true;
                    lock.unlock();
                    try {
                        beforeWait.values().forEach(Runnable::run);
                    } finally {
                        lock.lock();
                    }
                    continue;
                }
                left = ready.awaitNanos(left);
            }
            return pending.pollFirst();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A provider attaches a CQ created with this channel: {@code beforeWait} runs each time a thread is
     * about to block in {@link #await} (a provider that lets polling threads drive its engine hands the
     * engine back then). Not for applications.
     */
    public void attach(CompletionQueue cq, Runnable beforeWait) {
        this.beforeWait.put(cq, beforeWait);
    }

    /**
     * A provider's CQ reports an event it was armed for. Not for applications. A CQ already waiting
     * to be returned is not queued twice; events on a closed channel are dropped.
     */
    public void signal(CompletionQueue cq) {
        lock.lock();
        try {
            if (!closed && !pending.contains(cq)) {
                pending.addLast(cq);
                ready.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Forgets {@code cq} (it closed): a later {@link #await} does not return it. Not for applications. */
    public void forget(CompletionQueue cq) {
        beforeWait.remove(cq);
        lock.lock();
        try {
            pending.remove(cq);
        } finally {
            lock.unlock();
        }
    }

    /** Closes the channel: waiting threads get {@link ResourceClosedException}. Closing twice is harmless. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            pending.clear();
            ready.signalAll();
        } finally {
            lock.unlock();
        }
    }
}

package dev.tandem.failover;

import dev.tandem.provider.ResourceLimits;
import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionChannel;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.ResourceInUseException;
import dev.tandem.verbs.WorkCompletion;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The first-level CQ: the software completion queue the application sees, over one CQ on each
 * adapter. It holds the completions the fail-over layer made (a Send or Write released by its
 * proof, a receive rebuilt from its header) or moved here; a poll that finds it empty polls
 * through to the adapters' CQs, whose completions become the application's (the layer's own
 * proofs, and completions of stale QPs, never reach it).
 */
final class FirstLevelCq implements CompletionQueue {
    /** Completions an adapter CQ holds beyond twice the application's depth: proofs and the layer's own work. */
    static final int EXTRA = 64;
    static final int PROOF_DELAY_US = 50;
    private static final long PROOF_DELAY = TimeUnit.MICROSECONDS.toNanos(PROOF_DELAY_US);
    private static final int DISARMED = 0;
    private static final int ANY = 1;
    private static final int SOLICITED = 2;

    private final FailoverDevice device;
    private final int number;
    private final int depth;
    private final CompletionChannel channel;
    private final CompletionQueue[] under;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final WorkCompletion[] ring;
    private final FailoverQueuePair[] ringOwner;
    private final long[] ringSeq;
    private int head;
    private int count;
    private final WorkCompletion[] scratch = WorkCompletion.array(32);
    private int nextAdapter;
    private long anyEvents;
    private long solicitedEvents;
    private int armed = DISARMED;
    private int waiters;
    /**
     * How long a waiter sleeps before it looks at the adapters' CQs itself: a wake-up that never comes (an
     * arming that raced a completion) costs at most this. Tests lengthen it to see that every wake-up comes.
     */
    long lookAfterNanos = TimeUnit.MILLISECONDS.toNanos(10);
    private boolean overflowed;
    private boolean overflowReported;
    /** When the application last polled: a queue nobody polls is swept by the monitor, so an overflow still shows. */
    private volatile long lastPoll = System.nanoTime();
    private volatile boolean closed;
    /** QPs that use it, as send or receive CQ (a use each). */
    private final AtomicInteger uses = new AtomicInteger();
    /** QPs whose send CQ it is (an empty poll proves what they sent): replaced whole on attach and detach, read without allocating. */
    private volatile FailoverQueuePair[] senders = new FailoverQueuePair[0];

    /** The deepest CQ the application may have on adapters whose CQs hold {@code adapterMax}. */
    static int appDepth(int adapterMax) {
        return (adapterMax - EXTRA) / 2;
    }

    FirstLevelCq(FailoverDevice device, int depth, CompletionChannel channel) {
        if (depth <= 0 || depth > device.attributes().maxCqDepth()) {
            throw new InvalidArgumentException("completion queue depth " + depth + " must be within 1.." + device.attributes().maxCqDepth());
        }
        this.device = device;
        this.depth = depth;
        this.channel = channel;
        this.number = device.nextCqNumber();
        this.ring = WorkCompletion.array(depth);
        this.ringOwner = new FailoverQueuePair[depth];
        this.ringSeq = new long[depth];
        this.under = new CompletionQueue[device.adapterCount()];
        device.limits.take(ResourceLimits.Kind.COMPLETION_QUEUE);
        try {
            for (int k = 0; k < under.length; k++) {
                if (device.usable(k)) {
                    under[k] = device.adapter(k).createCompletionQueue(2 * depth + EXTRA, device.adapterEvents);
                    device.own(under[k], this);
                }
            }
        } catch (RuntimeException e) {
            closeUnder();
            device.limits.giveBack(ResourceLimits.Kind.COMPLETION_QUEUE);
            throw e;
        }
        if (channel != null) {
            channel.attach(this, () -> { });
        }
    }

    /** Adapter {@code k} failed: this queue's CQ there goes (what it held was drained by the fail-over, or is lost with it). */
    void release(int k) {
        CompletionQueue c;
        lock.lock();
        try {
            c = under[k];
            under[k] = null;
        } finally {
            lock.unlock();
        }
        if (c != null) {
            device.disown(c);
            Quietly.close(c);
        }
    }

    /** Adapter {@code k} is back: this queue gets a CQ there again. */
    void rebuild(int k) {
        lock.lock();
        try {
            if (closed || under[k] != null) {
                return;
            }
            under[k] = device.adapter(k).createCompletionQueue(2 * depth + EXTRA, device.adapterEvents);
            device.own(under[k], this);
        } finally {
            lock.unlock();
        }
    }

    /** This CQ's CQ on adapter {@code k}, or null. */
    CompletionQueue under(int k) {
        return under[k];
    }

    FailoverDevice device() {
        return device;
    }

    /** A QP takes a use of it (as send or receive CQ); false when it is closed. */
    boolean attach(FailoverQueuePair qp, boolean asSendCq) {
        if (closed) {
            return false;
        }
        uses.incrementAndGet();
        if (asSendCq) {
            synchronized (this) {
                FailoverQueuePair[] s = java.util.Arrays.copyOf(senders, senders.length + 1);
                s[s.length - 1] = qp;
                senders = s;
            }
        }
        return true;
    }

    void detach(FailoverQueuePair qp, boolean asSendCq) {
        uses.decrementAndGet();
        if (asSendCq) {
            synchronized (this) {
                List<FailoverQueuePair> s = new ArrayList<>(List.of(senders));
                s.remove(qp);
                senders = s.toArray(new FailoverQueuePair[0]);
            }
        }
    }

    @Override
    public int depth() {
        return depth;
    }

    @Override
    public int poll(WorkCompletion[] out, int offset, int max) {
        if (max <= 0) {
            return 0;
        }
        int n;
        lock.lock();
        try {
            if (closed) {
                throw new ResourceClosedException("completion queue " + number + " of " + device.name() + " is closed");
            }
            if (overflowed && !overflowReported) {
                overflowReported = true;
                throw new AsyncErrorException(AsyncEventType.CQ_ERROR, "completion queue of depth " + depth
                        + " overflowed; completions were lost, so poll faster or make it deeper");
            }
            if (offset < 0 || offset + max > out.length) {
                throw new InvalidArgumentException("poll: offset " + offset + " and max " + max + " do not fit an array of " + out.length);
            }
            lastPoll = System.nanoTime();
            n = drain(out, offset, max);
            if (n < max) {
                pollThrough();
                for (FailoverQueuePair qp : senders) {
                    qp.proofs().applyAcks(this);
                }
                n += drain(out, offset + n, max - n);
            }
        } finally {
            lock.unlock();
        }
        if (n == 0) {
            proveSenders();
        }
        return n;
    }

    @Override
    public int await(WorkCompletion[] out, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            int n = poll(out, 0, out.length);
            if (n > 0) {
                return n;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !waitFor(false, left)) {
                return poll(out, 0, out.length);
            }
        }
    }

    @Override
    public boolean awaitEvent(boolean solicitedOnly, Duration timeout) {
        lock.lock();
        try {
            if (closed) {
                throw new ResourceClosedException("completion queue " + number + " of " + device.name() + " is closed");
            }
            pollThrough();
            if (!solicitedOnly && count > 0) {
                return true;
            }
        } finally {
            lock.unlock();
        }
        return waitFor(solicitedOnly, timeout.toNanos());
    }

    /** Waits for a completion added after the call (any, or solicited or failed only). */
    private boolean waitFor(boolean solicitedOnly, long nanos) {
        proveSenders();
        long deadline = System.nanoTime() + nanos;
        lock.lock();
        try {
            long seen = solicitedOnly ? solicitedEvents : anyEvents;
            waiters++;
            try {
                armUnder();
                long left = nanos;
                while ((solicitedOnly ? solicitedEvents : anyEvents) == seen && left > 0 && !closed) {
                    arrived.awaitNanos(Math.min(left, lookAfterNanos));
                    if ((solicitedOnly ? solicitedEvents : anyEvents) == seen) {
                        pollThrough();
                        armUnder();
                    }
                    left = deadline - System.nanoTime();
                }
                return (solicitedOnly ? solicitedEvents : anyEvents) != seen;
            } finally {
                waiters--;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Threads waiting in {@link #await} or {@link #awaitEvent} now (for tests that must act while one waits). */
    int waiters() {
        lock.lock();
        try {
            return waiters;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void requestNotification(boolean solicitedOnly) {
        if (channel == null) {
            throw new InvalidStateException("completion queue " + number + " of " + device.name()
                    + " has no completion channel; create it with createCompletionQueue(depth, channel)");
        }
        if (closed) {
            throw new ResourceClosedException("completion queue is closed");
        }
        lock.lock();
        try {
            armed = solicitedOnly ? SOLICITED : ANY;
            if (!solicitedOnly && count > 0) {
                armed = DISARMED;
                channel.signal(this);
            } else {
                armUnder();
            }
        } finally {
            lock.unlock();
        }
        proveSenders();
    }

    /** Runs {@code action} holding this queue's lock (the fail-over moves completions in without a poll racing it). */
    void locked(Runnable action) {
        lock.lock();
        try {
            action.run();
        } finally {
            lock.unlock();
        }
    }

    /** The monitor's sweep: a queue nobody polled for {@code idleNanos} moves its adapters' completions in (and so sees an overflow). */
    void sweep(long idleNanos) {
        if (System.nanoTime() - lastPoll >= idleNanos) {
            adapterEvent();
        }
    }

    /** An adapter CQ under it had a completion it was armed for (the monitor calls this). */
    void adapterEvent() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            pollThrough();
            if (armed != DISARMED || waiters > 0) {
                armUnder();
            }
        } finally {
            lock.unlock();
        }
    }

    private void armUnder() {
        for (CompletionQueue c : under) {
            if (c != null) {
                try {
                    c.requestNotification(false);
                } catch (RuntimeException e) {
                    // a failed adapter's CQ reports nothing more
                }
            }
        }
    }

    /**
     * A poller found nothing (or waits): Sends and Writes that no reply of the peer acknowledged within
     * {@value #PROOF_DELAY_US} µs get their proof now (a ping-pong's reply acknowledges them first).
     */
    private void proveSenders() {
        for (FailoverQueuePair qp : senders) {
            qp.proofs().proveIfOlderThan(PROOF_DELAY);
        }
    }

    /**
     * Moves everything the adapters' CQs hold now into this queue (a move or a connection's end reads
     * what its failed paths reported before it decides). Lock held ({@link #locked}).
     */
    void drain() {
        pollThrough();
    }

    /** Moves what the adapters' CQs hold into this queue, as the application's completions. Lock held. */
    private void pollThrough() {
        for (int i = 0; i < under.length; i++) {
            int k = (nextAdapter + i) % under.length;
            CompletionQueue c = under[k];
            if (c == null) {
                continue;
            }
            int m;
            boolean died = false;
            do {
                // a full batch whatever this queue holds: most adapter completions are the layer's own (proofs, the
                // signalled request of a batch) and need no room here; those that do fit, unless the application
                // has more work outstanding than its queue holds (then it overflows, as on an adapter)
                try {
                    m = c.poll(scratch, 0, scratch.length);
                } catch (RuntimeException e) {
                    m = 0; // a failed adapter's CQ: its work completes through the fail-over
                }
                for (int j = 0; j < m; j++) {
                    WorkCompletion wc = scratch[j];
                    if (wc.opcode() == CompletionOpcode.RECV && wc.status() == CompletionStatus.SUCCESS
                            && device.faults.reached(FaultPoint.AFTER_PLACEMENT) && !device.usable(k)) {
                        // the fault took this adapter down with this completion and those behind it: the
                        // fail-over rebuilds them from their headers (an adapter that still works delivers them)
                        died = true;
                        break;
                    }
                    FailoverDevice.Route route = device.routeOf(k, wc.qpNumber());
                    if (route != null) {
                        route.qp().completions().take(route.path(), wc, this);
                    }
                }
            } while (m == scratch.length && !died);
        }
        nextAdapter = (nextAdapter + 1) % under.length;
    }

    /**
     * Queues one of the application's completions; false when the queue is full (it overflowed:
     * {@link AsyncEventType#CQ_ERROR} is raised and the QP goes to ERROR, as on an adapter).
     * {@code seq} is the send-queue position it completes, or -1 for a receive.
     */
    boolean deliver(FailoverQueuePair owner, long seq, long wrId, CompletionStatus status, CompletionOpcode opcode, long length,
                    int invalidated, int flags, int vendorError) {
        lock.lock();
        try {
            if (count == depth) {
                if (!overflowed) {
                    overflowed = true;
                    device.raise(new AsyncEvent(AsyncEventType.CQ_ERROR, this, "completion queue " + number + " of " + device.name()
                            + " overflowed (depth " + depth + ")"));
                }
                return false;
            }
            int at = (head + count) % depth;
            ring[at].set(wrId, status, opcode, length, owner.qpNumber(), invalidated, flags, vendorError);
            ringOwner[at] = owner;
            ringSeq[at] = seq;
            count++;
            boolean solicited = (flags & WorkCompletion.FLAG_SOLICITED) != 0 || status != CompletionStatus.SUCCESS;
            anyEvents++;
            if (solicited) {
                solicitedEvents++;
            }
            if (waiters > 0) {
                arrived.signalAll();
            }
            if (armed != DISARMED && (armed == ANY || solicited)) {
                armed = DISARMED;
                channel.signal(this);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    private int drain(WorkCompletion[] out, int offset, int max) {
        int n = Math.min(max, count);
        for (int i = 0; i < n; i++) {
            int at = head;
            out[offset + i].copyFrom(ring[at]);
            FailoverQueuePair owner = ringOwner[at];
            long seq = ringSeq[at];
            ringOwner[at] = null;
            head = (head + 1) % depth;
            count--;
            if (seq >= 0) {
                owner.sendPolled(seq);
            }
        }
        return n;
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Closes the queue and its adapter CQs; completions still queued are dropped.
     *
     * @throws ResourceInUseException while a queue pair created with it is open
     */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            int n = uses.get();
            if (n > 0) {
                throw new ResourceInUseException("completion queue " + number + " of " + device.name()
                        + " is the send or receive CQ of open queue pairs (" + n + " uses); close them before the CQ (it stays open)");
            }
            closed = true;
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
        closeUnder();
        if (channel != null) {
            channel.forget(this);
        }
        device.limits.giveBack(ResourceLimits.Kind.COMPLETION_QUEUE);
        device.forget(this);
    }

    private void closeUnder() {
        for (int k = 0; k < under.length; k++) {
            release(k);
        }
    }

    @Override
    public String toString() {
        return "CompletionQueue[" + number + " of " + device.name() + ", depth " + depth + "]";
    }
}

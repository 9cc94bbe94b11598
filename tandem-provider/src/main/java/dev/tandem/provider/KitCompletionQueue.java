package dev.tandem.provider;

import dev.tandem.verbs.AsyncErrorException;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A completion queue: a bounded lock-free ring of preallocated {@link WorkCompletion} slots that the
 * engine fills and the application copies out. Waiting is the only locked path.
 */
public final class KitCompletionQueue implements CompletionQueue, TrackedResource {

    private final DeviceCore device;
    private final Transport transport;
    private final int depth;
    private final WorkCompletion[] slots;
    /** For send completions: the send queue and position to release when the entry is polled. */
    private final SendQueue[] slotQueues;
    private final long[] slotPositions;
    private final AtomicLongArray sequences;
    private final int mask;
    private final AtomicLong head = new AtomicLong();
    private final AtomicLong tail = new AtomicLong();
    private final ReentrantLock waitLock = new ReentrantLock();
    private final Condition signalled = waitLock.newCondition();
    /** Threads inside a wait; producers take the lock only when there are some. */
    private volatile int waiters;
    /** Completions added while someone waited (guarded by waitLock). */
    private long anyEvents;
    /** Solicited or failed completions added while someone waited (guarded by waitLock). */
    private long solicitedEvents;
    private volatile boolean overrun;
    /** The overrun was reported to a poller (once) through {@link AsyncErrorException}. */
    private volatile boolean overrunReported;
    private volatile boolean closed;
    /**
     * Polls in a row that found completions and so ran no progress (plain: a lost update among
     * concurrent pollers only moves the next round a little).
     */
    private int pollsWithoutProgress;
    /** Where armed events go, or null. */
    private final CompletionChannel channel;
    /** What the queue is armed to report to its channel: {@link #DISARMED}, {@link #ANY} or {@link #SOLICITED}. */
    private final AtomicInteger armed = new AtomicInteger();
    private static final int DISARMED = 0;
    private static final int ANY = 1;
    private static final int SOLICITED = 2;
    /** A poller that keeps finding completions runs a round of progress this often. */
    private static final int PROGRESS_EVERY = 16;
    /** The QPs created with this CQ: it cannot be closed under them. */
    private final UseCount users = new UseCount();

    private final CqCounters counters;

    KitCompletionQueue(DeviceCore device, int depth, CompletionChannel channel) {
        if (depth <= 0 || depth > device.attributes().maxCqDepth()) {
            throw new InvalidArgumentException("completion queue depth " + depth + " must be within 1.." + device.attributes().maxCqDepth());
        }
        this.device = device;
        this.transport = device.transport();
        this.depth = depth;
        int capacity = Integer.highestOneBit(Math.max(2, depth - 1)) << 1;
        slots = WorkCompletion.array(capacity);
        slotQueues = new SendQueue[capacity];
        slotPositions = new long[capacity];
        sequences = new AtomicLongArray(capacity);
        for (int i = 0; i < capacity; i++) {
            sequences.set(i, i);
        }
        mask = capacity - 1;
        counters = new CqCounters(device.ras());
        this.channel = channel;
        if (channel != null) {
            channel.attach(this, transport::pollerLeaving);
        }
    }

    /** Number of this CQ within its adapter, as its counter labels show it ({@code <adapter> cq <n> ...}). */
    @Override
    public long number() {
        return counters.number;
    }

    @Override
    public ResourceKind kind() {
        return ResourceKind.CQ;
    }

    /** The QPs created with this CQ: it cannot be closed under them. */
    public UseCount users() {
        return users;
    }

    @Override
    public int depth() {
        return depth;
    }

    /**
     * Adds a completion (engine side). Returns false when the queue is full: the caller then treats it
     * as an overrun.
     */
    public boolean add(long wrId, CompletionStatus status, CompletionOpcode opcode, long byteLength, int qpNumber,
                int invalidatedStag, int flags, int vendorError, SendQueue sq, long sqPosition) {
        while (true) {
            long pos = tail.get();
            if (pos - head.get() >= depth) {
                raiseOverrun();
                return false;
            }
            int idx = (int) (pos & mask);
            long seq = sequences.get(idx);
            if (seq == pos) {
                if (tail.compareAndSet(pos, pos + 1)) {
                    slots[idx].set(wrId, status, opcode, byteLength, qpNumber, invalidatedStag, flags, vendorError);
                    slotQueues[idx] = sq;
                    slotPositions[idx] = sqPosition;
                    counters.added(pos + 1 - head.get());
                    sequences.set(idx, pos + 1);
                    break;
                }
            } else if (seq < pos) {
                raiseOverrun();
                return false;
            }
            Thread.onSpinWait();
        }
        // what a solicited-only waiter or arming waits for: a solicited Receive or any completion in error
        boolean solicited = (flags & WorkCompletion.FLAG_SOLICITED) != 0 || status != CompletionStatus.SUCCESS;
        if (waiters > 0) {
            wake(solicited);
        }
        int a = armed.get();
        if (a != DISARMED && (a == ANY || solicited) && armed.compareAndSet(a, DISARMED)) {
            channel.signal(this);
        }
        return true;
    }

    @Override
    public void requestNotification(boolean solicitedOnly) {
        if (channel == null) {
            throw new InvalidStateException("completion queue " + number() + " of " + device.name()
                    + " has no completion channel; create it with createCompletionQueue(depth, channel)");
        }
        if (closed) {
            throw new ResourceClosedException("completion queue is closed");
        }
        armed.set(solicitedOnly ? SOLICITED : ANY);
        // a completion added before the arming was not reported: report it now, once
        if (!solicitedOnly && !isEmpty() && armed.compareAndSet(ANY, DISARMED)) {
            channel.signal(this);
        }
    }

    private void raiseOverrun() {
        counters.overflowed();
        if (!overrun) {
            overrun = true;
            device.raise(AsyncEventType.CQ_ERROR, this, "completion queue of depth " + depth + " overflowed; poll faster or make it deeper");
        }
    }

    private void wake(boolean solicited) {
        waitLock.lock();
        try {
            anyEvents++;
            if (solicited) {
                solicitedEvents++;
            }
            signalled.signalAll();
        } finally {
            waitLock.unlock();
        }
    }

    @Override
    public int poll(WorkCompletion[] out, int offset, int max) {
        device.enter();
        try {
            return pollInside(out, offset, max);
        } finally {
            device.leave();
        }
    }

    private int pollInside(WorkCompletion[] out, int offset, int max) {
        if (closed) {
            throw new ResourceClosedException("completion queue is closed");
        }
        if (overrun && !overrunReported) {
            overrunReported = true;
            throw new AsyncErrorException(AsyncEventType.CQ_ERROR, "completion queue of depth " + depth
                    + " overflowed; completions were lost, so poll faster or make it deeper");
        }
        if (offset < 0 || max < 0 || offset + max > out.length) {
            throw new InvalidArgumentException("poll: offset " + offset + " and max " + max + " do not fit an array of " + out.length);
        }
        int n = drain(out, offset, max);
        if (transport.progressOnPoll()) {
            // a polling thread keeps the transport's own threads away, so it must drive progress: on an
            // empty poll, and every PROGRESS_EVERY polls while it keeps finding completions, so that the
            // adapter's inbound stream (a peer's Read Request, say) is never left unread
            transport.notePoll();
            if (n == 0 || ++pollsWithoutProgress >= PROGRESS_EVERY) {
                pollsWithoutProgress = 0;
                if (transport.progress() > 0 && n == 0) {
                    n = drain(out, offset, max);
                }
            }
        }
        return n;
    }

    private int drain(WorkCompletion[] out, int offset, int max) {
        int n = 0;
        while (n < max) {
            long pos = head.get();
            int idx = (int) (pos & mask);
            if (sequences.get(idx) != pos + 1) {
                break;
            }
            if (head.compareAndSet(pos, pos + 1)) {
                out[offset + n].copyFrom(slots[idx]);
                SendQueue sq = slotQueues[idx];
                if (sq != null) {
                    slotQueues[idx] = null;
                    sq.release(slotPositions[idx] + 1);
                }
                sequences.set(idx, pos + mask + 1);
                n++;
            }
        }
        return n;
    }

    public boolean isEmpty() {
        return sequences.get((int) (head.get() & mask)) != head.get() + 1;
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
        if (!solicitedOnly && !isEmpty()) {
            return true;
        }
        return waitFor(solicitedOnly, timeout.toNanos());
    }

    /**
     * Waits for a completion added after the call (any, or solicited/failed only); for "any", one
     * already queued counts too. Each waiter watches its own kind, so waiters never disturb each other.
     */
    private boolean waitFor(boolean solicitedOnly, long nanos) {
        if (closed) {
            throw new ResourceClosedException("completion queue is closed");
        }
        transport.pollerLeaving();
        waitLock.lock();
        try {
            waiters++;
            long seen = solicitedOnly ? solicitedEvents : anyEvents;
            if (!solicitedOnly && !isEmpty()) {
                return true;
            }
            long left = nanos;
            while ((solicitedOnly ? solicitedEvents : anyEvents) == seen && left > 0 && !closed) {
                left = signalled.awaitNanos(left);
            }
            return (solicitedOnly ? solicitedEvents : anyEvents) != seen;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            waiters--;
            waitLock.unlock();
        }
    }

    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        int n = users.close();
        if (n > 0) {
            throw new dev.tandem.verbs.ResourceInUseException("completion queue " + number() + " of " + device.name() + " is the send or receive CQ of open"
                    + " queue pairs (" + n + " uses); close those queue pairs before the CQ (it stays open)");
        }
        closed = true;
        if (channel != null) {
            channel.forget(this);
        }
        waitLock.lock();
        try {
            signalled.signalAll();
        } finally {
            waitLock.unlock();
        }
        counters.close(); // before its slot goes back: a CQ that closed makes room for the next in full
        device.forget(this);
    }

    @Override
    public String toString() {
        return "CompletionQueue[depth=" + depth + "]";
    }
}

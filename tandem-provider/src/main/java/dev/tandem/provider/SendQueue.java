package dev.tandem.provider;

import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.WorkRequest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A QP's send queue: a bounded ring of posted (immutable, reusable) work requests with three
 * cursors: posted (producers, lock-free), transmitted (the transmitter) and completed (in posting
 * order, as the verbs require). Inline payloads are copied into a per-slot buffer at post time.
 */
public final class SendQueue {
    public static final int PENDING = 0;

    public final int depth;
    private final int mask;
    private final WorkRequest[] requests;
    private final AtomicLongArray sequences;
    /**
     * 0 while pending, else {@code vendorError << 8 | 1 + CompletionStatus ordinal}: status and vendor
     * error are set by one compare-and-set, so a slot that is already finished keeps both of its own.
     */
    private final AtomicIntegerArray states;
    private final AtomicLong tail = new AtomicLong();
    private volatile long head;
    private volatile long txIndex;
    /** Slots before this position have had their completions polled (or needed none): free to reuse. */
    private volatile long released;
    private final AtomicBoolean completing = new AtomicBoolean();
    private final ByteBuffer inlineBuffer;
    private final MemorySegment inlineSegment;
    private final int inlineSize;

    public SendQueue(int depth, int maxInline) {
        this.depth = depth;
        int capacity = Integer.highestOneBit(Math.max(2, depth - 1)) << 1;
        mask = capacity - 1;
        requests = new WorkRequest[capacity];
        sequences = new AtomicLongArray(capacity);
        for (int i = 0; i < capacity; i++) {
            sequences.set(i, i);
        }
        states = new AtomicIntegerArray(capacity);
        inlineSize = maxInline;
        inlineSegment = maxInline > 0 ? Arena.ofAuto().allocate((long) maxInline * capacity, 64) : MemorySegment.NULL;
        inlineBuffer = inlineSegment.asByteBuffer();
    }

    /**
     * Claims a slot; -1 when the queue is full, that is when {@code depth} requests are posted whose
     * completions were not yet polled. A completion can be polled (and so release its slot) before
     * {@link #complete} has moved its head past it; a claim then waits for the head rather than
     * report a queue the application has already emptied as full.
     */
    public long claim() {
        while (true) {
            long pos = tail.get();
            if (pos - released >= depth) {
                return -1;
            }
            int idx = (int) (pos & mask);
            long seq = sequences.get(idx);
            if (seq == pos && pos - head < depth) {
                if (tail.compareAndSet(pos, pos + 1)) {
                    return pos;
                }
            }
            // another poster took pos, or the completer that emitted the polled completion is still
            // moving the head and recycling the slot: both finish without waiting for this thread
            Thread.onSpinWait();
        }
    }

    /** The inline bytes of every slot ({@link #inlineOffset} locates one); the caller works on a duplicate. */
    public ByteBuffer inlineBuffer() {
        return inlineBuffer;
    }

    /** Where {@link #inlineOffset} bytes are copied at post time. */
    public MemorySegment inlineSegment() {
        return inlineSegment;
    }

    public int inlineOffset(long pos) {
        return (int) ((pos & mask) * inlineSize);
    }

    public void publish(long pos, WorkRequest request) {
        int idx = (int) (pos & mask);
        requests[idx] = request;
        states.set(idx, PENDING);
        sequences.set(idx, pos + 1);
    }

    /** The next request to transmit, or null when none is posted. */
    public WorkRequest peekTx() {
        long pos = txIndex;
        int idx = (int) (pos & mask);
        return sequences.get(idx) == pos + 1 ? requests[idx] : null;
    }

    public long txIndex() {
        return txIndex;
    }

    public void advanceTx() {
        txIndex = txIndex + 1;
    }

    public WorkRequest request(long pos) {
        return requests[(int) (pos & mask)];
    }

    /** Marks a slot finished (first mark wins); true if this call marked it. */
    public boolean finish(long pos, CompletionStatus status, int vendorError) {
        int idx = (int) (pos & mask);
        if (sequences.get(idx) != pos + 1) {
            return false;
        }
        return states.compareAndSet(idx, PENDING, (vendorError & 0xFFFF) << 8 | 1 + status.ordinal());
    }

    public long head() {
        return head;
    }

    public long tail() {
        return tail.get();
    }

    public boolean isEmpty() {
        return head == tail.get();
    }

    /** Emits completions of finished slots in posting order, freeing their slots. */
    public void complete(Emitter emitter) {
        while (completing.compareAndSet(false, true)) {
            try {
                while (true) {
                    long pos = head;
                    int idx = (int) (pos & mask);
                    if (sequences.get(idx) != pos + 1) {
                        break;
                    }
                    int st = states.get(idx);
                    if (st == PENDING) {
                        break;
                    }
                    WorkRequest wr = requests[idx];
                    emitter.emit(wr, STATUSES[(st & 0xFF) - 1], st >>> 8, pos);
                    requests[idx] = null;
                    head = pos + 1;
                    sequences.set(idx, pos + mask + 1);
                }
            } finally {
                completing.set(false);
            }
            long pos = head;
            int idx = (int) (pos & mask);
            if (sequences.get(idx) != pos + 1 || states.get(idx) == PENDING) {
                return;
            }
        }
    }

    private static final CompletionStatus[] STATUSES = CompletionStatus.values();

    /**
     * The completion of the request before {@code upTo} was polled: it and every unsignalled
     * request before it are free again (the verbs keep a request outstanding until then).
     */
    public void release(long upTo) {
        long r = released;
        while (upTo > r) {
            if (RELEASED.compareAndSet(this, r, upTo)) {
                return;
            }
            r = released;
        }
    }

    private static final java.lang.invoke.VarHandle RELEASED;

    static {
        try {
            RELEASED = java.lang.invoke.MethodHandles.lookup().findVarHandle(SendQueue.class, "released", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Receives completions from {@link #complete}. */
    public interface Emitter {
        public void emit(WorkRequest request, CompletionStatus status, int vendorError, long position);
    }
}

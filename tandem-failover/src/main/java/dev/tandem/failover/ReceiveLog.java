package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.QueueFullException;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The receives the application posted to one receive queue (a QP's own or an SRQ) that have not
 * completed yet, in posting order, each with the slot of its fail-over header: the extra scatter
 * element in front of the application's buffers, registered on every adapter under one STag. After a
 * fail-over the log is where landed headers are looked for and what is posted again.
 *
 * <p>The adapter's receive carries {@code epoch << 32 | slot} as its work request id. The epoch grows
 * each time the receives are posted anew on another QP or SRQ ({@link #nextEpoch}), so a completion of
 * the QP they left, polled late, never takes the buffer's new posting ({@link #take} refuses it).
 */
final class ReceiveLog implements AutoCloseable {
    /** A slot logged but not posted on any adapter (the receives are moving, or no path is set up yet). */
    private static final int UNPOSTED = -1;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment;
    private final MemoryRegion headers;
    /** Each slot's header scatter element, made once. */
    private final Sge[] headerSge;
    /** Per slot: the application's receive, and the adapter's receive made for it (reused while the same object is posted again in the same epoch). */
    private final ReceiveRequest[] posted;
    private final ReceiveRequest[] lastApplication;
    private final ReceiveRequest[] lastWire;
    private final int[] wireEpoch;
    /** Per slot: the epoch it was last posted on an adapter in, or {@link #UNPOSTED}. */
    private final int[] postedEpoch;
    private final int[] free;
    private int freeCount;
    private int epoch;
    /** The slots in use, in posting order. */
    private final java.util.ArrayDeque<Integer> order = new java.util.ArrayDeque<>();

    ReceiveLog(InternalMemory memory, int slots) {
        this.segment = arena.allocate((long) slots * FailoverHeader.LENGTH, 8);
        MemoryRegion h;
        try {
            h = memory.register(segment, Access.LOCAL_WRITE);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
        this.headers = h;
        this.headerSge = new Sge[slots];
        for (int i = 0; i < slots; i++) {
            headerSge[i] = new Sge(h, offset(i), FailoverHeader.LENGTH);
        }
        this.posted = new ReceiveRequest[slots];
        this.lastApplication = new ReceiveRequest[slots];
        this.lastWire = new ReceiveRequest[slots];
        this.wireEpoch = new int[slots];
        this.postedEpoch = new int[slots];
        this.free = new int[slots];
        for (int i = 0; i < slots; i++) {
            free[i] = slots - 1 - i;
        }
        this.freeCount = slots;
    }

    /**
     * Logs {@code request} in a free slot, not yet posted anywhere; returns the slot.
     *
     * @throws QueueFullException when every slot holds a receive that has not completed
     */
    synchronized int claim(ReceiveRequest request, String queue, int depth) {
        if (posted.length - freeCount >= depth) {
            throw new QueueFullException(queue + " is full (" + depth + " receives posted and not completed); poll completions first");
        }
        int slot = free[--freeCount];
        posted[slot] = request;
        postedEpoch[slot] = UNPOSTED;
        order.addLast(slot);
        return slot;
    }

    /**
     * Logs again, first in posting order and not posted, a receive just taken for a completion that will
     * not be delivered (the connection ends over it: it is flushed first, where it was).
     */
    synchronized void putFirst(ReceiveRequest request) {
        int slot = free[--freeCount];
        posted[slot] = request;
        postedEpoch[slot] = UNPOSTED;
        order.addFirst(slot);
    }

    /** The adapter's receive for the application's receive in {@code slot}, in this epoch, its header area cleared: to post now. */
    synchronized ReceiveRequest onAdapter(int slot) {
        ReceiveRequest request = posted[slot];
        FailoverHeader.clear(segment, offset(slot));
        if (lastApplication[slot] != request || wireEpoch[slot] != epoch || lastWire[slot] == null) {
            lastWire[slot] = new ReceiveRequest((long) epoch << 32 | slot, FailoverHeader.inFront(headerSge[slot], request.sgl()));
            lastApplication[slot] = request;
            wireEpoch[slot] = epoch;
        }
        postedEpoch[slot] = epoch;
        return lastWire[slot];
    }

    /** The receives are to be posted anew elsewhere: completions of earlier postings no longer take a slot. */
    synchronized void nextEpoch() {
        epoch++;
        for (int slot : order) {
            postedEpoch[slot] = UNPOSTED;
        }
    }

    /** The work request id the adapter's completion of {@code slot}'s current posting carries. */
    synchronized long wireId(int slot) {
        return (long) postedEpoch[slot] << 32 | slot;
    }

    /** The slots in use, oldest first. */
    synchronized List<Integer> inOrder() {
        return List.copyOf(order);
    }

    /** Whether {@code slot} holds a receive that is logged but not posted on any adapter in this epoch. */
    synchronized boolean unposted(int slot) {
        return posted[slot] != null && postedEpoch[slot] == UNPOSTED;
    }

    /** The application's receive in {@code slot}, still in use, or null. */
    synchronized ReceiveRequest peek(int slot) {
        return posted[slot];
    }

    /** The adapter refused the receive of {@code slot} (or it was never posted): the slot is free again. */
    synchronized void unclaim(int slot) {
        if (posted[slot] != null) {
            release(slot);
        }
    }

    /**
     * The application's receive whose adapter completion carries {@code wrId}: the slot is free again.
     * Null when the completion is of an earlier posting of the slot (a QP the receives left), or the
     * slot is not in use.
     */
    synchronized ReceiveRequest take(long wrId) {
        int slot = (int) wrId;
        if (slot < 0 || slot >= posted.length || posted[slot] == null || postedEpoch[slot] != (int) (wrId >>> 32)) {
            return null;
        }
        return release(slot);
    }

    /** Whether a completion with {@code wrId} is of the slot's current posting. */
    synchronized boolean current(long wrId) {
        int slot = (int) wrId;
        return slot >= 0 && slot < posted.length && posted[slot] != null && postedEpoch[slot] == (int) (wrId >>> 32);
    }

    /** The receive in {@code slot}, taken for a completion the layer makes (rebuilt or flushed): the slot is free again. */
    synchronized ReceiveRequest takeSlot(int slot) {
        return posted[slot] == null ? null : release(slot);
    }

    private ReceiveRequest release(int slot) {
        ReceiveRequest r = posted[slot];
        posted[slot] = null;
        postedEpoch[slot] = UNPOSTED;
        order.remove(slot);
        free[freeCount++] = slot;
        return r;
    }

    /** Where the header of a slot lands. */
    MemorySegment segment() {
        return segment;
    }

    /** The slot a work request id names. */
    static int slotOf(long wrId) {
        return (int) wrId;
    }

    static long offset(long slot) {
        return slot * FailoverHeader.LENGTH;
    }

    /** Receives logged and not completed. */
    synchronized int pending() {
        return posted.length - freeCount;
    }

    @Override
    public void close() {
        headers.close();
        arena.close();
    }
}

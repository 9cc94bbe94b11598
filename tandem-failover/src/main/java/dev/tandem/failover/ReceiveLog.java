package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.QueueFullException;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The receives the application posted to one receive queue (a QP's own or an SRQ) that have not
 * completed yet, each with the slot of its fail-over header: the extra scatter element in front of
 * the application's buffers, registered on every adapter under one STag. The adapter's receive
 * carries the slot as its work request id. After a fail-over the log is what is re-posted and
 * where landed headers are looked for.
 */
final class ReceiveLog implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment;
    private final FailoverMemoryRegion headers;
    /** Each slot's header scatter element, made once. */
    private final Sge[] headerSge;
    /** Per slot, the application's receive last posted there and the adapter's receive made for it (reused when posted again). */
    private final ReceiveRequest[] lastApplication;
    private final ReceiveRequest[] lastWire;
    private final ReceiveRequest[] posted;
    private final int[] free;
    private int freeCount;
    /** The slots in use, in posting order (the order the adapter takes them in). */
    private final java.util.ArrayDeque<Integer> order = new java.util.ArrayDeque<>();

    ReceiveLog(FailoverProtectionDomain pd, int slots) {
        this.segment = arena.allocate((long) slots * FailoverHeader.LENGTH, 8);
        FailoverMemoryRegion h;
        try {
            h = pd.registerInternal(segment, Access.LOCAL_WRITE);
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
        this.free = new int[slots];
        for (int i = 0; i < slots; i++) {
            free[i] = slots - 1 - i;
        }
        this.freeCount = slots;
    }

    /**
     * The adapter's receive for {@code request}: its header slot (cleared) as the first scatter element.
     *
     * @throws QueueFullException when every slot holds a receive that has not completed
     */
    synchronized ReceiveRequest claim(ReceiveRequest request, String queue) {
        if (freeCount == 0) {
            throw new QueueFullException(queue + " is full (" + posted.length + " receives posted or not yet completed)");
        }
        int slot = free[--freeCount];
        posted[slot] = request;
        order.addLast(slot);
        return onAdapter(slot);
    }

    /** The adapter's receive for the application's receive in {@code slot}, its header area cleared. */
    synchronized ReceiveRequest onAdapter(int slot) {
        ReceiveRequest request = posted[slot];
        FailoverHeader.clear(segment, offset(slot));
        if (lastApplication[slot] != request) { // an application re-posting the same receive object allocates nothing here
            lastWire[slot] = new ReceiveRequest(slot, FailoverHeader.inFront(headerSge[slot], request.sgl()));
            lastApplication[slot] = request;
        }
        return lastWire[slot];
    }

    /** The slots in use, oldest first. */
    synchronized List<Integer> inOrder() {
        return List.copyOf(order);
    }

    /** The application's receive in {@code slot}, still in use, or null. */
    synchronized ReceiveRequest peek(int slot) {
        return posted[slot];
    }

    /** The adapter refused the receive of {@code slot}: the slot is free again. */
    synchronized void unclaim(int slot) {
        posted[slot] = null;
        order.remove(slot);
        free[freeCount++] = slot;
    }

    /** The application's receive in {@code slot}, which completed: the slot is free again. Null for a slot not in use. */
    synchronized ReceiveRequest take(long slot) {
        if (slot < 0 || slot >= posted.length || posted[(int) slot] == null) {
            return null;
        }
        ReceiveRequest r = posted[(int) slot];
        posted[(int) slot] = null;
        order.remove((int) slot);
        free[freeCount++] = (int) slot;
        return r;
    }

    /** Where the header of {@code slot} lands. */
    MemorySegment segment() {
        return segment;
    }

    static long offset(long slot) {
        return slot * FailoverHeader.LENGTH;
    }

    /** Receives posted and not completed. */
    synchronized int pending() {
        return posted.length - freeCount;
    }

    @Override
    public void close() {
        headers.close();
        arena.close();
    }
}

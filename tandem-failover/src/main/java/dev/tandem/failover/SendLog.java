package dev.tandem.failover;

import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.WorkRequest;

import java.util.Arrays;

/**
 * The application's send work requests of one QP, in posting order, from when they are posted until
 * the application polled their completion (or a later one): the verbs keep a request outstanding
 * that long. Positions count from 0. A request's outcome becomes known out of order (a Read or Bind
 * completes on the adapter; a Send or Write only when a proof covers it), but the application sees
 * outcomes in posting order: {@link #released()} is the first position not handed over yet.
 *
 * <p>A request is <em>on the wire</em> once it was posted on an adapter QP; while the connection's
 * send path moves, new requests are only logged, and the move posts every request that is not on the
 * wire, in order ({@link #unsentFrom}).
 */
final class SendLog {
    private final WorkRequest[] requests;
    private final boolean[] payload;
    private final boolean[] onWire;
    private final CompletionStatus[] outcome;
    private final int[] vendorError;
    private final int[] messageIds;
    /** When each request was posted ({@link System#nanoTime()}). */
    private final long[] postedAt;
    /** The message id of the last Send a proof (or a Read) showed the peer holds: LAST RELIABLY SENT. */
    private int lastProvenMessageId;
    private long next;
    private long released;
    /** No position below it (from {@link #released} on) waits to be posted: where {@link #unsentFrom} looks first. */
    private long sentBelow;
    private long freed;

    SendLog(int capacity) {
        this.requests = new WorkRequest[capacity];
        this.payload = new boolean[capacity];
        this.onWire = new boolean[capacity];
        this.outcome = new CompletionStatus[capacity];
        this.vendorError = new int[capacity];
        this.messageIds = new int[capacity];
        this.postedAt = new long[capacity];
    }

    /** Whether the request carries data to the peer (a Send or Write): it needs a proof. */
    static boolean isPayload(WorkRequest r) {
        return r instanceof WorkRequest.Send || r instanceof WorkRequest.SendWithInvalidate || r instanceof WorkRequest.RdmaWrite;
    }

    /** Whether {@code r} is a Send (it takes a receive of the peer and carries a message id). */
    static boolean isSend(WorkRequest r) {
        return r instanceof WorkRequest.Send || r instanceof WorkRequest.SendWithInvalidate;
    }

    /** The completion opcode of {@code r}. */
    static CompletionOpcode opcodeOf(WorkRequest r) {
        return switch (r) {
            case WorkRequest.RdmaWrite w -> CompletionOpcode.RDMA_WRITE;
            case WorkRequest.RdmaRead rd -> CompletionOpcode.RDMA_READ;
            case WorkRequest.BindWindow b -> CompletionOpcode.BIND_WINDOW;
            case WorkRequest.LocalInvalidate l -> CompletionOpcode.LOCAL_INVALIDATE;
            default -> CompletionOpcode.SEND;
        };
    }

    /** Logs {@code request}; its position, or -1 when {@link #capacity()} requests are outstanding. */
    synchronized long add(WorkRequest request, int messageId) {
        if (next - freed >= requests.length) {
            return -1;
        }
        int at = slot(next);
        requests[at] = request;
        payload[at] = isPayload(request);
        onWire[at] = false;
        outcome[at] = null;
        messageIds[at] = messageId;
        postedAt[at] = System.nanoTime();
        return next++;
    }

    /** The request at {@code position} is now {@code request} (the same, with the layer's copy of an INLINE payload). */
    synchronized void replace(long position, WorkRequest request) {
        requests[slot(position)] = request;
    }

    /** The message id of the Send at {@code position} (0 for any other request). */
    synchronized int messageId(long position) {
        return messageIds[slot(position)];
    }

    /** The last position whose Send the peer holds (its message id is {@code peerReceived} or before), or -1. */
    synchronized long lastHeld(int peerReceived) {
        long held = -1;
        for (long p = released; p < next; p++) {
            int at = slot(p);
            int id = messageIds[at];
            if (requests[at] != null && id != 0 && !MessageIds.after(id, peerReceived)) {
                held = p;
            }
        }
        return held;
    }

    synchronized int lastProvenMessageId() {
        return lastProvenMessageId;
    }

    /** The adapter refused the request just logged. */
    synchronized void dropLast() {
        next--;
        sentBelow = Math.min(sentBelow, next);
        requests[slot(next)] = null;
    }

    /** The request at {@code position} was posted on an adapter QP. */
    synchronized void sent(long position) {
        onWire[slot(position)] = true;
    }

    /** Whether the request at {@code position} is on the wire of the send path now. */
    synchronized boolean onWire(long position) {
        return onWire[slot(position)];
    }

    /** The send path moved: every request after {@code position} must be posted again on the new one. */
    synchronized void offWireAfter(long position) {
        long from = Math.max(position + 1, released);
        for (long p = from; p < next; p++) {
            onWire[slot(p)] = false;
        }
        sentBelow = Math.min(sentBelow, from);
    }

    /** The first position from {@code from} on that waits to be posted (no outcome, not on the wire), or -1. */
    synchronized long unsentFrom(long from) {
        long start = Math.max(from, released);
        boolean fromBelow = start <= sentBelow;
        for (long p = fromBelow ? sentBelow : start; p < next; p++) {
            int at = slot(p);
            if (!onWire[at] && outcome[at] == null && requests[at] != null) {
                if (fromBelow) {
                    sentBelow = p;
                }
                return p;
            }
        }
        if (fromBelow) {
            sentBelow = next;
        }
        return -1;
    }

    /** The outcome of {@code position} is {@code status} (unless it is known already). */
    synchronized void done(long position, CompletionStatus status, int vendor) {
        if (position >= released && position < next && outcome[slot(position)] == null) {
            outcome[slot(position)] = status;
            vendorError[slot(position)] = vendor;
        }
    }

    /**
     * Every Send and Write up to {@code position} whose outcome is not known has {@code status}; with
     * {@code proven}, a proof (or a Read) showed the peer holds them, which moves LAST RELIABLY SENT.
     */
    synchronized void payloadsDone(long position, CompletionStatus status, boolean proven) {
        for (long p = released; p <= position && p < next; p++) {
            int at = slot(p);
            if (payload[at] && outcome[at] == null) {
                outcome[at] = status;
                vendorError[at] = 0;
            }
            if (proven && MessageIds.after(messageIds[at], lastProvenMessageId)) {
                lastProvenMessageId = messageIds[at];
            }
        }
    }

    /**
     * The peer refused work up to {@code position} (its Terminate reached this side there), and this side
     * cannot tell which request it refused: the first Send or Write whose outcome is not known takes
     * {@code status}, every later one up to {@code position} is flushed. None of them is reported as
     * arrived, since none was proven to.
     */
    synchronized void refusedUpTo(long position, CompletionStatus status, int vendor) {
        boolean first = true;
        for (long p = released; p <= position && p < next; p++) {
            int at = slot(p);
            if (payload[at] && outcome[at] == null) {
                outcome[at] = first ? status : CompletionStatus.WR_FLUSH_ERR;
                vendorError[at] = first ? vendor : 0;
                first = false;
            }
        }
    }

    /** Every request whose outcome is not known has {@code status} (the connection failed for good). */
    synchronized void allDone(CompletionStatus status) {
        for (long p = released; p < next; p++) {
            if (outcome[slot(p)] == null) {
                outcome[slot(p)] = status;
                vendorError[slot(p)] = 0;
            }
        }
    }

    /** The next request to hand over, when its outcome is known: its position, else -1. */
    synchronized long nextKnown() {
        return released < next && outcome[slot(released)] != null ? released : -1;
    }

    /** Whether every request logged was handed over. */
    synchronized boolean allHandedOver() {
        return released == next;
    }

    synchronized WorkRequest request(long position) {
        return requests[slot(position)];
    }

    synchronized CompletionStatus outcome(long position) {
        return outcome[slot(position)];
    }

    synchronized int vendorError(long position) {
        return vendorError[slot(position)];
    }

    /** {@code position} was handed over to the application. */
    synchronized void handedOver(long position) {
        if (position == released) {
            released++;
        }
    }

    /** When the oldest Send or Write whose outcome is not known was posted, or 0 when there is none. */
    synchronized long oldestPendingPayloadNanos() {
        for (long p = released; p < next; p++) {
            int at = slot(p);
            if (payload[at] && outcome[at] == null) {
                return postedAt[at];
            }
        }
        return 0;
    }

    /** The position of the last Send or Write, or -1 when none is outstanding. */
    synchronized long lastPayload() {
        for (long p = next - 1; p >= released; p--) {
            if (payload[slot(p)]) {
                return p;
            }
        }
        return -1;
    }

    synchronized long next() {
        return next;
    }

    synchronized long released() {
        return released;
    }

    /** The application polled the completion of {@code position}: it and every request before it are free. */
    synchronized void freedUpTo(long position) {
        if (position + 1 > freed) {
            for (long p = freed; p <= position; p++) {
                requests[slot(p)] = null;
            }
            freed = position + 1;
        }
    }

    /** Forgets everything (the QP was reset). */
    synchronized void clear() {
        Arrays.fill(requests, null);
        Arrays.fill(outcome, null);
        Arrays.fill(onWire, false);
        freed = released = sentBelow = next;
        lastProvenMessageId = 0;
    }

    int capacity() {
        return requests.length;
    }

    /** The slot of {@code position} (where its INLINE copy lies). */
    int slot(long position) {
        return (int) (position % requests.length);
    }
}

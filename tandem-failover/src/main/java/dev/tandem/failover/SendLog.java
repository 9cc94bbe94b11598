package dev.tandem.failover;

import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.WorkRequest;

import java.util.Arrays;

/**
 * The application's send work requests of one QP, in posting order, from when they are posted until
 * the application polled their completion (or a later one): the verbs keep a request outstanding
 * that long. Positions count from 0. A request's outcome becomes known out of order (a Read or Bind
 * completes on the adapter; a Send or Write only when a proof covers it), but the application sees
 * outcomes in posting order: {@link #released()} is the first position not handed over yet.
 */
final class SendLog {
    private final WorkRequest[] requests;
    private final boolean[] payload;
    private final CompletionStatus[] outcome;
    private final int[] vendorError;
    private final int[] messageIds;
    /** When each request was posted ({@link System#nanoTime()}). */
    private final long[] postedAt;
    /** The message id of the last Send a proof (or a Read) showed the peer holds: LAST RELIABLY SENT. */
    private int lastProvenMessageId;
    private long next;
    private long released;
    private long freed;

    SendLog(int capacity) {
        this.requests = new WorkRequest[capacity];
        this.payload = new boolean[capacity];
        this.outcome = new CompletionStatus[capacity];
        this.vendorError = new int[capacity];
        this.messageIds = new int[capacity];
        this.postedAt = new long[capacity];
    }

    /** Whether the request carries data to the peer (a Send or Write): it needs a proof. */
    static boolean isPayload(WorkRequest r) {
        return r instanceof WorkRequest.Send || r instanceof WorkRequest.SendWithInvalidate || r instanceof WorkRequest.RdmaWrite;
    }

    /** Logs {@code request}; its position, or -1 when {@link #capacity()} requests are outstanding. */
    synchronized long add(WorkRequest request, int messageId) {
        if (next - freed >= requests.length) {
            return -1;
        }
        int at = slot(next);
        requests[at] = request;
        payload[at] = isPayload(request);
        outcome[at] = null;
        messageIds[at] = messageId;
        postedAt[at] = System.nanoTime();
        return next++;
    }

    /** The message id of the Send at {@code position} (0 for any other request). */
    synchronized int messageId(long position) {
        return messageIds[slot(position)];
    }

    synchronized int lastProvenMessageId() {
        return lastProvenMessageId;
    }

    /** The adapter refused the request just logged. */
    synchronized void dropLast() {
        next--;
        requests[slot(next)] = null;
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
            if (proven && messageIds[at] != 0 && Integer.compareUnsigned(messageIds[at], lastProvenMessageId) > 0) {
                lastProvenMessageId = messageIds[at];
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

    /** Whether a Send or Write after {@code position} is not yet covered by a proof. */
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
        freed = released = next;
        lastProvenMessageId = 0;
    }

    int capacity() {
        return requests.length;
    }

    private int slot(long position) {
        return (int) (position % requests.length);
    }
}

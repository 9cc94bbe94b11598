package dev.tandem.failover;

import dev.tandem.verbs.WorkRequest;

/**
 * The application's send work requests of one QP, in posting order, from when they are posted until
 * the application polled their completion (or a later one): the verbs keep a request outstanding
 * that long. Positions count from 0; {@link #resolved()} is the first whose outcome is not known
 * yet (a Send or Write is known to have succeeded only when a proof covers it).
 */
final class SendLog {
    private final WorkRequest[] requests;
    private final int[] messageIds;
    private long next;
    private long resolved;
    private long freed;

    SendLog(int capacity) {
        this.requests = new WorkRequest[capacity];
        this.messageIds = new int[capacity];
    }

    int capacity() {
        return requests.length;
    }

    /** Logs {@code request}; its position, or -1 when {@link #capacity()} requests are outstanding. */
    synchronized long add(WorkRequest request, int messageId) {
        if (next - freed >= requests.length) {
            return -1;
        }
        int at = (int) (next % requests.length);
        requests[at] = request;
        messageIds[at] = messageId;
        return next++;
    }

    /** The adapter refused the request just logged. */
    synchronized void dropLast() {
        next--;
        requests[(int) (next % requests.length)] = null;
    }

    synchronized WorkRequest at(long position) {
        return requests[(int) (position % requests.length)];
    }

    synchronized int messageIdAt(long position) {
        return messageIds[(int) (position % requests.length)];
    }

    /** The next position to post. */
    synchronized long next() {
        return next;
    }

    /** The first position whose outcome is not known yet. */
    synchronized long resolved() {
        return resolved;
    }

    /** Outcomes are known up to {@code position} (exclusive). */
    synchronized void resolvedUpTo(long position) {
        if (position > resolved) {
            resolved = position;
        }
    }

    /** The application polled the completion of {@code position}: it and every request before it are free. */
    synchronized void freedUpTo(long position) {
        if (position + 1 > freed) {
            for (long p = freed; p <= position; p++) {
                requests[(int) (p % requests.length)] = null;
            }
            freed = position + 1;
        }
    }

    /** Forgets everything (the QP was reset). */
    synchronized void clear() {
        java.util.Arrays.fill(requests, null);
        freed = resolved = next;
    }
}

package dev.tandem.failover.check;

import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.WorkCompletion;

/**
 * The completion queues of one side's queue pair (one, or a send and a receive queue), polled
 * together, and the tags that tell the stream's work requests apart by their wrId's top byte.
 */
final class Completions {
    /** A data Send (sender); the low bits are its sequence number. */
    static final long SEND = 1;
    /** A block's RDMA Write (sender); the low bits are the block's sequence number. */
    static final long WRITE = 2;
    /** A receive for credits (sender); the low bits are its buffer. */
    static final long CREDIT_RECEIVE = 3;
    /** A receive for data (receiver); the low bits are its buffer. */
    static final long DATA_RECEIVE = 4;
    /** A credit Send (receiver); the low bits are its number. */
    static final long CREDIT_SEND = 5;
    private static final int SHIFT = 56;
    private static final long LOW = (1L << SHIFT) - 1;

    private final CompletionQueue send;
    private final CompletionQueue receive;
    private final WorkCompletion[] wcs = WorkCompletion.array(32);

    Completions(QueuePair qp) {
        this.send = qp.config().sendCq();
        this.receive = qp.config().receiveCq() == send ? null : qp.config().receiveCq();
    }

    static long wrId(long tag, long low) {
        return tag << SHIFT | low;
    }

    static long tag(long wrId) {
        return wrId >>> SHIFT;
    }

    static long low(long wrId) {
        return wrId & LOW;
    }

    /**
     * Polls the send queue's CQ, then the receive queue's (when it is another); returns how many are in
     * {@link #polled()}.
     *
     * @throws dev.tandem.verbs.RdmaException when a queue reports an error (an overflow, a failed adapter)
     */
    int poll() {
        int n = send.poll(wcs);
        if (receive != null && n < wcs.length) {
            n += receive.poll(wcs, n, wcs.length - n);
        }
        return n;
    }

    WorkCompletion[] polled() {
        return wcs;
    }

    /** Whether a completion queue of this side is also one of {@code other}'s. */
    boolean shares(Completions other) {
        return send == other.send || send == other.receive || (receive != null && (receive == other.send || receive == other.receive));
    }

    /**
     * Checks that this side's completion queues hold what may be outstanding at once: {@code sends}
     * send-queue and {@code receives} receive-queue completions.
     */
    void requireRoom(int sends, int receives, String side) {
        if (receive == null && send.depth() < sends + receives) {
            throw new IllegalArgumentException(side + "'s completion queue holds " + send.depth() + " completions; the stream may have "
                    + sends + " Sends and Writes and " + receives + " receives outstanding there: give it " + (sends + receives) + " or more");
        }
        if (receive != null && (send.depth() < sends || receive.depth() < receives)) {
            throw new IllegalArgumentException(side + "'s completion queues hold " + send.depth() + " (send) and " + receive.depth()
                    + " (receive) completions; the stream may have " + sends + " and " + receives + " outstanding there");
        }
    }
}

package dev.tandem.failover;

import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.WorkCompletion;

import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The receive side of one connection: it checks every message before the application sees it and
 * makes the completions a failed adapter never reported.
 *
 * <p>A receive completion is delivered only when it is of its buffer's current posting (an adapter QP
 * the receives left may still report one: its buffer was posted again since, {@link ReceiveLog}), and
 * its fail-over header is this connection's (session and the peer's incarnation) with the next message
 * id. A message id already delivered is a duplicate: it is dropped, counted, and its buffer goes back to
 * the adapter. A message id beyond the next one means messages were lost: the connection ends, loudly
 * (this never happens unless the layer itself is wrong, and it must never pass silently).
 *
 * <p>Message ids of delivered receives ({@link #received}) change only under the connection's receive
 * CQ's lock: completions are taken, rebuilt and flushed there.
 */
final class Receiving {
    /** What became of an adapter's receive completion. */
    enum Outcome { DELIVERED, STALE, DUPLICATE, GAP, FOREIGN }

    private final FailoverQueuePair qp;
    private final ReceiveLog log;
    /** The last message id delivered in order: LAST RELIABLY RECEIVED. */
    private volatile int received;
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong stale = new AtomicLong();
    /** Why the last message failed its check (a gap, another connection's), for the connection's end. */
    private volatile String fault;

    Receiving(FailoverQueuePair qp, ReceiveLog log) {
        this.qp = qp;
        this.log = log;
    }

    ReceiveLog log() {
        return log;
    }

    int received() {
        return received;
    }

    /** A new connection on this QP: nothing received yet. */
    void reset() {
        received = 0;
        fault = null;
    }

    long duplicates() {
        return duplicates.get();
    }

    long stale() {
        return stale.get();
    }

    String fault() {
        return fault;
    }

    /**
     * A successful receive completion of an adapter QP of this connection. Receive CQ lock held.
     *
     * @return what became of it
     */
    Outcome success(WorkCompletion wc, FirstLevelCq cq) {
        // the header is read while the slot is still the completion's: once taken, a post may claim the slot and clear it
        if (!log.current(wc.wrId())) {
            stale.incrementAndGet();
            qp.device.ras.staleDropped();
            return Outcome.STALE;
        }
        MemorySegment s = log.segment();
        long at = ReceiveLog.offset(ReceiveLog.slotOf(wc.wrId()));
        Outcome o = check(s, at);
        int id = FailoverHeader.messageId(s, at);
        int lastAcked = FailoverHeader.lastAcked(s, at);
        ReceiveRequest r = log.take(wc.wrId());
        if (r == null) {
            stale.incrementAndGet();
            return Outcome.STALE;
        }
        switch (o) {
            case DELIVERED -> {
                if ((wc.flags() & WorkCompletion.FLAG_INVALIDATED) != 0) {
                    qp.pd.invalidated(wc.invalidatedStag());
                }
                received = id;
                qp.proofs().acked(lastAcked);
                if (!cq.deliver(qp, -1, r.wrId(), CompletionStatus.SUCCESS, CompletionOpcode.RECV,
                        Math.max(0, wc.byteLength() - FailoverHeader.LENGTH), wc.invalidatedStag(), wc.flags(), wc.vendorError())) {
                    qp.ends().overflowed();
                }
            }
            case DUPLICATE -> {
                duplicates.incrementAndGet();
                qp.device.ras.duplicateDropped();
                qp.receivePosting().repost(r); // the application's buffer goes back: it never saw this message
            }
            default -> qp.receivePosting().putBack(r); // the connection ends over it: flushed with the rest, in order
        }
        return o;
    }

    /** Whether the header at {@code at} is this connection's next message, one it had, or neither. */
    private Outcome check(MemorySegment s, long at) {
        if (!FailoverHeader.present(s, at)) {
            fault = "a message without a fail-over header arrived";
            return Outcome.FOREIGN;
        }
        if (FailoverHeader.session(s, at) != qp.session() || FailoverHeader.incarnation(s, at) != qp.peer.incarnation()) {
            fault = "a message of another connection or another life of the peer arrived (session "
                    + Integer.toUnsignedString(FailoverHeader.session(s, at)) + ", expected " + Integer.toUnsignedString(qp.session()) + ")";
            return Outcome.FOREIGN;
        }
        int id = FailoverHeader.messageId(s, at);
        int next = MessageIds.next(received);
        if (id == next) {
            return Outcome.DELIVERED;
        }
        if (id != 0 && !MessageIds.after(id, received)) {
            return Outcome.DUPLICATE; // delivered already
        }
        fault = "message " + Integer.toUnsignedString(id) + " arrived where message " + Integer.toUnsignedString(next)
                + " was due: messages in between were lost";
        return Outcome.GAP;
    }

    /**
     * Makes the completions of the messages that landed whole in posted buffers but were never reported
     * (their adapter failed, or their QP went to ERROR first), in message order, up to message id
     * {@code bound} (what this side knows arrived whole: the peer's arrival mark, its REPORT). Receive CQ
     * lock held; returns how many.
     */
    int rebuild(int bound, FirstLevelCq cq) {
        if (!MessageIds.after(bound, received)) {
            return 0;
        }
        MemorySegment s = log.segment();
        Map<Integer, Integer> slotOf = new HashMap<>();
        for (int slot : log.inOrder()) {
            long at = ReceiveLog.offset(slot);
            if (FailoverHeader.present(s, at) && FailoverHeader.session(s, at) == qp.session()
                    && FailoverHeader.incarnation(s, at) == qp.peer.incarnation()) {
                slotOf.putIfAbsent(FailoverHeader.messageId(s, at), slot);
            }
        }
        int n = 0;
        while (MessageIds.after(bound, received)) {
            Integer slot = slotOf.get(MessageIds.next(received));
            if (slot == null) {
                break; // the mark says it arrived, yet no buffer holds it: the peer sends it again
            }
            long at = ReceiveLog.offset(slot);
            ReceiveRequest r = log.takeSlot(slot);
            int flags = (FailoverHeader.flags(s, at) & FailoverHeader.FLAG_SOLICITED) != 0 ? WorkCompletion.FLAG_SOLICITED : 0;
            int invalidated = 0;
            if (FailoverHeader.type(s, at) == FailoverHeader.TYPE_SEND_INVALIDATE) {
                invalidated = FailoverHeader.invalidateStag(s, at);
                flags |= WorkCompletion.FLAG_INVALIDATED;
                qp.pd.invalidated(invalidated);
            }
            received = MessageIds.next(received);
            qp.proofs().acked(FailoverHeader.lastAcked(s, at));
            if (!cq.deliver(qp, -1, r.wrId(), CompletionStatus.SUCCESS, CompletionOpcode.RECV, FailoverHeader.length(s, at),
                    invalidated, flags, 0)) {
                qp.ends().overflowed();
            }
            n++;
        }
        return n;
    }

    /** Completes every receive still logged flushed, in posting order (the connection ended). Receive CQ lock held. */
    void flushAll(FirstLevelCq cq) {
        List<Integer> slots = log.inOrder();
        for (int slot : slots) {
            ReceiveRequest r = log.takeSlot(slot);
            if (r != null) {
                cq.deliver(qp, -1, r.wrId(), CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.RECV, 0, 0, 0, 0);
            }
        }
    }
}

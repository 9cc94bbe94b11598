package dev.tandem.failover;

import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;

/**
 * One fail-over of one connection, as the seed document's session fail-over runs it; the device's
 * monitor thread drives it, one step at a time:
 *
 * <ol>
 * <li>{@link #start}: the application's posts wait; the failed path's QP goes to ERROR (stale: it
 *     places nothing more, its late completions are dropped); what its adapter's CQs still hold is
 *     drained into the first-level CQs; this side's REPORT (LAST RELIABLY SENT / RECEIVED MSGID) goes
 *     into the peer's mailbox over the new path.</li>
 * <li>{@link #peerReported}: the receive completions the failed adapter never delivered are rebuilt
 *     from the headers in the posted receive buffers, up to the peer's LAST RELIABLY SENT (what its
 *     proofs showed arrived whole); the other receives are re-posted on the new path; then MIGRATED,
 *     with this side's LAST RELIABLY RECEIVED after the rebuild, tells the peer it may resend.</li>
 * <li>{@link #peerMigrated}: the Sends the peer holds (by its MIGRATED) complete, the Writes before
 *     them too; every other Send, Write, Read, bind and invalidate is re-posted on the new path, in
 *     posting order; the application's posts run again.</li>
 * </ol>
 */
final class Migration {
    final long startNanos;
    final int from;
    volatile int path;
    /** This side follows the path the connecting side's REPORT named (the connecting side chooses). */
    boolean agreed;
    /** The path the receives were moved to (and MIGRATED said), -1 before. */
    int movedTo = -1;
    boolean reported;
    int rebuilt;
    int receivesReposted;

    Migration(int from, int path, long startNanos) {
        this.from = from;
        this.path = path;
        this.startNanos = startNanos;
    }

    /** Rebuilds receive completions up to {@code peerSent} from landed headers; returns how many. FL receive CQ lock held. */
    static int rebuild(FailoverQueuePair qp, ReceiveLog log, FirstLevelCq cq, int peerSent) {
        int n = 0;
        for (int slot : log.inOrder()) {
            if (Integer.compareUnsigned(qp.receivedMessageId(), peerSent) >= 0) {
                break;
            }
            int next = qp.receivedMessageId() + 1;
            long at = ReceiveLog.offset(slot);
            if (!FailoverHeader.present(log.segment(), at) || FailoverHeader.messageId(log.segment(), at) != next) {
                break; // the peer's proof says it arrived, yet this buffer does not hold it: leave it to a resend
            }
            ReceiveRequest r = log.take(slot);
            int flags = (FailoverHeader.flags(log.segment(), at) & FailoverHeader.FLAG_SOLICITED) != 0 ? WorkCompletion.FLAG_SOLICITED : 0;
            int invalidated = 0;
            if (FailoverHeader.type(log.segment(), at) == FailoverHeader.TYPE_SEND_INVALIDATE) {
                invalidated = FailoverHeader.invalidateStag(log.segment(), at);
                flags |= WorkCompletion.FLAG_INVALIDATED;
                qp.invalidated(invalidated);
            }
            qp.receivedMessageId(next);
            cq.deliver(qp, -1, r.wrId(), CompletionStatus.SUCCESS, CompletionOpcode.RECV, FailoverHeader.length(log.segment(), at),
                    invalidated, flags, 0);
            n++;
        }
        return n;
    }

    /**
     * As {@link #rebuild}, over a shared receive queue: its buffers hold the messages of every connection
     * that uses it, so only those of {@code session} count, in their order. FL receive CQ lock held.
     */
    static int rebuildShared(FailoverQueuePair qp, ReceiveLog log, FirstLevelCq cq, int peerSent, int session) {
        int n = 0;
        for (int slot : log.inOrder()) {
            if (Integer.compareUnsigned(qp.receivedMessageId(), peerSent) >= 0) {
                break;
            }
            long at = ReceiveLog.offset(slot);
            if (!FailoverHeader.present(log.segment(), at) || FailoverHeader.session(log.segment(), at) != session
                    || FailoverHeader.messageId(log.segment(), at) != qp.receivedMessageId() + 1) {
                continue;
            }
            ReceiveRequest r = log.take(slot);
            int flags = (FailoverHeader.flags(log.segment(), at) & FailoverHeader.FLAG_SOLICITED) != 0 ? WorkCompletion.FLAG_SOLICITED : 0;
            qp.receivedMessageId(qp.receivedMessageId() + 1);
            cq.deliver(qp, -1, r.wrId(), CompletionStatus.SUCCESS, CompletionOpcode.RECV, FailoverHeader.length(log.segment(), at),
                    0, flags, 0);
            n++;
        }
        return n;
    }

    /** The last send position whose Send the peer holds (its message id is at most {@code peerReceived}), or -1. */
    static long lastHeld(SendLog log, int peerReceived) {
        long held = -1;
        for (long p = log.released(); p < log.next(); p++) {
            WorkRequest wr = log.request(p);
            int id = log.messageId(p);
            if (wr != null && id != 0 && Integer.compareUnsigned(id, peerReceived) <= 0) {
                held = p;
            }
        }
        return held;
    }
}

package dev.tandem.failover;

import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.WorkCompletion;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Sorts what one connection's adapter QPs complete: a QP the connection left behind (dropped and
 * counted), the layer's own work (heartbeats, mailbox writes, windows bound again), a failure of the
 * path's transport (its work moves: the monitor fails the path over), an error of the work itself (the
 * connection ends as on a plain adapter), a receive (checked before delivery, {@link Receiving}), a
 * send-queue completion ({@link Proofs}). The adapter CQ's poller runs it, under the first-level CQ's lock.
 */
final class AdapterCompletions {
    private final FailoverQueuePair qp;
    /** Completions of QPs this connection left behind, dropped. */
    private final AtomicLong stale = new AtomicLong();

    AdapterCompletions(FailoverQueuePair qp) {
        this.qp = qp;
    }

    /** Completions of QPs this connection left behind, dropped. */
    long staleDropped() {
        return stale.get();
    }

    /** A completion of path {@code path}'s adapter QP, polled through {@code cq}. */
    void take(Path path, WorkCompletion wc, FirstLevelCq cq) {
        QueuePair q = path.qp;
        if (q == null || q.qpNumber() != wc.qpNumber()) {
            stale.incrementAndGet(); // a QP this connection left behind
            qp.device.ras.staleDropped();
            return;
        }
        long id = wc.wrId();
        boolean ok = wc.status() == CompletionStatus.SUCCESS;
        boolean receive = wc.opcode() == CompletionOpcode.RECV;
        if (!receive && (id & (FailoverQueuePair.HEARTBEAT | FailoverQueuePair.CONTROL)) != 0 && (id & FailoverQueuePair.PROOF) == 0) {
            if ((id & FailoverQueuePair.HEARTBEAT) != 0) {
                qp.heartbeats().answered(path, ok);
            } else {
                long low = id & ~FailoverQueuePair.CONTROL;
                if ((low & PeerMail.MAIL) != 0) {
                    qp.mail().written((int) (low & 0xFF), ok);
                } else if ((low & ConnectionFailover.REBIND) != 0 && !ok) {
                    qp.moves().rebindFailed(path, wc.status());
                }
            }
            if (!ok && qp.brokenPath(path)) {
                qp.device.monitor().failover(qp, path, q, failureOf(q, "path failed"));
            }
            return;
        }
        if (!ok && qp.brokenPath(path)) {
            // the transport failed under this path: its work moves to another path, not to the application
            qp.device.monitor().failover(qp, path, q, failureOf(q, "path failed"));
            if ((id & FailoverQueuePair.PROOF) != 0 && !receive) {
                qp.proofs().proofFailed();
            }
            return;
        }
        if (receive) {
            if (ok) {
                Receiving.Outcome o = qp.receiving.success(wc, cq);
                if (o == Receiving.Outcome.DELIVERED) {
                    qp.peerSeenNanos = System.nanoTime();
                }
                return;
            }
            if (wc.status() == CompletionStatus.WR_FLUSH_ERR || !qp.receiving.log().current(wc.wrId())) {
                return; // the layer flushes receives itself, in order, when the connection ends
            }
            ReceiveRequest r = qp.receiving.log().take(wc.wrId());
            if (r != null && !cq.deliver(qp, -1, r.wrId(), wc.status(), CompletionOpcode.RECV, 0, 0, wc.flags(), wc.vendorError())) {
                qp.ends().overflowed();
            }
            workFailed(path);
            return;
        }
        if (!ok && qp.carries(path)) {
            workFailed(path);
        }
        qp.proofs().sendCompletion(path, wc, cq);
    }

    /** The connection's work failed on path {@code p} (not its transport): it ends as on a plain adapter, and the peer is told. */
    private void workFailed(Path p) {
        if (qp.endedByError) {
            return;
        }
        qp.endedByError = true;
        qp.device.monitor().submit(() -> qp.ends().endedByWork(p));
    }

    private static String failureOf(QueuePair q, String otherwise) {
        return q.failure().map(QpFailure::detail).orElse(otherwise);
    }
}

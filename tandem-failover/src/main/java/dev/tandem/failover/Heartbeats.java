package dev.tandem.failover;

import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;

/**
 * Finds silent links: every heartbeat, an RDMA Read of the peer's proof region on every live path of a
 * connection; a probe unanswered for {@link FailoverConfig#detection()} fails its path. When the
 * monitor itself ran late ({@code slipped}: this process stalled), an overdue probe gets a fresh window
 * instead: this side's engines may not have run to take its answer either.
 *
 * <p>Any thread that polls may take a probe's answer, as soon as the probe is posted: so the probe's
 * time is set before it is posted, and a fresh window replaces only the probe it read, never an answer
 * that came meanwhile (a time written after the answer cleared it would wait for an answer that came
 * already, and fail a healthy path).
 */
final class Heartbeats {
    private final FailoverQueuePair qp;

    Heartbeats(FailoverQueuePair qp) {
        this.qp = qp;
    }

    /** One heartbeat, at {@code now}: overdue probes fail their paths, and every path without a probe out gets one. */
    void beat(long now, boolean slipped) {
        round(now, slipped, true);
    }

    /**
     * Between heartbeats, at {@code now}: only overdue probes fail their paths (checked this often, a silent
     * link is found within a few ms of its detection time, not up to a heartbeat later).
     */
    void check(long now, boolean slipped) {
        round(now, slipped, false);
    }

    private void round(long now, boolean slipped, boolean probe) {
        if (!qp.connected()) {
            return;
        }
        long limit = qp.device.config().detection().toNanos();
        for (Path p : qp.paths.all()) {
            QueuePair q = p.qp;
            if (!p.up || q == null) {
                continue;
            }
            long sent = p.heartbeatSent.get();
            if (sent != 0 && now - sent > limit && slipped) {
                p.heartbeatSent.compareAndSet(sent, now); // the monitor itself was late: the probe gets a fresh window
            } else if (sent != 0 && now - sent > limit) {
                qp.sendCq.adapterEvent(); // an answer that waits unread in the adapter's CQ is an answer
                if (p.heartbeatSent.get() == sent) {
                    String cause = "silent link: no heartbeat answered on " + p + " for " + (now - sent) / 1_000_000 + " ms";
                    qp.device.tell(new FailoverEvent.PathDown(now, p.local, cause));
                    qp.moves().failover(p, null, cause);
                }
            } else if (q.state() == QpState.ERROR && qp.brokenPath(p)) {
                // a failure whose event or completion this layer never saw (it came while the path was being set up again)
                qp.moves().failover(p, q, q.failure().map(QpFailure::detail).orElse("its QP on adapter " + p.local + " is in ERROR"));
            } else if (probe && sent == 0 && q.state() == QpState.RTS) {
                probe(p, now);
            }
        }
    }

    /** Posts path {@code p}'s probe, stamped {@code now} before it goes (its answer may be taken at once). */
    private void probe(Path p, long now) {
        qp.lock.lock();
        try {
            QueuePair q = p.qp;
            if (!p.up || q == null) {
                return;
            }
            p.heartbeatSent.set(now);
            try {
                q.postSend(qp.readOfProof(FailoverQueuePair.HEARTBEAT | p.id));
            } catch (RuntimeException e) {
                p.heartbeatSent.compareAndSet(now, 0); // the path's queue is full or it failed: its failure shows otherwise
                return;
            }
            qp.device.faults.reached(FaultPoint.DURING_HEARTBEAT);
        } finally {
            qp.lock.unlock();
        }
    }

    /** Path {@code p}'s probe came back ({@code ok}) or failed. */
    void answered(Path p, boolean ok) {
        if (ok) {
            p.heartbeatSent.set(0);
            qp.peerSeenNanos = System.nanoTime();
        }
    }
}

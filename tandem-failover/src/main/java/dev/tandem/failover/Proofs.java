package dev.tandem.failover;

import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

/**
 * Proof before completion, for one connection: its Sends and Writes go to the adapter unsignalled
 * and complete for the application only when something shows the peer holds them: the peer's
 * acknowledgement in the header of its next Send, a proof (an RDMA Read of the peer's proof region
 * posted behind them), or a later Read of the application's that completed. Ahead of each proof (and
 * of each Read of the application's) that covers Sends, an arrival mark tells the peer where they end
 * ({@link Mailbox#mark}): so the peer can rebuild, from its buffers alone, every Send this side was
 * told had arrived, even when no path is left to ask. It decides when a proof goes, takes the
 * adapter's send completions, and hands the application every outcome known, in posting order. The
 * QP's lock guards what it counts; {@link ProofSchedule} decides when a proof goes.
 */
final class Proofs {

    /** The low bits of an arrival mark's work request id (under {@link FailoverQueuePair#CONTROL}). */
    static final long MARK = 0x200;
    private final FailoverQueuePair qp;
    private final ProofSchedule schedule = new ProofSchedule();
    /** The message id the last arrival mark carried. */
    private int marked;
    /** An error completion was handed to the application: every later one is flushed. */
    private boolean errorHandedOver;

    Proofs(FailoverQueuePair qp) {
        this.qp = qp;
    }

    /** A Send or Write was posted: whether a proof is due now (after {@link FailoverConfig#proofEvery()} of them). Lock held. */
    boolean posted() {
        if (schedule.posted()) {
            qp.device.monitor().watch(qp);
        }
        return schedule.batchFull(qp.device.config().proofEvery());
    }

    /** The peer's header says it received this side's Sends up to {@code acked}. */
    void acked(int acked) {
        schedule.acked(acked); // the peer received our Sends up to this one: they, and the Writes before them, arrived
    }

    /**
     * A move took the Sends to a new path: what the peer holds was settled up to {@code held}; the
     * {@code reposted} Sends and Writes wait for a proof on the new path. Unless the path stayed
     * ({@code inPlace}): then the proofs in flight there still count. Lock held.
     */
    void moved(long held, int reposted, boolean inPlace) {
        schedule.moved(held, reposted, inPlace);
    }

    /**
     * The peer ended the connection (its BYE; the QPs are in ERROR): a proof posted behind everything on
     * the send path completes flushed at once, after whatever the adapter flushes of what it still held,
     * and so settles the Sends and Writes that had left the adapter as sent, as a plain adapter completes
     * them. False when there is no path to post it on.
     */
    boolean settle() {
        qp.lock.lock();
        try {
            Path p = qp.paths.sendPath();
            QueuePair q = p == null ? null : p.qp;
            if (q == null) {
                return false;
            }
            WorkRequest proof = qp.readOfProof(FailoverQueuePair.PROOF | (qp.sendLog.next() - 1));
            for (int tries = 0; tries < 2; tries++) {
                try {
                    q.postSend(proof);
                    schedule.settlePosted();
                    return true;
                } catch (AsyncErrorException e) {
                    // the adapter tells its QP's error once, to the first post after it: the next post goes in
                } catch (RuntimeException e) {
                    return false;
                }
            }
            return false;
        } finally {
            qp.lock.unlock();
        }
    }

    /** Whether a proof is posted and not completed. */
    boolean inFlight() {
        qp.lock.lock();
        try {
            return schedule.inFlight();
        } finally {
            qp.lock.unlock();
        }
    }

    /** The send path failed: the proofs in flight went with it; what they covered waits for the next proof. Lock held. */
    void lost() {
        schedule.lost(qp.sendLog.released());
    }

    /** The QP went to RESET: nothing is in flight, nothing waits. Lock held. */
    void reset() {
        schedule.reset(qp.sendLog.next());
        marked = 0;
        errorHandedOver = false;
    }

    /**
     * Posts a proof covering every Send and Write posted so far, unless one covers them already. A
     * proof follows at once when none is in flight, so what was sent waits at most about one proof's
     * round trip; while one is in flight, the next follows after {@link FailoverConfig#proofEvery()}
     * Sends and Writes, or {@link FailoverConfig#proofAfter()} after the oldest (the monitor's).
     */
    void proveNow() {
        qp.lock.lock();
        try {
            long last = qp.sendLog.lastPayload();
            Path p = qp.paths.sendPath();
            if (!schedule.mayProve(last) || p == null || !p.up || qp.peer == null || qp.moves().sendMoving()
                    || qp.state == QpState.RESET
                    || qp.state == QpState.INIT || qp.state == QpState.ERROR || qp.sendLog.unsentFrom(qp.sendLog.released()) >= 0) {
                return;
            }
            long covers = qp.sendLog.next() - 1;
            try {
                mark(p);
                p.qp.postSend(qp.readOfProof(FailoverQueuePair.PROOF | covers));
            } catch (RuntimeException e) {
                return; // the adapter's queue is full or the path failed: a completion or the monitor tries again
            }
            schedule.proofPosted(covers);
            qp.device.faults.reached(FaultPoint.DURING_PROOF);
        } finally {
            qp.lock.unlock();
        }
    }

    /**
     * Before an application's Read (which proves what came before it when it completes): the arrival mark
     * of the Sends before it, if they are all on the send path's wire. Lock held.
     */
    void markBeforeRead() {
        Path p = qp.paths.sendPath();
        if (p == null || !p.up || qp.moves().sendMoving() || qp.sendLog.unsentFrom(qp.sendLog.released()) >= 0) {
            return;
        }
        try {
            mark(p);
        } catch (RuntimeException e) {
            // the path is failing: its failure moves the connection, and the next proof marks
        }
    }

    /** Posts on {@code p} the arrival mark of every Send posted so far, unless the last mark carried it already. Lock held. */
    private void mark(Path p) {
        int id = qp.sending().sentMessageId();
        if (id == marked || id == 0) {
            return;
        }
        p.qp.postSend(qp.mailbox.mark(id, qp.peerMarkKey(), qp.peer.mailboxStag(), FailoverQueuePair.CONTROL | MARK));
        marked = id;
    }

    /** Proves now when the oldest unproven Send or Write is older than the configured bound; true while some stay unproven. */
    boolean proveIfOlderThan(long nanosAgo) {
        boolean due;
        qp.lock.lock();
        try {
            if (!schedule.uncovered(qp.sendLog.lastPayload())) {
                return false; // every empty poll asks: most of the time a proof covers everything, and nothing more is read
            }
            long oldest = qp.sendLog.oldestPendingPayloadNanos();
            if (oldest == 0) {
                return false;
            }
            due = ProofSchedule.due(oldest, System.nanoTime(), nanosAgo);
        } finally {
            qp.lock.unlock();
        }
        if (due) {
            proveNow();
        }
        return true;
    }

    void proofFailed() {
        qp.lock.lock();
        try {
            schedule.proofDone(false);
        } finally {
            qp.lock.unlock();
        }
    }

    /**
     * A completion of the application's work or a proof on the send queue of path {@code path}. The
     * adapter completes in posting order, silently where a request succeeded unsignalled; so every Send
     * or Write before a completed position that has no outcome yet left the adapter. A proof or a Read
     * that succeeded shows the peer holds them. An error of the work (the peer refused something with a
     * Terminate) cannot tell which request the peer refused: the Sends and Writes it did not prove are
     * not reported as arrived (the first takes the error, the rest are flushed), unless the peer ended
     * the connection in order (its BYE), where what left the adapter completes as sent, as on a plain
     * adapter.
     */
    void sendCompletion(Path path, WorkCompletion wc, FirstLevelCq cq) {
        long id = wc.wrId();
        boolean ok = wc.status() == CompletionStatus.SUCCESS;
        if ((id & FailoverQueuePair.PROOF) != 0) {
            boolean next;
            qp.lock.lock();
            try {
                next = schedule.proofDone(ok);
            } finally {
                qp.lock.unlock();
            }
            long covers = id & ~FailoverQueuePair.PROOF;
            if (ok) {
                qp.sendLog.payloadsDone(covers, CompletionStatus.SUCCESS, true);
            } else if (endedInOrderByPeer(path, wc)) {
                qp.sendLog.payloadsDone(covers, CompletionStatus.SUCCESS, false);
            } else {
                qp.sendLog.refusedUpTo(covers, errorOf(path, wc), wc.vendorError());
            }
            release(cq);
            if (next) {
                proveNow();
            }
            return;
        }
        WorkRequest wr = qp.sendLog.request(id);
        if (wr == null || (ok && SendLog.isPayload(wr))) {
            return; // a Send or Write that left the adapter: only a proof or the peer's ack says it arrived
        }
        if (!ok) {
            if (endedInOrderByPeer(path, wc)) {
                qp.sendLog.payloadsDone(id - 1, CompletionStatus.SUCCESS, false);
            } else {
                qp.sendLog.refusedUpTo(id - 1, CompletionStatus.WR_FLUSH_ERR, 0);
            }
        } else if (wr instanceof WorkRequest.RdmaRead) {
            qp.sendLog.payloadsDone(id - 1, CompletionStatus.SUCCESS, true);
        }
        qp.sendLog.done(id, wc.status(), wc.vendorError());
        if (ok && wr instanceof WorkRequest.BindWindow b) {
            ((FailoverMemoryWindow) b.window()).bound(qp, b);
        } else if (ok && wr instanceof WorkRequest.LocalInvalidate l) {
            qp.pd.invalidated(l.stag());
        }
        release(cq);
    }

    /**
     * Whether an error completion on {@code path} comes from the peer's application ending the connection
     * in order rather than from a refusal: this side ended on its BYE, or the completion is a flush of a
     * path whose QP the peer closed after its BYE came (before this side has ended on it). What left the
     * adapter before it then completes as sent, as on a plain adapter.
     */
    private boolean endedInOrderByPeer(Path path, WorkCompletion wc) {
        if (qp.endedByPeer()) {
            return true;
        }
        QueuePair q = path.qp;
        return wc.status() == CompletionStatus.WR_FLUSH_ERR && q != null
                && q.failure().map(QpFailure::kind).orElse(null) == QpFailure.Kind.PEER_CLOSED && qp.mail().peerSaidBye();
    }

    /** The status a failed proof gives the Sends and Writes it covered: its own, or the one the path's failure names. */
    private static CompletionStatus errorOf(Path path, WorkCompletion wc) {
        if (wc.status() != CompletionStatus.WR_FLUSH_ERR) {
            return wc.status();
        }
        QueuePair q = path.qp;
        return q == null ? CompletionStatus.WR_FLUSH_ERR : q.failure().map(QpFailure::status).orElse(CompletionStatus.WR_FLUSH_ERR);
    }

    /**
     * Applies what the peer's headers acknowledged: its application received our Sends up to
     * the schedule's latest acknowledgement, so they and every Write before them arrived, with no proof needed (a
     * ping-pong never waits for one). The send CQ's poll runs it, under that queue's lock.
     */
    void applyAcks(FirstLevelCq cq) {
        if (!schedule.ackMoved()) {
            return;
        }
        int acked = schedule.takeAck();
        long held = qp.sendLog.lastHeld(acked);
        if (held >= 0) {
            qp.sendLog.payloadsDone(held, CompletionStatus.SUCCESS, true);
            release(cq);
            if (qp.sendLog.oldestPendingPayloadNanos() == 0) {
                qp.lock.lock();
                try {
                    schedule.batchDone(); // nothing is waiting for a proof: the next batch counts from here
                } finally {
                    qp.lock.unlock();
                }
            }
        }
    }

    /**
     * Hands the application every outcome now known, in posting order (a successful unsignalled request
     * silently). Once an error was handed over, every later request completes flushed, as on an adapter
     * (a request that went over another path than the one that failed is not reported as done after it).
     */
    void release(FirstLevelCq cq) {
        long p;
        while ((p = qp.sendLog.nextKnown()) >= 0) {
            WorkRequest wr = qp.sendLog.request(p);
            CompletionStatus s = errorHandedOver ? CompletionStatus.WR_FLUSH_ERR : qp.sendLog.outcome(p);
            if (s != CompletionStatus.SUCCESS) {
                errorHandedOver = true;
            }
            boolean ok = s == CompletionStatus.SUCCESS;
            if (wr != null && (!ok || qp.config.signalAll() || WrFlags.has(wr.flags(), WrFlags.SIGNALED))) {
                if (!cq.deliver(qp, p, wr.wrId(), s, SendLog.opcodeOf(wr), ok ? wr.length() : 0, 0, 0, ok ? 0 : qp.sendLog.vendorError(p))) {
                    qp.ends().overflowed();
                }
            }
            qp.sendLog.handedOver(p);
        }
    }
}

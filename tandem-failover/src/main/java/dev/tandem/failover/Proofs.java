package dev.tandem.failover;

import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

/**
 * Proof before completion, for one connection: its Sends and Writes go to the adapter unsignalled
 * and complete for the application only when something shows the peer holds them: the peer's
 * acknowledgement in the header of its next Send, a proof (an RDMA Read of the peer's proof region
 * posted behind them), or a later Read of the application's that completed. It decides when a proof
 * goes, takes the adapter's send completions, and hands the application every outcome known, in
 * posting order. The QP's lock guards what it counts.
 */
final class Proofs {
    private final FailoverQueuePair qp;
    /** The last send position a proof was posted for, and the proofs posted and not completed. */
    private long provenPosted = -1;
    private int proofsInFlight;
    /** Sends and Writes posted since the last proof. */
    private int unproven;
    /** The last of this side's Sends the peer's headers say it received (piggy-backed), and the last one applied. */
    private volatile int peerAcked;
    private int ackApplied;

    Proofs(FailoverQueuePair qp) {
        this.qp = qp;
    }

    /** A Send or Write was posted: whether a proof is due now (after {@link FailoverConfig#proofEvery()} of them). Lock held. */
    boolean posted() {
        if (unproven++ == 0) {
            qp.device.monitor().watch(qp);
        }
        return unproven >= qp.device.config().proofEvery();
    }

    /** The peer's header says it received this side's Sends up to {@code acked}. */
    void acked(int acked) {
        if (Integer.compareUnsigned(acked, peerAcked) > 0) {
            peerAcked = acked; // the peer received our Sends up to this one: they, and the Writes before them, arrived
        }
    }

    /**
     * A fail-over moved the connection: what the peer holds was settled up to {@code held}; the
     * {@code reposted} Sends and Writes wait for a proof on the new path. Unless the path stayed
     * ({@code inPlace}): then the proofs in flight there still count. Lock held.
     */
    void moved(long held, int reposted, boolean inPlace) {
        if (!inPlace) { // the proofs in flight went with the failed path
            provenPosted = held;
            proofsInFlight = 0;
            unproven = reposted;
        }
    }

    /**
     * The connection ended (its QPs are in ERROR): a proof posted behind everything on the send path
     * completes flushed at once, after whatever the adapter flushes of what it still held, and so
     * settles the Sends and Writes that had left the adapter as sent, as a plain adapter completes
     * them. False when there is no path to post it on.
     */
    boolean settle() {
        qp.lock.lock();
        try {
            int k = qp.sendPath;
            if (k < 0 || qp.under[k] == null) {
                return false;
            }
            WorkRequest proof = qp.readOfProof(FailoverQueuePair.PROOF | (qp.sendLog.next() - 1));
            for (int tries = 0; tries < 2; tries++) {
                try {
                    qp.under[k].postSend(proof);
                    proofsInFlight++;
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
            return proofsInFlight > 0;
        } finally {
            qp.lock.unlock();
        }
    }

    /** The QP went to RESET: nothing is in flight, nothing waits. Lock held. */
    void reset() {
        provenPosted = qp.sendLog.next() - 1;
        proofsInFlight = 0;
        unproven = 0;
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
            if (last <= provenPosted || qp.sendPath < 0 || qp.peer == null || qp.migration != null || qp.state == QpState.RESET
                    || qp.state == QpState.INIT || qp.pathDead[qp.sendPath]) {
                return;
            }
            long covers = qp.sendLog.next() - 1;
            try {
                qp.under[qp.sendPath].postSend(qp.readOfProof(FailoverQueuePair.PROOF | covers));
            } catch (RuntimeException e) {
                return; // the adapter's queue is full or the path failed: a completion or the monitor tries again
            }
            provenPosted = covers;
            proofsInFlight++;
            unproven = 0;
            qp.device.faults.reached(FaultPoint.DURING_PROOF);
        } finally {
            qp.lock.unlock();
        }
    }

    /** Proves now when the oldest unproven Send or Write is older than the configured bound; true while some stay unproven. */
    boolean proveIfOlderThan(long nanosAgo) {
        boolean due;
        qp.lock.lock();
        try {
            if (qp.sendLog.lastPayload() <= provenPosted) {
                return false;
            }
            long oldest = qp.sendLog.oldestPendingPayloadNanos();
            if (oldest == 0) {
                return false;
            }
            due = System.nanoTime() - oldest >= nanosAgo;
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
            proofsInFlight = Math.max(0, proofsInFlight - 1);
        } finally {
            qp.lock.unlock();
        }
    }

    /**
     * A completion of the adapter's send queue. The adapter completes in posting order, silently where
     * a request succeeded unsignalled; so every Send or Write before a completed position that has no
     * outcome yet left the adapter. A proof or a Read that succeeded shows the peer holds them; an error
     * (a Terminate: the peer refused work, and so got what came before) ends the path with them sent,
     * as on a plain adapter, while what was still queued comes back flushed, each on its own.
     */
    void sendCompletion(WorkCompletion wc, FirstLevelCq cq) {
        long id = wc.wrId();
        boolean ok = wc.status() == CompletionStatus.SUCCESS;
        boolean proveMore;
        if ((id & FailoverQueuePair.PROOF) != 0) {
            qp.lock.lock();
            try {
                proofsInFlight--;
            } finally {
                qp.lock.unlock();
            }
            qp.sendLog.payloadsDone(id & ~FailoverQueuePair.PROOF, CompletionStatus.SUCCESS, true);
            proveMore = true;
        } else {
            WorkRequest wr = qp.sendLog.request(id);
            if (wr == null || (ok && SendLog.isPayload(wr))) {
                return; // a Send or Write that left the adapter: only a proof or the peer's ack says it arrived
            }
            if (!ok || wr instanceof WorkRequest.RdmaRead) {
                qp.sendLog.payloadsDone(id - 1, CompletionStatus.SUCCESS, ok);
            }
            qp.sendLog.done(id, wc.status(), wc.vendorError());
            if (ok && wr instanceof WorkRequest.BindWindow b) {
                ((FailoverMemoryWindow) b.window()).bound(qp, b);
            } else if (ok && wr instanceof WorkRequest.LocalInvalidate l) {
                qp.pd.invalidated(l.stag());
            }
            proveMore = !ok; // in ERROR a proof completes at once, flushed: it settles what was sent after this
        }
        release(cq);
        if (proveMore) {
            proveNow();
        }
    }

    /**
     * Applies what the peer's headers acknowledged: its application received our Sends up to
     * {@link #peerAcked}, so they and every Write before them arrived, with no proof needed (a
     * ping-pong never waits for one). The send CQ's poll runs it, under that queue's lock.
     */
    void applyAcks(FirstLevelCq cq) {
        int acked = peerAcked;
        if (acked == ackApplied) {
            return;
        }
        ackApplied = acked;
        long held = Migration.lastHeld(qp.sendLog, acked);
        if (held >= 0) {
            qp.sendLog.payloadsDone(held, CompletionStatus.SUCCESS, true);
            release(cq);
            if (qp.sendLog.oldestPendingPayloadNanos() == 0) {
                qp.lock.lock();
                try {
                    unproven = 0; // nothing is waiting for a proof: the next batch counts from here
                } finally {
                    qp.lock.unlock();
                }
            }
        }
    }

    /** Hands the application every outcome now known, in posting order (a successful unsignalled request silently). */
    void release(FirstLevelCq cq) {
        long p;
        while ((p = qp.sendLog.nextKnown()) >= 0) {
            WorkRequest wr = qp.sendLog.request(p);
            CompletionStatus s = qp.sendLog.outcome(p);
            boolean ok = s == CompletionStatus.SUCCESS;
            if (wr != null && (!ok || qp.config.signalAll() || WrFlags.has(wr.flags(), WrFlags.SIGNALED))) {
                if (!cq.deliver(qp, p, wr.wrId(), s, FailoverQueuePair.opcodeOf(wr), ok ? wr.length() : 0, 0, 0, ok ? 0 : qp.sendLog.vendorError(p))) {
                    qp.overflowed();
                }
            }
            qp.sendLog.handedOver(p);
        }
    }
}

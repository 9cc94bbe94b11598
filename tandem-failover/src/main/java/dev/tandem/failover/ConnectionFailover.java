package dev.tandem.failover;

import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.WorkRequest;

/**
 * The fail-over protocol of one connection. Each side owns where it receives; the peer sends there.
 *
 * <ul>
 * <li>A path fails ({@link #failover}): it is stale from now on (its QP in ERROR: it places nothing
 *     more), and the peer is told in a REPORT, which lists every path this side lost.</li>
 * <li>When it was the receive path, this side moves its receives at once ({@link #moveReceives}): what
 *     the adapter still holds is taken, the completions it never reported are rebuilt from the headers
 *     in the buffers (up to the peer's arrival mark: what lies there whole), the other receives are
 *     posted on a live path, the windows bound there again, and MIGRATED tells the peer where it
 *     receives now and what it got. Over a shared receive queue the SRQ decides (it may move all its
 *     connections at once).</li>
 * <li>When it was the send path, posts are only logged until the peer's MIGRATED names its new receive
 *     path ({@link #peerMigrated}): the Sends it holds (and the Writes before them) complete, the rest
 *     is posted there again, in order. A peer that does not answer within
 *     {@link FailoverConfig#moveTimeout()} ends the connection (no path left).</li>
 * <li>A REPORT of the peer fails the paths it lost here too ({@link PeerMail} carries the records);
 *     {@link ConnectionEnd} ends the connection when no path is left.</li>
 * </ul>
 *
 * The device's monitor thread runs it, under the connection's lock where it changes the connection
 * (and, for receives, under the receive CQ's lock first).
 */
final class ConnectionFailover {
    /** The low bits of a window bound again after a move (under {@link FailoverQueuePair#CONTROL}). */
    static final long REBIND = 0x100;

    private final FailoverQueuePair qp;
    /** Windows bound through it that moves bound again on a new path. */
    private int windowsRebound;
    /** Since when the Sends wait for the peer's MIGRATED (0 while they do not), why, and the last progress of the peer. */
    private volatile long sendMoveSince;
    private String sendMoveCause;
    private int sendMoveFrom = -1;
    private long sendMoveProgress;
    /** The receives are being moved (between their path's failure and this side's MIGRATED). */
    private volatile boolean receivesMoving;
    /** When the move in progress began (the first failure of a carrying path since the connection last ran on settled paths), 0 while none. */
    private long episodeSince;

    ConnectionFailover(FailoverQueuePair qp) {
        this.qp = qp;
    }

    boolean sendMoving() {
        return sendMoveSince != 0;
    }

    boolean receivesMoving() {
        return receivesMoving;
    }

    /** Since when the Sends wait for the peer (0 while they do not): for dumps. */
    long sendMoveSince() {
        return sendMoveSince;
    }

    int windowsRebound() {
        return windowsRebound;
    }

    /** The connection ended: no move runs any more. Lock held. */
    void stopMoving() {
        sendMoveSince = 0;
        receivesMoving = false;
        episodeSince = 0;
    }

    /** A new connection on this QP (it was reset). Lock held. */
    void reset() {
        stopMoving();
    }

    // ---------------------------------------------------------------- a path fails

    /**
     * Path {@code p} failed ({@code cause}). {@code from} is the adapter QP whose failure is the evidence,
     * or null when the evidence is about the path itself (its adapter, its heartbeat, the peer's REPORT):
     * evidence about a QP the path has since left (a late event of the QP before a heal) says nothing
     * about the path now.
     */
    void failover(Path p, QueuePair from, String cause) {
        boolean receives;
        boolean sends;
        qp.lock.lock();
        try {
            if (!qp.connected() || !p.up || (from != null && !p.holds(from))) {
                return;
            }
            if (from != null && closedByPeer(p, from, cause)) {
                return; // its BYE may still come: the peer's application (or its work's error) may have ended the connection
            }
            String fatal = qp.device.fatalCause(p.local);
            if (fatal != null && FailoverCause.of(cause) != FailoverCause.ADAPTER_FATAL) {
                cause = "adapter " + p.local + " failed: " + fatal; // the root cause, whichever evidence of it came first
            }
            p.up = false;
            p.downCause = cause;
            p.heartbeatSent.set(0);
            p.closedSince = 0;
            p.closedCause = null;
            p.closedQp = null;
            QueuePair q = p.qp;
            if (q != null) {
                FailoverQueuePair.modifyQuietly(q, QpState.ERROR); // stale: it places nothing more
            }
            receives = p.id == qp.paths.receive && !receivesMoving;
            sends = p.id == qp.paths.send && sendMoveSince == 0;
            if (!receives && !sends) {
                qp.device.tell(new FailoverEvent.BackupLost(System.nanoTime(), qp.qpNumber, p.local, cause));
            }
            if (qp.paths.live() == 0) {
                qp.ends().noPathLeft(cause);
                return;
            }
            long now = System.nanoTime();
            if (sends) {
                sendMoveSince = now;
                sendMoveProgress = now;
                sendMoveCause = cause;
                sendMoveFrom = p.local;
                // what was on this QP's wire is lost with it (unless the peer's MIGRATED shows it holds it): posted again then
                qp.sendLog.offWireAfter(qp.sendLog.released() - 1);
                qp.proofs().lost();
            }
            if (receives) {
                receivesMoving = true;
            }
            if ((sends || receives) && episodeSince == 0) {
                episodeSince = now;
                qp.device.tell(new FailoverEvent.Holding(now, qp.qpNumber, p.local, -1, cause));
            }
        } finally {
            qp.lock.unlock();
        }
        qp.sendCq.adapterEvent(); // what the failed path's CQs still hold comes first
        qp.mail().report();
        if (receives) {
            moveReceives(cause);
        }
    }

    /** Every path of adapter {@code k} failed ({@code cause}: the adapter failed or lost its link). */
    void adapterDown(int k, String cause) {
        for (Path p : qp.paths.on(k)) {
            failover(p, null, cause);
        }
    }

    /** Whether path {@code p}'s QP {@code from} was closed by the peer without a BYE less than the wait ago (then it waits). Lock held. */
    private boolean closedByPeer(Path p, QueuePair from, String cause) {
        if (from.failure().map(QpFailure::kind).orElse(null) != QpFailure.Kind.PEER_CLOSED) {
            return false;
        }
        long now = System.nanoTime();
        if (p.closedSince == 0 || p.closedQp != from) {
            p.closedSince = now;
            p.closedQp = from;
            p.closedCause = cause;
        }
        return now - p.closedSince < FailoverQueuePair.BYE_WAIT.toNanos();
    }

    // ---------------------------------------------------------------- receives move

    /** The receive path failed: the receives go to a live path now, and MIGRATED tells the peer. */
    private void moveReceives(String cause) {
        if (qp.srq != null) {
            qp.srq.moveFor(qp, cause);
            return;
        }
        int[] counts = new int[2];
        Path[] chosen = new Path[1];
        qp.receiveCq.locked(() -> {
            qp.receiveCq.drain(); // what the adapters reported before the path went to ERROR
            counts[0] = qp.receiving.rebuild(qp.mail().bound(), qp.receiveCq);
            qp.lock.lock();
            try {
                if (!qp.connected()) {
                    return;
                }
                Path to = chooseReceivePath();
                if (to == null) {
                    qp.ends().noPathLeft("no path is left to receive on: " + cause);
                    return;
                }
                qp.receiving.log().nextEpoch();
                qp.paths.receive = to.id;
                qp.receivePosting().postAllOn(to);
                counts[1] = qp.receiving.log().pending();
                receivesMoving = false;
                chosen[0] = to;
            } finally {
                qp.lock.unlock();
            }
        });
        if (chosen[0] != null) {
            receivesMovedTo(chosen[0], counts[0], counts[1]);
        }
    }

    /**
     * This side's receives are on path {@code to} now (moved by this connection or by its SRQ, with
     * {@code rebuilt} completions rebuilt and {@code reposted} receives posted): the windows bound through
     * it are bound there again, and MIGRATED tells the peer.
     */
    void receivesMovedTo(Path to, int rebuilt, int reposted) {
        long pause;
        qp.lock.lock();
        try {
            receivesMoving = false;
            rebindWindows(to);
            qp.mail().migrated(to);
            pause = settled();
        } finally {
            qp.lock.unlock();
        }
        long now = System.nanoTime();
        qp.device.tell(new FailoverEvent.Moved(now, qp.qpNumber, rebuilt, reposted, 0, 0));
        if (pause >= 0) {
            qp.device.tell(new FailoverEvent.Migrated(now, qp.qpNumber, qp.sendAdapter(), pause));
        }
    }

    /**
     * When no move is left in progress: the move is over (its pause, since its first failure, is returned
     * and it is forgotten); -1 while the Sends or the receives still move. Lock held.
     */
    private long settled() {
        if (sendMoveSince != 0 || receivesMoving || episodeSince == 0) {
            return -1;
        }
        long pause = System.nanoTime() - episodeSince;
        episodeSince = 0;
        return pause;
    }

    /** The receive move of an SRQ connection starts (its SRQ moves it with the others). Lock held. */
    void receivesMoving(boolean moving) {
        receivesMoving = moving;
    }

    /**
     * Where receives go now: a live path, the one this side sends on if it works (one path then carries
     * both directions), else one from the adapter this side receives on, else any. Lock held.
     */
    Path chooseReceivePath() {
        Path best = null;
        int bestScore = -1;
        for (Path p : qp.paths.all()) {
            if (!p.runs() || !qp.device.usable(p.local)) {
                continue;
            }
            int score = (p.id == qp.paths.send ? 2 : 0) + (p.local == qp.receiveAdapter() ? 1 : 0);
            if (score > bestScore) {
                best = p;
                bestScore = score;
            }
        }
        return best;
    }

    /** Binds again on {@code to} every window bound through this connection on another path (the layer's own requests). Lock held. */
    private void rebindWindows(Path to) {
        for (FailoverMemoryWindow w : qp.pd.windows()) {
            WorkRequest.BindWindow b = w.rebindOn(to.local, qp, FailoverQueuePair.CONTROL | REBIND);
            if (b == null) {
                continue;
            }
            try {
                to.qp.postSend(b);
                windowsRebound++;
            } catch (RuntimeException e) {
                w.lostBinding();
                qp.device.ras.error("window not bound again", "window " + w + " of QP " + qp.qpNumber + " could not be bound again on "
                        + to + ": " + e.getMessage(), "QP " + qp.qpNumber);
            }
        }
    }

    /** A window bound again on path {@code p} was refused ({@code status}): it is logged, and the windows no longer claim that binding. */
    void rebindFailed(Path p, CompletionStatus status) {
        if (status == CompletionStatus.WR_FLUSH_ERR) {
            return;
        }
        qp.device.ras.error("window not bound again", "a window of QP " + qp.qpNumber + " could not be bound again on " + p + ": "
                + status, "QP " + qp.qpNumber);
        for (FailoverMemoryWindow w : qp.pd.windows()) {
            w.reboundFailed(qp, p.local);
        }
    }

    /** The peer showed progress (a new record): a move of the Sends waiting for it waits on. */
    void peerProgressed() {
        qp.lock.lock();
        try {
            if (sendMoveSince != 0) {
                sendMoveProgress = System.nanoTime();
            }
        } finally {
            qp.lock.unlock();
        }
        qp.peerSeenNanos = System.nanoTime();
    }

    /**
     * The peer receives on path {@code to} now (its MIGRATED {@code d}): the Sends it holds complete, the
     * Writes before them too, and every other request goes again over {@code to}, in posting order. The
     * path the Sends took before, when it is another, was left by the peer: it fails here too.
     */
    void peerMigrated(Path to, Mailbox.Record d) {
        Path left = null;
        int sends = 0;
        int writes = 0;
        long pause = 0;
        qp.lock.lock();
        try {
            if (!qp.connected()) {
                return;
            }
            long held = qp.sendLog.lastHeld(d.lastReliablyReceived());
            qp.sendLog.payloadsDone(held, CompletionStatus.SUCCESS, true);
            Path old = qp.paths.sendPath();
            // the same path, on the QP the requests went out on (a path set up again since has a new QP: they are gone)
            boolean inPlace = old == to && to.up && to.generation == qp.sending().wireGeneration();
            if (!inPlace) {
                if (old != null && old.up) {
                    left = old;
                }
                qp.sendLog.offWireAfter(held);
                if (episodeSince == 0) { // the peer moved first: this side's Sends move too, one more move to count and tell
                    episodeSince = System.nanoTime();
                    qp.device.tell(new FailoverEvent.Holding(episodeSince, qp.qpNumber, old == null ? -1 : old.local, to.local,
                            "the peer moved its receives to " + to));
                }
            }
            for (long p = qp.sendLog.unsentFrom(held + 1); p >= 0; p = qp.sendLog.unsentFrom(p + 1)) {
                WorkRequest wr = qp.sendLog.request(p);
                if (SendLog.isSend(wr)) {
                    sends++;
                } else if (wr instanceof WorkRequest.RdmaWrite) {
                    writes++;
                }
            }
            qp.proofs().moved(held, sends + writes, inPlace);
            qp.paths.send = to.id;
            sendMoveSince = 0;
            qp.sending().postPending();
            qp.device.faults.reached(FaultPoint.DURING_REPOST);
            pause = settled();
        } finally {
            qp.lock.unlock();
        }
        long now = System.nanoTime();
        qp.device.tell(new FailoverEvent.Moved(now, qp.qpNumber, 0, 0, sends, writes));
        if (pause >= 0) {
            qp.device.tell(new FailoverEvent.Migrated(now, qp.qpNumber, to.local, pause));
        }
        if (left != null) {
            failover(left, null, "the peer moved its receives off " + left + " to " + to);
        }
        qp.sendCq.locked(() -> qp.proofs().release(qp.sendCq));
        qp.proofs().proveNow();
    }

    /** A move of the Sends the peer does not answer: after {@link FailoverConfig#moveTimeout()} without its progress, no path is left. */
    void moveTimedOut(long now) {
        long limit = qp.device.config().moveTimeout().toNanos();
        qp.lock.lock();
        try {
            long since = sendMoveSince;
            if (since == 0 || !qp.connected()) {
                return;
            }
            if (now - sendMoveProgress > limit || now - since > 4 * limit) {
                qp.ends().noPathLeft("the peer did not move its receives off adapter " + sendMoveFrom + " within "
                        + qp.device.config().moveTimeout().toMillis() + " ms (" + sendMoveCause + ")");
            }
        } finally {
            qp.lock.unlock();
        }
    }
}

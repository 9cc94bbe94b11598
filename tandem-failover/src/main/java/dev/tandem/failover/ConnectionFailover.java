package dev.tandem.failover;

import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.WorkCompletion;
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
 * <li>A REPORT of the peer fails the paths it lost here too; BYE tells that the peer's application
 *     ended the connection.</li>
 * </ul>
 *
 * The device's monitor thread runs it, under the connection's lock where it changes the connection
 * (and, for receives, under the receive CQ's lock first).
 */
final class ConnectionFailover {
    /** The low bits of a window bound again after a move (under {@link FailoverQueuePair#CONTROL}). */
    static final long REBIND = 0x100;
    /** The low bits of a mailbox write (under {@link FailoverQueuePair#CONTROL}), with the record's type. */
    static final long MAIL = 0x400;
    private static final System.Logger LOG = System.getLogger("dev.tandem.failover");

    private final FailoverQueuePair qp;
    /** Records this side wrote into the peer's mailbox (each gets the next number). */
    private int mailSeq;
    /** The last REPORT, MIGRATED and BYE of the peer this side took. */
    private int reportSeq;
    private int migratedSeq;
    private int byeSeq;
    /** When the peer's newest BYE was first read (0 while none waits to be taken). */
    private long byeSeen;
    /** The peer's latest REPORT: what its proofs showed arrived here (its LAST RELIABLY SENT). */
    private Mailbox.Record lastPeerReport;
    /** This side's last MIGRATED (written again over another path when its Write fails). */
    private Mailbox.Record lastMigrated;
    /** This side's BYE left (its mailbox write completed). */
    private volatile boolean byeSent;
    /** Windows bound through it that moves bound again on a new path. */
    private int windowsRebound;
    /** Since when the Sends wait for the peer's MIGRATED (0 while they do not), why, and the last progress of the peer. */
    private volatile long sendMoveSince;
    private String sendMoveCause;
    private int sendMoveFrom = -1;
    private long sendMoveProgress;
    /** The receives are being moved (between their path's failure and this side's MIGRATED). */
    private volatile boolean receivesMoving;
    /** The path the last REPORT went over (for tests that fail it at {@link FaultPoint#DURING_REPORT}, and dumps). */
    volatile Path lastReportVia;
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

    boolean byeSent() {
        return byeSent;
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
        mailSeq = 0;
        reportSeq = 0;
        migratedSeq = 0;
        byeSeq = 0;
        byeSeen = 0;
        lastPeerReport = null;
        lastMigrated = null;
        byeSent = false;
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
                noPathLeft(cause);
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
        report();
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

    /** Whether the peer's application disconnected (its BYE is in the mailbox). */
    boolean peerSaidBye() {
        Hello peer = qp.peer;
        Mailbox.Record r = qp.mailbox.read(Mailbox.BYE);
        return peer != null && r != null && r.incarnation() == peer.incarnation();
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
            counts[0] = qp.receiving.rebuild(bound(), qp.receiveCq);
            qp.lock.lock();
            try {
                if (!qp.connected()) {
                    return;
                }
                Path to = chooseReceivePath();
                if (to == null) {
                    noPathLeft("no path is left to receive on: " + cause);
                    return;
                }
                qp.receiving.log().nextEpoch();
                qp.paths.receive = to.id;
                qp.postReceivesOn(to);
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
            migrated(to);
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
     * Up to which message id the peer's Sends lie whole in this side's buffers: its arrival mark, or
     * what its last REPORT says its proofs showed, whichever is further.
     */
    int bound() {
        int b = qp.mailbox.placedUpTo(qp.markKey());
        Mailbox.Record r = lastPeerReport;
        if (r != null && Integer.compareUnsigned(r.lastReliablySent(), b) > 0) {
            b = r.lastReliablySent();
        }
        return b;
    }

    /**
     * Where receives go now: a live path, the one this side sends on if it works (one path then carries
     * both directions), else one from the adapter this side receives on, else any. Lock held.
     */
    Path chooseReceivePath() {
        Path best = null;
        int bestScore = -1;
        for (Path p : qp.paths.all()) {
            QueuePair q = p.qp;
            if (!p.up || q == null || q.state() != QpState.RTS || !qp.device.usable(p.local)) {
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

    /** Tells the peer (MIGRATED) that this side's receives are on {@code to}, with what arrived here so far. Lock held. */
    private void migrated(Path to) {
        Hello peer = qp.peer;
        lastMigrated = new Mailbox.Record(++mailSeq, Mailbox.MIGRATED, to.id, to.generation, qp.sendLog.lastProvenMessageId(),
                qp.receiving.received(), qp.device.keys().incarnation(), null);
        write(to, lastMigrated, peer);
    }

    /** Tells the peer every path this side lost (REPORT), over a live path. */
    private void report() {
        qp.lock.lock();
        try {
            Hello peer = qp.peer;
            if (peer == null || qp.state == QpState.ERROR) {
                return;
            }
            byte[] lost = new byte[Paths.MAX * Paths.MAX];
            for (Path p : qp.paths.all()) {
                if (!p.up && p.generation > 0) {
                    lost[p.id] = Mailbox.generationByte(p.generation);
                }
            }
            Mailbox.Record r = new Mailbox.Record(++mailSeq, Mailbox.REPORT, 0, 0, qp.sendLog.lastProvenMessageId(),
                    qp.receiving.received(), qp.device.keys().incarnation(), lost);
            Path via = qp.paths.receivePath();
            if (via == null || !via.up) {
                via = chooseReceivePath();
            }
            if (via == null) {
                return; // no path: the connection ends by itself
            }
            write(via, r, peer);
            lastReportVia = via;
            qp.device.tell(new FailoverEvent.Reported(System.nanoTime(), qp.qpNumber, r.lastReliablySent(), r.lastReliablyReceived()));
        } finally {
            qp.lock.unlock();
        }
        qp.device.faults.reached(FaultPoint.DURING_REPORT);
    }

    /** Writes {@code r} into the peer's mailbox over {@code via}; a path that refuses it fails (and the record goes again elsewhere). Lock held. */
    private void write(Path via, Mailbox.Record r, Hello peer) {
        try {
            qp.mailbox.send(via.qp, via.id, peer.mailboxStag(), FailoverQueuePair.CONTROL | MAIL | r.type(), r);
        } catch (RuntimeException e) {
            qp.device.monitor().failover(qp, via, via.qp, "the path refused a mailbox write: " + e.getMessage());
            qp.device.monitor().submit(() -> resend(r.type()));
        }
    }

    /** A mailbox write did not reach the peer: the newest record of its kind goes again over another live path. */
    private void resend(int type) {
        if (type == Mailbox.REPORT) {
            report();
            return;
        }
        if (type != Mailbox.MIGRATED) {
            return; // a BYE goes once: the paths' closes end the connection anyway
        }
        qp.lock.lock();
        try {
            Mailbox.Record last = lastMigrated;
            Hello peer = qp.peer;
            if (last == null || peer == null || !qp.connected()) {
                return;
            }
            Path via = qp.paths.receivePath();
            if (via == null || !via.up) {
                via = chooseReceivePath();
            }
            if (via == null) {
                return;
            }
            write(via, new Mailbox.Record(++mailSeq, Mailbox.MIGRATED, last.path(), last.generation(), last.lastReliablySent(),
                    qp.receiving.received(), last.incarnation(), null), peer);
        } finally {
            qp.lock.unlock();
        }
    }

    /**
     * A completion of the layer's own work on path {@code p}: a mailbox write (its failure sends the
     * record again elsewhere; a BYE that left lets the disconnect go on), a window bound again (its
     * failure is logged and the window no longer claims to be bound), an arrival mark (flushed only).
     */
    void controlCompletion(Path p, long id, WorkCompletion wc) {
        boolean ok = wc.status() == CompletionStatus.SUCCESS;
        long low = id & ~FailoverQueuePair.CONTROL;
        if ((low & MAIL) != 0) {
            int type = (int) (low & 0xFF);
            if (type == Mailbox.BYE && ok) {
                byeSent = true;
            }
            if (!ok && type != Mailbox.BYE) {
                qp.device.monitor().submit(() -> resend(type));
            }
        } else if ((low & REBIND) != 0 && !ok && wc.status() != CompletionStatus.WR_FLUSH_ERR) {
            qp.device.ras.error("window not bound again", "a window of QP " + qp.qpNumber + " could not be bound again on " + p + ": "
                    + wc.status(), "QP " + qp.qpNumber);
            for (FailoverMemoryWindow w : qp.pd.windows()) {
                w.reboundFailed(qp, p.local);
            }
        }
    }

    // ---------------------------------------------------------------- the mailbox

    /**
     * Reads the mailbox: the peer's BYE ends the connection; its REPORT fails here the paths it lost;
     * its MIGRATED moves the Sends to where it receives now. Also fails the paths the peer closed
     * without a BYE once the wait for one is over.
     */
    void checkMailbox() {
        if (!qp.connected()) {
            return;
        }
        Hello peer = qp.peer;
        Mailbox.Record bye = qp.mailbox.read(Mailbox.BYE);
        if (bye == null || !newer(bye.seq(), byeSeq)) {
            for (Path p : qp.paths.all()) {
                QueuePair closed = p.closedQp;
                if (p.closedCause != null && closed != null && closed == p.qp) {
                    failover(p, closed, p.closedCause); // no BYE came within the wait: the path is what failed
                }
            }
        }
        if (bye != null && newer(bye.seq(), byeSeq) && bye.incarnation() == peer.incarnation()) {
            long now = System.nanoTime();
            if (byeSeen == 0) {
                byeSeen = now;
            }
            Path p = qp.paths.sendPath();
            QueuePair q = p == null ? null : p.qp;
            if (q != null && q.state() == QpState.RTS && now - byeSeen < FailoverQueuePair.BYE_WAIT.toNanos()) {
                // the path's own end (the peer's Terminate or close, sent before its BYE over another path) may
                // still be on its way: it, not a flush, gives the work in flight its outcome, as on a plain adapter
                return;
            }
            byeSeq = bye.seq();
            byeSeen = 0;
            endedByPeer();
            return;
        }
        Mailbox.Record r = qp.mailbox.read(Mailbox.REPORT);
        if (r != null && newer(r.seq(), reportSeq) && r.incarnation() == peer.incarnation()) {
            reportSeq = r.seq();
            lastPeerReport = r;
            peerProgress();
            qp.device.tell(new FailoverEvent.PeerReported(System.nanoTime(), qp.qpNumber, r.lastReliablySent(), r.lastReliablyReceived()));
            for (Path p : qp.paths.all()) {
                if (p.up && r.lostPath(p.id, p.generation)) {
                    failover(p, null, "the peer moved off " + p + ": it lost that path");
                }
            }
        }
        Mailbox.Record d = qp.mailbox.read(Mailbox.MIGRATED);
        if (d != null && newer(d.seq(), migratedSeq) && d.incarnation() == peer.incarnation()) {
            Path p = qp.paths.get(d.path());
            if (p != null && p.generation == d.generation() && p.up) {
                migratedSeq = d.seq();
                peerProgress();
                peerMigrated(p, d);
            } else if (p != null && p.generation == d.generation()) {
                migratedSeq = d.seq(); // the peer chose a path this side lost: its REPORT tells it so, and it moves again
                peerProgress();
                report();
            }
            // else the path is being set up here still (its join): the record is taken once it is
        }
    }

    private void peerProgress() {
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

    static boolean newer(int seq, int seen) {
        return Integer.compareUnsigned(seq, seen) > 0;
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

    /**
     * The peer receives on path {@code to} now (its MIGRATED {@code d}): the Sends it holds complete, the
     * Writes before them too, and every other request goes again over {@code to}, in posting order. The
     * path the Sends took before, when it is another, was left by the peer: it fails here too.
     */
    private void peerMigrated(Path to, Mailbox.Record d) {
        Path left = null;
        int sends = 0;
        int writes = 0;
        long pause = 0;
        qp.lock.lock();
        try {
            if (!qp.connected()) {
                return;
            }
            long held = lastHeld(qp.sendLog, d.lastReliablyReceived());
            qp.sendLog.payloadsDone(held, CompletionStatus.SUCCESS, true);
            Path old = qp.paths.sendPath();
            // the same path, on the QP the requests went out on (a path set up again since has a new QP: they are gone)
            boolean inPlace = old == to && to.up && to.generation == qp.sendWireGeneration;
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
                if (FailoverQueuePair.isSend(wr)) {
                    sends++;
                } else if (wr instanceof WorkRequest.RdmaWrite) {
                    writes++;
                }
            }
            qp.proofs().moved(held, sends + writes, inPlace);
            qp.paths.send = to.id;
            sendMoveSince = 0;
            qp.postPending();
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
                noPathLeft("the peer did not move its receives off adapter " + sendMoveFrom + " within "
                        + qp.device.config().moveTimeout().toMillis() + " ms (" + sendMoveCause + ")");
            }
        } finally {
            qp.lock.unlock();
        }
    }

    // ---------------------------------------------------------------- ends

    /** The peer's application ended the connection (its BYE came): it ends here too, as on a plain adapter. */
    private void endedByPeer() {
        qp.lock.lock();
        try {
            if (qp.state == QpState.ERROR) {
                return;
            }
            qp.toError(QpFailure.Kind.PEER_CLOSED, "the peer ended the connection");
        } finally {
            qp.lock.unlock();
        }
        // what the adapters complete (the work that left, flushed what did not) comes first; the rest is flushed after
        long deadline = System.nanoTime() + FailoverQueuePair.BYE_WAIT.toNanos();
        boolean settling = qp.proofs().settle();
        do {
            qp.sendCq.adapterEvent();
        } while (settling && qp.proofs().inFlight() && System.nanoTime() < deadline);
        Path first = qp.paths.get(qp.firstPath >= 0 ? qp.firstPath : qp.paths.send);
        if (first != null && qp.reports(first, AsyncEventType.DISCONNECTED)) {
            qp.raise(AsyncEventType.DISCONNECTED, "the peer ended the connection");
        }
        finish();
    }

    /** No path is left: the connection fails as on a plain adapter (ERROR, every outstanding request flushed). Lock held. */
    void noPathLeft(String cause) {
        if (qp.state == QpState.ERROR) {
            return;
        }
        qp.toError(QpFailure.Kind.TRANSPORT, "no path left: " + cause);
        qp.device.tell(new FailoverEvent.NoPathLeft(System.nanoTime(), qp.qpNumber, cause));
        qp.raise(AsyncEventType.QP_FATAL, "no path left: " + cause);
        qp.device.monitor().submit(this::finish);
    }

    /** A message failed its check ({@code why}): the connection ends, loudly, and the peer is told. */
    void fault(String why) {
        qp.lock.lock();
        try {
            if (qp.state == QpState.ERROR) {
                return;
            }
            qp.device.ras.error("message check failed", why, "QP " + qp.qpNumber);
            sayByeOver(null);
            qp.toError(QpFailure.Kind.LOCAL_ERROR, why);
        } finally {
            qp.lock.unlock();
        }
        qp.raise(AsyncEventType.QP_FATAL, why);
        finish();
    }

    /**
     * The connection's work failed on path {@code failed} (an ordinary verbs error): BYE goes to the peer
     * over another path and every path ends, so that the peer ends the connection too (as a plain
     * adapter's peer would) instead of taking the closes for a failure of the path; then what is left is
     * completed.
     */
    void endedByWork(Path failed) {
        qp.lock.lock();
        try {
            sayByeOver(failed);
        } finally {
            qp.lock.unlock();
        }
        long deadline = System.nanoTime() + FailoverQueuePair.BYE_WAIT.toNanos();
        while (!byeSent && System.nanoTime() < deadline && qp.peer != null) {
            qp.sendCq.adapterEvent();
            Thread.onSpinWait();
        }
        qp.lock.lock();
        try {
            QueuePair q = failed.qp;
            QpFailure f = q == null ? null : q.failure().orElse(null);
            if (qp.state != QpState.ERROR) {
                String detail = f == null ? "its work failed" : f.detail();
                qp.toError(f == null ? QpFailure.Kind.LOCAL_ERROR : f.kind(), detail);
                AsyncEventType type = qp.workErrorEvent;
                qp.workError.set(new dev.tandem.verbs.AsyncErrorException(type == null ? AsyncEventType.QP_FATAL : type,
                        "QP " + qp.qpNumber + " went to ERROR: " + detail + "; its work was flushed"));
            }
        } finally {
            qp.lock.unlock();
        }
        finish();
    }

    /** Writes the BYE over a live path other than {@code not}. Lock held. */
    private void sayByeOver(Path not) {
        Hello peer = qp.peer;
        if (peer == null) {
            return;
        }
        for (Path p : qp.paths.all()) {
            QueuePair q = p.qp;
            if (p != not && p.up && q != null && q.state() == QpState.RTS) {
                try {
                    qp.mailbox.send(q, p.id, peer.mailboxStag(), FailoverQueuePair.CONTROL | MAIL | Mailbox.BYE,
                            new Mailbox.Record(++mailSeq, Mailbox.BYE, p.id, p.generation, qp.sendLog.lastProvenMessageId(),
                                    qp.receiving.received(), qp.device.keys().incarnation(), null));
                    return;
                } catch (RuntimeException e) {
                    // try the next path
                }
            }
        }
    }

    /**
     * Tells the peer the application disconnects, ahead of the paths' closes on the same stream: so the
     * peer ends the connection as a plain adapter would instead of failing over.
     */
    boolean sayBye() {
        qp.lock.lock();
        try {
            Path p = qp.paths.sendPath();
            QueuePair q = p == null ? null : p.qp;
            Hello peer = qp.peer;
            if (peer == null || q == null || !p.up || q.state() != QpState.RTS) {
                return false;
            }
            qp.mailbox.send(q, p.id, peer.mailboxStag(), FailoverQueuePair.CONTROL | MAIL | Mailbox.BYE,
                    new Mailbox.Record(++mailSeq, Mailbox.BYE, p.id, p.generation, qp.sendLog.lastProvenMessageId(), qp.receiving.received(),
                            qp.device.keys().incarnation(), null));
            return true;
        } catch (RuntimeException e) {
            return false; // the path is failing: the peer's paths end by themselves
        } finally {
            qp.lock.unlock();
        }
    }

    /**
     * Completes what is outstanding once the connection ended (the monitor runs it, outside the QP's
     * lock): what the adapters still report first; then the receives that lie whole in their buffers
     * (up to the peer's arrival mark: the sender was told they arrived) are rebuilt, and everything else
     * is flushed, in posting order (Sends before receives). A QP of an SRQ flushes no receive: they are
     * the SRQ's.
     */
    void finish() {
        if (qp.closed) {
            return; // closing completed nothing more: the application let go of the QP
        }
        qp.sendCq.locked(() -> {
            qp.sendCq.drain();
            qp.lock.lock();
            try {
                qp.sendLog.allDone(CompletionStatus.WR_FLUSH_ERR);
                qp.sendsFinished = true;
            } finally {
                qp.lock.unlock();
            }
            qp.proofs().release(qp.sendCq);
        });
        qp.receiveCq.locked(() -> {
            qp.lock.lock();
            try {
                if (qp.closed) {
                    return;
                }
            } finally {
                qp.lock.unlock();
            }
            qp.receiveCq.drain();
            if (qp.peer != null) {
                qp.receiving.rebuild(bound(), qp.receiveCq);
            }
            qp.lock.lock();
            try {
                qp.receivesFinished = true;
                if (qp.srq == null) {
                    qp.receiving.flushAll(qp.receiveCq);
                }
            } finally {
                qp.lock.unlock();
            }
        });
    }
}

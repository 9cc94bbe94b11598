package dev.tandem.failover;

import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;

/**
 * What one connection tells its peer, and reads from it, through the mailboxes ({@link Mailbox}):
 * REPORT (every path this side lost, and what its proofs showed), MIGRATED (where this side receives
 * now, and what arrived), BYE (this side's application ended the connection). Each record written gets
 * the next number; a record read is taken once, newest first. A write a path refuses fails that path,
 * and the newest record of its kind goes again over another.
 *
 * The device's monitor thread reads the mailbox ({@link #check}); writes happen under the connection's lock.
 */
final class PeerMail {
    /** The low bits of a mailbox write (under {@link FailoverQueuePair#CONTROL}), with the record's type. */
    static final long MAIL = 0x400;

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
    /** The path the last REPORT went over (for tests that fail it at {@link FaultPoint#DURING_REPORT}, and dumps). */
    volatile Path lastReportVia;

    PeerMail(FailoverQueuePair qp) {
        this.qp = qp;
    }

    /** A new connection on this QP (it was reset). Lock held. */
    void reset() {
        mailSeq = 0;
        reportSeq = 0;
        migratedSeq = 0;
        byeSeq = 0;
        byeSeen = 0;
        lastPeerReport = null;
        lastMigrated = null;
        byeSent = false;
    }

    boolean byeSent() {
        return byeSent;
    }

    /** Whether the peer's application disconnected (its BYE is in the mailbox). */
    boolean peerSaidBye() {
        Hello peer = qp.peer;
        Mailbox.Record r = qp.mailbox.read(Mailbox.BYE);
        return peer != null && r != null && r.incarnation() == peer.incarnation();
    }

    /**
     * Up to which message id the peer's Sends lie whole in this side's buffers: its arrival mark, or
     * what its last REPORT says its proofs showed, whichever is further.
     */
    int bound() {
        int b = qp.mailbox.placedUpTo(qp.markKey());
        Mailbox.Record r = lastPeerReport;
        return r == null ? b : MessageIds.later(r.lastReliablySent(), b);
    }

    // ---------------------------------------------------------------- writing

    /** Tells the peer (MIGRATED) that this side's receives are on {@code to}, with what arrived here so far. Lock held. */
    void migrated(Path to) {
        lastMigrated = record(Mailbox.MIGRATED, to.id, to.generation, null);
        write(to, lastMigrated, qp.peer);
    }

    /** Tells the peer every path this side lost (REPORT), over a live path. */
    void report() {
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
            Mailbox.Record r = record(Mailbox.REPORT, 0, 0, lost);
            Path via = liveReceivePath();
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

    /** Writes the BYE over a live path other than {@code not}. Lock held. */
    void sayByeOver(Path not) {
        Hello peer = qp.peer;
        if (peer == null) {
            return;
        }
        for (Path p : qp.paths.all()) {
            if (p != not && sayByeOn(p, peer)) {
                return;
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
            Hello peer = qp.peer;
            return peer != null && p != null && sayByeOn(p, peer);
        } finally {
            qp.lock.unlock();
        }
    }

    /** Writes the BYE over path {@code p}, if it runs; false when it does not take it. Lock held. */
    private boolean sayByeOn(Path p, Hello peer) {
        if (!p.runs()) {
            return false;
        }
        try {
            qp.mailbox.send(p.qp, p.id, peer.mailboxStag(), FailoverQueuePair.CONTROL | MAIL | Mailbox.BYE,
                    record(Mailbox.BYE, p.id, p.generation, null));
            return true;
        } catch (RuntimeException e) {
            return false; // the path is failing: another may take it, else the peer's paths end by themselves
        }
    }

    /** This side's next record of {@code type}, with what its proofs showed and what arrived here. Lock held. */
    private Mailbox.Record record(int type, int path, int generation, byte[] lost) {
        return new Mailbox.Record(++mailSeq, type, path, generation, qp.sendLog.lastProvenMessageId(), qp.receiving.received(),
                qp.device.keys().incarnation(), lost);
    }

    /**
     * Where records go: the receive path while it is up and its QP runs, else the path receives would move to.
     * Not a path whose QP ended while it is still up (the peer closed it and this side waits for a BYE): every
     * write there is flushed and would go again at once, over and over until the wait is over. Lock held.
     */
    private Path liveReceivePath() {
        Path via = qp.paths.receivePath();
        return via != null && via.runs() ? via : qp.moves().chooseReceivePath();
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

    /**
     * A mailbox write of record type {@code type} completed ({@code ok}: it reached the peer's memory): a
     * BYE that left lets the disconnect go on; a REPORT or MIGRATED that did not goes again elsewhere.
     */
    void written(int type, boolean ok) {
        if (type == Mailbox.BYE && ok) {
            byeSent = true;
        }
        if (!ok && type != Mailbox.BYE) {
            qp.device.monitor().submit(() -> resend(type));
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
            Path via = liveReceivePath();
            if (via != null) {
                write(via, record(Mailbox.MIGRATED, last.path(), last.generation(), null), peer);
            }
        } finally {
            qp.lock.unlock();
        }
    }

    // ---------------------------------------------------------------- reading

    /**
     * Reads the mailbox: the peer's BYE ends the connection; its REPORT fails here the paths it lost;
     * its MIGRATED moves the Sends to where it receives now. Also fails the paths the peer closed
     * without a BYE once the wait for one is over.
     */
    void check() {
        if (!qp.connected()) {
            return;
        }
        Hello peer = qp.peer;
        ConnectionFailover moves = qp.moves();
        Mailbox.Record bye = qp.mailbox.read(Mailbox.BYE);
        if (bye == null || !newer(bye.seq(), byeSeq)) {
            for (Path p : qp.paths.all()) {
                QueuePair closed = p.closedQp;
                if (p.closedCause != null && closed != null && closed == p.qp) {
                    moves.failover(p, closed, p.closedCause); // no BYE came within the wait: the path is what failed
                }
            }
        }
        if (bye != null && newer(bye.seq(), byeSeq) && bye.incarnation() == peer.incarnation()) {
            long now = System.nanoTime();
            if (byeSeen == 0) {
                byeSeen = now;
            }
            if (now - byeSeen < FailoverQueuePair.BYE_WAIT.toNanos() && carriersEnding()) {
                // a path's own end (the peer's Terminate or close, sent before its BYE over another path, or this
                // side's own refusal of the peer's request, the Terminate that made the peer say BYE) may still be
                // on its way or in the adapter: it, not a flush, gives the work in flight its outcome, as on a plain adapter
                return;
            }
            byeSeq = bye.seq();
            byeSeen = 0;
            qp.ends().endedByPeer();
            return;
        }
        Mailbox.Record r = qp.mailbox.read(Mailbox.REPORT);
        if (r != null && newer(r.seq(), reportSeq) && r.incarnation() == peer.incarnation()) {
            reportSeq = r.seq();
            lastPeerReport = r;
            moves.peerProgressed();
            qp.device.tell(new FailoverEvent.PeerReported(System.nanoTime(), qp.qpNumber, r.lastReliablySent(), r.lastReliablyReceived()));
            for (Path p : qp.paths.all()) {
                if (p.up && r.lostPath(p.id, p.generation)) {
                    moves.failover(p, null, "the peer moved off " + p + ": it lost that path");
                }
            }
        }
        Mailbox.Record d = qp.mailbox.read(Mailbox.MIGRATED);
        if (d != null && newer(d.seq(), migratedSeq) && d.incarnation() == peer.incarnation()) {
            Path p = qp.paths.get(d.path());
            if (p != null && p.generation == d.generation() && p.up) {
                migratedSeq = d.seq();
                moves.peerProgressed();
                moves.peerMigrated(p, d);
            } else if (p != null && p.generation == d.generation()) {
                migratedSeq = d.seq(); // the peer chose a path this side lost: its REPORT tells it so, and it moves again
                moves.peerProgressed();
                report();
            }
            // else the path is being set up here still (its join): the record is taken once it is
        }
    }

    /** Whether the path of the Sends or the path of the receives may still give the work on it its own outcome ({@link Path#ending}). */
    private boolean carriersEnding() {
        Path send = qp.paths.sendPath();
        Path receive = qp.paths.receivePath();
        return send != null && send.ending() || receive != null && receive.ending();
    }

    static boolean newer(int seq, int seen) {
        return Integer.compareUnsigned(seq, seen) > 0;
    }
}

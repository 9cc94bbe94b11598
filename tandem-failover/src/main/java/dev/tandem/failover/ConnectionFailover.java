package dev.tandem.failover;

import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.WorkRequest;

/**
 * The fail-over protocol of one connection ({@link Migration} holds one move's progress): a failed path
 * starts a move or, with no path left, ends the connection as a plain adapter would; REPORT and
 * MIGRATED go through the mailboxes; receives are rebuilt and re-posted, windows bound again, Sends
 * and Writes re-posted; heartbeats find silent links; BYE tells the peer the application ended the
 * connection. The device's monitor thread runs it, under the connection's lock where it changes the
 * connection.
 */
final class ConnectionFailover {
    /** The low bits of a window bound again after a fail-over (under {@link FailoverQueuePair#CONTROL}). */
    private static final long REBIND = 0x100;

    private final FailoverQueuePair qp;
    /** Records this side wrote into the peer's mailbox (each gets the next number). */
    int mailSeq;
    /** The last REPORT, MIGRATED and BYE of the peer this side took. */
    int reportSeq;
    int migratedSeq;
    private int byeSeq;
    /**
     * Per path: when the peer closed it without a BYE (0 while it did not), and why. A peer whose own
     * work failed ends its QP (its adapter closes the connection) before its layer's BYE goes out over
     * another path: so such a close fails the path only after {@link FailoverQueuePair#BYE_WAIT}.
     */
    private final long[] closedSince;
    private final String[] closedWithoutBye;
    /** When the peer's newest BYE was first read (0 while none waits to be taken). */
    private long byeSeen;
    /** The peer's latest REPORT: what its proofs showed arrived here (its LAST RELIABLY SENT). */
    private Mailbox.Record lastPeerReport;
    /** This side's BYE left (its mailbox write completed). */
    volatile boolean byeSent;
    /** Windows bound again on a new path by fail-overs. */
    int windowsRebound;

    ConnectionFailover(FailoverQueuePair qp) {
        this.qp = qp;
        this.closedSince = new long[qp.under.length];
        this.closedWithoutBye = new String[qp.under.length];
    }

    /** Whether path {@code k}'s QP {@code from} was closed by the peer without a BYE less than the wait ago (then it waits). Lock held. */
    private boolean closedByPeer(int k, QueuePair from, String cause) {
        if (from.failure().map(QpFailure::kind).orElse(null) != QpFailure.Kind.PEER_CLOSED) {
            return false;
        }
        long now = System.nanoTime();
        if (closedSince[k] == 0) {
            closedSince[k] = now;
            closedWithoutBye[k] = cause;
        }
        if (now - closedSince[k] < FailoverQueuePair.BYE_WAIT.toNanos()) {
            return true;
        }
        closedSince[k] = 0;
        closedWithoutBye[k] = null;
        return false;
    }

    /**
     * Path {@code k} failed ({@code cause}): a backup path is just marked dead; a path the connection
     * uses starts a fail-over, or, with no path left, ends the connection as a plain adapter would.
     * {@code from} is the adapter QP whose failure is the evidence, or null when the evidence is about
     * the path itself (its adapter, its heartbeat, the peer's REPORT): evidence about a QP the path has
     * since left (a late event or completion of the QP before a heal) says nothing about the path now.
     */
    void failover(int k, QueuePair from, String cause) {
        Migration m;
        qp.lock.lock();
        try {
            if (!qp.connected() || qp.pathDead[k] || (from != null && from != qp.under[k])) {
                return;
            }
            if (from != null && closedByPeer(k, from, cause)) {
                return; // its BYE may still come: the peer's application (or its work's error) may have ended the connection
            }
            qp.pathDead[k] = true;
            qp.heartbeatSent.set(k, 0);
            FailoverQueuePair.modifyQuietly(qp.under[k], QpState.ERROR); // stale: it places nothing more
            if (!qp.uses(k) && qp.migration == null) {
                qp.device.tell(new FailoverEvent.BackupLost(System.nanoTime(), qp.qpNumber, k, cause));
                return;
            }
            if (qp.migration != null && qp.migration.path != k) {
                return;
            }
            int path = choosePath();
            if (path < 0) {
                noPathLeft(cause);
                return;
            }
            m = new Migration(qp.sendPath, path, qp.migration == null ? System.nanoTime() : qp.migration.startNanos);
            qp.migration = m;
            qp.device.tell(new FailoverEvent.Holding(System.nanoTime(), qp.qpNumber, k, path, cause));
        } finally {
            qp.lock.unlock();
        }
        // what the failed adapter's CQs still hold (where they can still be read) comes first
        qp.sendCq.adapterEvent();
        qp.receiveCq.adapterEvent();
        report(m);
    }

    /** The lowest path that works: its adapter usable, its QP connected, not dead. Lock held. */
    private int choosePath() {
        for (int k = 0; k < qp.under.length; k++) {
            if (qp.under[k] != null && !qp.pathDead[k] && qp.peerOf[k] >= 0 && qp.device.usable(k) && qp.under[k].state() == QpState.RTS) {
                return k;
            }
        }
        return -1;
    }

    private void report(Migration m) {
        int sent = qp.sendLog.lastProvenMessageId();
        int received = qp.receivedMessageId;
        try {
            qp.mailbox.send(qp.under[m.path], m.path, qp.peer.mailboxStag(), FailoverQueuePair.CONTROL | Mailbox.REPORT,
                    new Mailbox.Record(++mailSeq, Mailbox.REPORT, m.path, sent, received, qp.device.keys().incarnation()), false);
        } catch (RuntimeException e) {
            failover(m.path, null, "the new path failed while the REPORT went out: " + e.getMessage());
            return;
        }
        m.reported = true;
        qp.device.tell(new FailoverEvent.Reported(System.nanoTime(), qp.qpNumber, sent, received));
        qp.device.faults.reached(FaultPoint.DURING_REPORT);
    }

    /**
     * Reads the mailbox. A new REPORT of the peer starts a fail-over here (the peer moved first) or
     * tells this side what it needs; the receives move once the path is agreed (the connecting side
     * chooses it, the other follows the path its REPORT names); the peer's MIGRATED for that path
     * finishes the fail-over.
     */
    void checkMailbox() {
        if (!qp.connected()) {
            return;
        }
        Mailbox.Record bye = qp.mailbox.read(Mailbox.BYE);
        if (bye == null || !newer(bye.seq(), byeSeq)) {
            for (int k = 0; k < closedWithoutBye.length; k++) {
                String cause = closedWithoutBye[k];
                QueuePair q = qp.under[k];
                if (cause != null && q != null) {
                    failover(k, q, cause); // no BYE came within the wait: the path is what failed
                }
            }
        }
        if (bye != null && newer(bye.seq(), byeSeq) && bye.incarnation() == qp.peer.incarnation()) {
            long now = System.nanoTime();
            if (byeSeen == 0) {
                byeSeen = now;
            }
            int k = qp.sendPath;
            QueuePair q = k < 0 ? null : qp.under[k];
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
        if (r != null && newer(r.seq(), reportSeq) && r.incarnation() == qp.peer.incarnation()) {
            reportSeq = r.seq();
            lastPeerReport = r;
            peerReported(r);
        }
        Migration m = qp.migration;
        if (m == null) {
            return;
        }
        if (m.movedTo != m.path && lastPeerReport != null && (qp.connectedActively || m.agreed)) {
            moveReceives(m, lastPeerReport.lastReliablySent());
            if (qp.migration != m) {
                return; // the path failed while the receives moved: a new fail-over runs now
            }
        }
        Mailbox.Record done = qp.mailbox.read(Mailbox.MIGRATED);
        // the peer's receives are on the path this side moved to: send there
        if (m.movedTo == m.path && done != null && newer(done.seq(), migratedSeq) && done.incarnation() == qp.peer.incarnation()
                && qp.pathTo(done.path()) == m.path) {
            migratedSeq = done.seq();
            peerMigrated(m, done);
        }
    }

    private void peerReported(Mailbox.Record r) {
        int mine = qp.pathTo(r.path());
        Migration m = qp.migration;
        if (m == null) {
            // the peer moved first: leave the paths it left
            int old = qp.sendPath;
            if (old >= 0 && old != mine) {
                failover(old, null, "the peer moved the connection off this path (to its adapter " + r.path() + ")");
            }
            m = qp.migration;
            if (m == null && qp.recvAdapter >= 0 && qp.recvAdapter != mine) {
                failover(qp.recvAdapter, null, "the peer moved the connection off this path (to its adapter " + r.path() + ")");
                m = qp.migration;
            }
            if (m == null) {
                return;
            }
        }
        if (!qp.connectedActively && mine >= 0 && !qp.pathDead[mine] && qp.under[mine] != null) {
            boolean moved = m.path != mine;
            m.path = mine; // the connecting side chooses the path; this side follows it
            m.agreed = true;
            if (moved) {
                report(m); // the REPORT went over the path this side had chosen, which may be the one that failed
            }
        }
        qp.device.tell(new FailoverEvent.PeerReported(System.nanoTime(), qp.qpNumber, r.lastReliablySent(), r.lastReliablyReceived()));
    }

    private static boolean newer(int seq, int seen) {
        return Integer.compareUnsigned(seq, seen) > 0;
    }


    /**
     * Rebuilds what arrived whole, re-posts the other receives on the agreed path, and says MIGRATED for
     * it. Receives already posted on the agreed path, which still works (a simplex connection whose send
     * direction failed), stay where they are: that path's QP completes them itself.
     */
    private void moveReceives(Migration m, int peerSent) {
        int path = m.path;
        if (path == qp.recvAdapter && !qp.pathDead[path] && qp.under[path] != null) {
            m.movedTo = path;
            migrated(path);
            return;
        }
        if (qp.srq != null) {
            int[] rebuilt = new int[1];
            qp.receiveCq.locked(() -> rebuilt[0] = Migration.rebuildShared(qp, qp.srq.log(), qp.receiveCq, peerSent, (int) qp.connectionId));
            m.rebuilt += rebuilt[0];
            String refused = qp.srq.moveTo(path, qp);
            if (refused != null) {
                qp.lock.lock();
                try {
                    noPathLeft("its shared receive queue's receives cannot follow it from adapter " + qp.srq.adapter() + " to adapter "
                            + path + ": " + refused);
                } finally {
                    qp.lock.unlock();
                }
                return;
            }
            qp.recvAdapter = path;
        } else {
            int[] counts = new int[2];
            qp.receiveCq.locked(() -> {
                counts[0] = Migration.rebuild(qp, qp.receiveLog, qp.receiveCq, peerSent);
                for (int slot : qp.receiveLog.inOrder()) {
                    try {
                        qp.under[path].postReceive(qp.receiveLog.onAdapter(slot));
                        counts[1]++;
                    } catch (RuntimeException e) {
                        // the path failed too: its own failure moves the connection again
                    }
                }
            });
            m.rebuilt += counts[0];
            m.receivesReposted = counts[1];
            qp.recvAdapter = path;
        }
        m.movedTo = path;
        migrated(path);
    }

    /**
     * Tells the peer (MIGRATED) that this side's receives are on {@code path}, with what arrived here so
     * far; first the windows bound through this QP are bound again there (ahead of MIGRATED on the same
     * send queue, so the peer's resent accesses find them).
     */
    private void migrated(int path) {
        rebindWindows(path);
        try {
            qp.mailbox.send(qp.under[path], path, qp.peer.mailboxStag(), FailoverQueuePair.CONTROL | Mailbox.MIGRATED,
                    new Mailbox.Record(++mailSeq, Mailbox.MIGRATED, path, qp.sendLog.lastProvenMessageId(), qp.receivedMessageId,
                            qp.device.keys().incarnation()), false);
        } catch (RuntimeException e) {
            failover(path, null, "the new path failed while MIGRATED went out: " + e.getMessage());
        }
    }

    /** Binds again on {@code path} every window bound through this QP on another adapter (the layer's own requests). */
    private void rebindWindows(int path) {
        for (FailoverMemoryWindow w : qp.pd.windows()) {
            if (w.boundOn() == path) {
                continue;
            }
            WorkRequest.BindWindow b = w.rebindOn(path, qp, FailoverQueuePair.CONTROL | REBIND);
            if (b == null) {
                continue;
            }
            try {
                qp.under[path].postSend(b);
                windowsRebound++;
            } catch (RuntimeException e) {
                System.getLogger("dev.tandem.failover").log(System.Logger.Level.WARNING, qp.device.name() + " QP " + qp.qpNumber + ": window "
                        + w + " could not be bound again on adapter " + path + ": " + e.getMessage());
            }
        }
    }

    /**
     * The peer re-posted its receives: the Sends it holds complete, the rest go again over the new path.
     * When the new path is the one the Sends took before and it still works (a simplex connection whose
     * receive direction failed), nothing goes again: that path's QP still holds the rest, in order.
     */
    private void peerMigrated(Migration m, Mailbox.Record done) {
        int sends = 0;
        int writes = 0;
        qp.lock.lock();
        try {
            if (qp.migration != m || qp.pathDead[m.path]) {
                return; // a newer fail-over replaced this one
            }
            long held = Migration.lastHeld(qp.sendLog, done.lastReliablyReceived());
            qp.sendLog.payloadsDone(held, CompletionStatus.SUCCESS, true);
            boolean inPlace = m.path == qp.sendPath && qp.under[m.path] != null && qp.under[m.path].state() == QpState.RTS;
            for (long p = inPlace ? qp.sendLog.next() : qp.sendLog.released(); p < qp.sendLog.next(); p++) {
                WorkRequest wr = qp.sendLog.request(p);
                if (wr == null || qp.sendLog.outcome(p) != null) {
                    continue;
                }
                try {
                    qp.under[m.path].postSend(qp.onAdapter(m.path, wr, p, qp.sendLog.messageId(p)));
                } catch (RuntimeException e) {
                    break; // the new path failed too: its failure moves the connection again
                }
                if (sends + writes == 0) {
                    qp.device.faults.reached(FaultPoint.DURING_REPOST);
                }
                if (FailoverQueuePair.isSend(wr)) {
                    sends++;
                } else if (wr instanceof WorkRequest.RdmaWrite) {
                    writes++;
                }
            }
            qp.proofs().moved(held, sends + writes, inPlace);
            qp.sendPath = m.path;
            long now = System.nanoTime();
            qp.device.tell(new FailoverEvent.Moved(now, qp.qpNumber, m.rebuilt, m.receivesReposted, sends, writes));
            qp.device.tell(new FailoverEvent.Migrated(now, qp.qpNumber, m.path, now - m.startNanos));
            qp.migration = null;
            qp.pathReady.signalAll();
        } finally {
            qp.lock.unlock();
        }
        qp.sendCq.locked(() -> qp.proofs().release(qp.sendCq));
        qp.proofs().proveNow();
    }

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
        // what the adapters complete (the work that left, flushed what did not) comes first; the rest is flushed here
        long deadline = System.nanoTime() + FailoverQueuePair.BYE_WAIT.toNanos();
        boolean settling = qp.proofs().settle();
        do {
            qp.sendCq.adapterEvent();
        } while (settling && qp.proofs().inFlight() && System.nanoTime() < deadline);
        qp.receiveCq.adapterEvent();
        if (qp.reports(qp.firstPath >= 0 ? qp.firstPath : qp.sendPath, dev.tandem.verbs.AsyncEventType.DISCONNECTED)) {
            qp.device.raise(new dev.tandem.verbs.AsyncEvent(dev.tandem.verbs.AsyncEventType.DISCONNECTED, qp,
                    "the peer ended the connection"));
        }
        flushEverything();
    }

    /** A fail-over that did not finish within {@code limitNanos} (the peer does not answer): no path is left. */
    void migrationTimedOut(long now, long limitNanos) {
        Migration m = qp.migration;
        if (m != null && now - m.startNanos > limitNanos) {
            qp.lock.lock();
            try {
                if (qp.migration == m) {
                    noPathLeft("the fail-over did not finish within " + limitNanos / 1_000_000 + " ms: the peer does not answer");
                }
            } finally {
                qp.lock.unlock();
            }
        }
    }

    /** No path is left: the connection fails as on a plain adapter (ERROR, every outstanding request flushed). Lock held. */
    void noPathLeft(String cause) {
        qp.toError(QpFailure.Kind.TRANSPORT, "no path left: " + cause);
        qp.device.tell(new FailoverEvent.NoPathLeft(System.nanoTime(), qp.qpNumber, cause));
        qp.device.raise(new dev.tandem.verbs.AsyncEvent(dev.tandem.verbs.AsyncEventType.QP_FATAL, qp, "no path left: " + cause));
        qp.device.monitor().submit(this::flushEverything);
    }

    /** Completes every outstanding request flushed, receives after sends (the monitor runs it, outside the QP's lock). */
    private void flushEverything() {
        qp.sendCq.adapterEvent();
        qp.receiveCq.adapterEvent();
        qp.sendCq.locked(() -> {
            qp.sendLog.allDone(CompletionStatus.WR_FLUSH_ERR);
            qp.proofs().release(qp.sendCq);
        });
        if (qp.receiveLog != null) {
            qp.receiveCq.locked(() -> {
                for (int slot : qp.receiveLog.inOrder()) {
                    ReceiveRequest r = qp.receiveLog.take(slot);
                    if (r != null) {
                        qp.receiveCq.deliver(qp, -1, r.wrId(), CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.RECV, 0, 0, 0, 0);
                    }
                }
            });
        }
    }

    /**
     * Probes every live path once per heartbeat: an RDMA Read of the peer's proof region; a probe
     * unanswered for {@link FailoverConfig#detection()} is a silent link, and the path fails over.
     * When the monitor itself ran late ({@code slipped}: this process stalled), an overdue probe gets a
     * fresh window instead: this side's engines may not have run to take its answer either.
     * <p>
     * Any thread that polls may take a probe's answer, as soon as the probe is posted: so the probe's time
     * is set before it is posted, and a fresh window replaces only the probe it read, never an answer that
     * came meanwhile (a time written after the answer cleared it would wait for an answer that came already,
     * and fail a healthy path).
     */
    void heartbeat(long now, boolean slipped) {
        if (!qp.connected()) {
            return;
        }
        long limit = qp.device.config().detection().toNanos();
        for (int k = 0; k < qp.under.length; k++) {
            if (qp.under[k] == null || qp.pathDead[k] || qp.peerOf[k] < 0) {
                continue;
            }
            long sent = qp.heartbeatSent.get(k);
            if (sent != 0 && now - sent > limit && slipped) {
                qp.heartbeatSent.compareAndSet(k, sent, now); // the monitor itself was late: the probe gets a fresh window
            } else if (sent != 0 && now - sent > limit) {
                qp.sendCq.adapterEvent(); // an answer that waits unread in the adapter's CQ is an answer
                if (qp.heartbeatSent.get(k) == sent) {
                    qp.device.tell(new FailoverEvent.PathDown(now, k, "silent link: no heartbeat answered on adapter " + k
                            + " for " + (now - sent) / 1_000_000 + " ms"));
                    failover(k, null, "silent link: no heartbeat answered for " + (now - sent) / 1_000_000 + " ms");
                }
            } else if (qp.under[k].state() == QpState.ERROR && qp.brokenPath(k)) {
                // a failure whose event or completion this layer never saw (it came while the path was being set up again)
                QueuePair q = qp.under[k];
                failover(k, q, q.failure().map(QpFailure::detail).orElse("its QP on adapter " + k + " is in ERROR"));
            } else if (sent == 0 && qp.under[k].state() == QpState.RTS) {
                probe(k, now);
            }
        }
    }

    /** Posts path {@code k}'s probe, stamped {@code now} before it goes (its answer may be taken at once). */
    private void probe(int k, long now) {
        qp.lock.lock();
        try {
            qp.heartbeatSent.set(k, now);
            try {
                qp.under[k].postSend(qp.readOfProof(FailoverQueuePair.HEARTBEAT | k));
            } catch (RuntimeException e) {
                qp.heartbeatSent.compareAndSet(k, now, 0); // the path's queue is full or it failed: its failure shows otherwise
                return;
            }
            qp.device.faults.reached(FaultPoint.DURING_HEARTBEAT);
        } finally {
            qp.lock.unlock();
        }
    }

    /**
     * The connection ended in an error of its work on path {@code failed}: BYE goes to the peer over
     * another path, and every other path ends, so that the peer ends the connection too (as a plain
     * adapter's peer would) instead of taking the closes for a failure of the path.
     */
    void tellPeerTheEnd(int failed) {
        qp.lock.lock();
        try {
            for (int k = 0; k < qp.under.length; k++) {
                QueuePair q = qp.under[k];
                if (k != failed && q != null && !qp.pathDead[k] && qp.peerOf[k] >= 0 && q.state() == QpState.RTS && qp.peer != null) {
                    try {
                        qp.mailbox.send(q, k, qp.peer.mailboxStag(), FailoverQueuePair.CONTROL | Mailbox.BYE, new Mailbox.Record(++mailSeq, Mailbox.BYE, k,
                                qp.sendLog.lastProvenMessageId(), qp.receivedMessageId, qp.device.keys().incarnation()), true);
                        break;
                    } catch (RuntimeException e) {
                        // try the next path
                    }
                }
            }
        } finally {
            qp.lock.unlock();
        }
        long deadline = System.nanoTime() + FailoverQueuePair.BYE_WAIT.toNanos();
        while (!byeSent && System.nanoTime() < deadline) {
            qp.sendCq.adapterEvent();
            Thread.onSpinWait();
        }
        qp.lock.lock();
        try {
            for (int k = 0; k < qp.under.length; k++) {
                if (k != failed && qp.under[k] != null) {
                    FailoverQueuePair.modifyQuietly(qp.under[k], QpState.ERROR);
                }
            }
        } finally {
            qp.lock.unlock();
        }
    }

    /**
     * Tells the peer the application disconnects, ahead of the paths' closes on the same stream: so the
     * peer ends the connection as a plain adapter would instead of failing over.
     */
    boolean sayBye() {
        qp.lock.lock();
        try {
            int k = qp.sendPath;
            if (qp.peer == null || k < 0 || qp.under[k] == null || qp.pathDead[k] || qp.under[k].state() != QpState.RTS) {
                return false;
            }
            qp.mailbox.send(qp.under[k], k, qp.peer.mailboxStag(), FailoverQueuePair.CONTROL | Mailbox.BYE,
                    new Mailbox.Record(++mailSeq, Mailbox.BYE, k, qp.sendLog.lastProvenMessageId(), qp.receivedMessageId, qp.device.keys().incarnation()),
                    true);
            return true;
        } catch (RuntimeException e) {
            return false; // the path is failing: the peer's paths end by themselves
        } finally {
            qp.lock.unlock();
        }
    }
}

package dev.tandem.failover;

import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;

/**
 * How one connection ends, each way as on a plain adapter: its application disconnects, moves it to
 * ERROR or back to RESET; the peer's application ended it (its BYE); no path is left; a message failed
 * its check; a completion queue overflowed; or the connection's own work failed. Each goes to ERROR with
 * its cause, then {@link #finish} completes what is outstanding, in posting order.
 *
 * <p>The device's monitor thread runs the ends the layer finds; the application's thread its own.
 */
final class ConnectionEnd {
    private final FailoverQueuePair qp;
    /** Why it went to ERROR, where the layer itself decided; null otherwise. */
    private volatile QpFailure cause;

    ConnectionEnd(FailoverQueuePair qp) {
        this.qp = qp;
    }

    /** Why the connection went to ERROR, where the layer itself decided; null otherwise. */
    QpFailure cause() {
        return cause;
    }

    /**
     * The connection ends here ({@code kind}, {@code detail} unless it had a cause already): ERROR, no
     * move runs any more, waiters wake, every path's QP goes to ERROR. Lock held. The caller then has
     * the monitor {@link #finish} what is outstanding.
     */
    void toError(QpFailure.Kind kind, String detail) {
        ended(kind, detail);
        qp.state = QpState.ERROR;
        qp.moves().stopMoving();
        qp.pathReady.signalAll();
        for (Path p : qp.paths.all()) {
            QueuePair q = p.qp;
            if (q != null) {
                FailoverQueuePair.modifyQuietly(q, QpState.ERROR);
            }
        }
    }

    /** The connection goes to ERROR for this cause, unless it had one already. Lock held. */
    private void ended(QpFailure.Kind kind, String detail) {
        if (cause == null) {
            cause = new QpFailure(kind, detail);
        }
    }

    /** A completion queue of the connection overflowed: it ends (completions were lost). */
    void overflowed() {
        qp.lock.lock();
        try {
            if (qp.state != QpState.ERROR) {
                toError(QpFailure.Kind.LOCAL_ERROR, "a completion queue of QP " + qp.qpNumber + " overflowed");
            }
        } finally {
            qp.lock.unlock();
        }
        qp.device.monitor().submit(this::finish);
    }

    /** The application disconnects: BYE first (so the peer ends too, instead of failing over), then every path closes. */
    void disconnect() {
        if (qp.mail().sayBye()) {
            // the BYE leaves before the closes: a close would flush it from the adapter's queue
            long deadline = System.nanoTime() + FailoverQueuePair.BYE_WAIT.toNanos();
            while (!qp.mail().byeSent() && System.nanoTime() < deadline) {
                qp.sendCq.adapterEvent();
                Thread.onSpinWait();
            }
        }
        qp.lock.lock();
        try {
            disconnectAll();
            ended(QpFailure.Kind.CONSUMER, "disconnected by the consumer");
            qp.state = QpState.ERROR;
            qp.moves().stopMoving();
            qp.pathReady.signalAll();
        } finally {
            qp.lock.unlock();
        }
        qp.device.monitor().submit(this::finish);
    }

    /** Disconnects every path (its QP's connection closes). */
    void disconnectAll() {
        for (Path p : qp.paths.all()) {
            QueuePair q = p.qp;
            if (q != null) {
                try {
                    q.disconnect();
                } catch (RuntimeException e) {
                    // the path failed already
                }
            }
        }
        if (qp.connectionId != 0) {
            qp.device.disconnected(qp.connectionId);
        }
    }

    /** Back to RESET: every path goes, the connection is forgotten, the logs are empty. Lock held. */
    void reset() {
        for (Path p : qp.paths.all()) {
            qp.setup().dropQp(p);
        }
        if (qp.connectionId != 0) {
            qp.device.disconnected(qp.connectionId);
        }
        qp.paths.clear();
        qp.firstPath = Paths.NONE;
        qp.reported.clear();
        qp.peer = null;
        qp.connectionId = 0;
        qp.sending().reset();
        qp.receiving.reset();
        qp.moves().reset();
        qp.mail().reset();
        qp.proofs().reset();
        qp.sendLog.clear();
        qp.receivePosting().clear();
        qp.mailbox.clear();
        cause = null;
        qp.endedByError = false;
        qp.sendsFinished = false;
        qp.receivesFinished = false;
        qp.state = QpState.RESET;
    }

    /** The peer's application ended the connection (its BYE came): it ends here too, as on a plain adapter. */
    void endedByPeer() {
        qp.lock.lock();
        try {
            if (qp.state == QpState.ERROR) {
                return;
            }
            toError(QpFailure.Kind.PEER_CLOSED, "the peer ended the connection");
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
        toError(QpFailure.Kind.TRANSPORT, "no path left: " + cause);
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
            qp.mail().sayByeOver(null);
            toError(QpFailure.Kind.LOCAL_ERROR, why);
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
            qp.mail().sayByeOver(failed);
        } finally {
            qp.lock.unlock();
        }
        long deadline = System.nanoTime() + FailoverQueuePair.BYE_WAIT.toNanos();
        while (!qp.mail().byeSent() && System.nanoTime() < deadline && qp.peer != null) {
            qp.sendCq.adapterEvent();
            Thread.onSpinWait();
        }
        qp.lock.lock();
        try {
            QueuePair q = failed.qp;
            QpFailure f = q == null ? null : q.failure().orElse(null);
            if (qp.state != QpState.ERROR) {
                String detail = f == null ? "its work failed" : f.detail();
                toError(f == null ? QpFailure.Kind.LOCAL_ERROR : f.kind(), detail);
                AsyncEventType type = qp.workErrorEvent;
                qp.workError.set(new AsyncErrorException(type == null ? AsyncEventType.QP_FATAL : type,
                        "QP " + qp.qpNumber + " went to ERROR: " + detail + "; its work was flushed"));
            }
        } finally {
            qp.lock.unlock();
        }
        finish();
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
                qp.receiving.rebuild(qp.mail().bound(), qp.receiveCq);
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


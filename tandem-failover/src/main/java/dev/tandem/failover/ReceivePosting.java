package dev.tandem.failover;

import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.ReceiveRequest;

/**
 * How one connection posts the application's receives: each is logged first ({@link ReceiveLog}), then
 * posted on the receive path when it runs and no move holds it; the move (or the path's set-up) posts
 * the rest ({@link #postAllOn}). A QP of a shared receive queue posts none: its SRQ does.
 */
final class ReceivePosting implements AutoCloseable {
    private final FailoverQueuePair qp;
    /** The connection's own receives (null for a QP of an SRQ). */
    private final ReceiveLog log;
    /** "receive queue of QP n", for the queue-full message (made once: a post builds no string). */
    private final String queueName;

    ReceivePosting(FailoverQueuePair qp, ReceiveLog log) {
        this.qp = qp;
        this.log = log;
        this.queueName = "receive queue of QP " + qp.qpNumber;
    }

    /** Posts the application's receive {@code request} (its QP is usable): logged, and on the receive path when it runs. */
    void post(ReceiveRequest request) {
        if (request == null) {
            throw new InvalidArgumentException("postReceive: request is null");
        }
        if (qp.srq != null) {
            throw new InvalidStateException("QP " + qp.qpNumber + " takes its receive buffers from a shared receive queue; post to the SRQ");
        }
        if (qp.state == QpState.RESET) {
            throw new InvalidStateException("postReceive on QP " + qp.qpNumber + " in state RESET; move it to INIT first");
        }
        if (request.sgl().size() > qp.config.maxReceiveSge()) {
            throw new InvalidArgumentException("receive wrId " + request.wrId() + " on QP " + qp.qpNumber + ": " + request.sgl().size()
                    + " SGEs exceed maxReceiveSge " + qp.config.maxReceiveSge());
        }
        PostChecks.receive(request, qp.pd, qp.config.maxReceiveSge(), "QP", qp.qpNumber);
        AsyncErrorException told = qp.workError.getAndSet(null);
        if (told != null) {
            throw told;
        }
        boolean flushNow;
        qp.lock.lock();
        try {
            int slot = log.claim(request, queueName, qp.config.receiveDepth());
            flushNow = qp.state == QpState.ERROR && qp.receivesFinished;
            if (flushNow) {
                log.takeSlot(slot);
            } else if (qp.state != QpState.ERROR) {
                Path p = qp.paths.receivePath();
                if (takesReceives(p) && !qp.moves().receivesMoving()) {
                    postOn(p, slot);
                }
                // else logged only: the receive path's set-up or the move posts it
            }
            // in ERROR, before the layer flushed: it is flushed with the rest, in order
        } finally {
            qp.lock.unlock();
        }
        if (flushNow) {
            qp.receiveCq.deliver(qp, -1, request.wrId(), CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.RECV, 0, 0, 0, 0);
        }
    }

    /**
     * Whether receives go to path {@code p}'s QP now: while it is up, and also while it is being set up
     * (its QP not failed): the peer may send as soon as its own end is up, before this end's set-up returns.
     */
    private static boolean takesReceives(Path p) {
        QueuePair q = p == null ? null : p.qp;
        return q != null && (p.up || q.state() != QpState.ERROR);
    }

    /** Posts logged receive {@code slot} on path {@code p}'s QP. Lock held. */
    private void postOn(Path p, int slot) {
        QueuePair q = p.qp;
        try {
            q.postReceive(log.onAdapter(slot));
        } catch (RuntimeException e) {
            if (qp.connected() && qp.brokenPath(p)) {
                qp.device.monitor().failover(qp, p, q, e.getMessage()); // it stays logged: the move posts it
                return;
            }
            log.unclaim(slot);
            throw e;
        }
    }

    /** Posts every logged receive not posted in this epoch on path {@code p} (its receive path now), in order. Lock held. */
    void postAllOn(Path p) {
        if (log == null) {
            return;
        }
        for (int slot : log.inOrder()) {
            if (log.unposted(slot)) {
                postOn(p, slot);
            }
        }
    }

    /** A receive whose buffer got a duplicate goes back where receives are posted now. */
    void repost(ReceiveRequest r) {
        if (qp.srq != null) {
            qp.srq.repost(r);
            return;
        }
        qp.lock.lock();
        try {
            int slot = log.claim(r, queueName, Integer.MAX_VALUE);
            Path p = qp.paths.receivePath();
            if (qp.state != QpState.ERROR && takesReceives(p) && !qp.moves().receivesMoving()) {
                postOn(p, slot);
            }
        } finally {
            qp.lock.unlock();
        }
    }

    /** A receive taken for a message that failed its check: logged again, first, for the connection's end to flush. */
    void putBack(ReceiveRequest r) {
        if (qp.srq != null) {
            qp.srq.repost(r); // the SRQ's buffers are not the connection's to flush
        } else {
            log.putFirst(r);
        }
        String why = qp.receiving.fault();
        qp.device.monitor().submit(() -> qp.ends().fault(why == null ? "a message failed its check" : why));
    }

    /** A new connection on this QP: every logged receive is forgotten. Lock held. */
    void clear() {
        if (log != null) {
            for (int slot : log.inOrder()) {
                log.takeSlot(slot);
            }
        }
    }

    @Override
    public void close() {
        Quietly.close(log);
    }
}

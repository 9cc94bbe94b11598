package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.LocalProtectionException;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueueFullException;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * How one connection posts the application's send-queue work: each request is logged first
 * ({@link SendLog}, INLINE payloads copied by {@link InlineCopies}), then posted on its path in
 * posting order when that path runs and no move holds it; else the move (or the path's set-up) posts
 * it later ({@link #postPending}). On the adapter a request's id is its log position, a Send carries
 * its {@link FailoverHeader} in front of its payload, and only every {@link FailoverQueuePair#SIGNAL_EVERY}-th
 * request is signalled.
 */
final class SendPosting implements AutoCloseable {
    private final FailoverQueuePair qp;
    private final Arena arena = Arena.ofShared();
    /** One header per send slot, registered with the session's adapters. */
    private final MemorySegment headers;
    private final FailoverMemoryRegion headerRegion;
    /** Each send slot's header gather element, made once. */
    private final Sge[] headerSge;
    private final InlineCopies inline;
    /** The message id of the last Send posted. */
    private int sentMessageId;
    /** The generation of the send path's QP the requests on the wire went out on. */
    private volatile int wireGeneration;

    /** Sets up the headers and INLINE copies of {@code qp}'s send queue (none is left behind when it throws). */
    SendPosting(FailoverQueuePair qp) {
        this.qp = qp;
        int depth = qp.config.sendDepth();
        FailoverMemoryRegion region = null;
        try {
            this.headers = arena.allocate((long) depth * FailoverHeader.LENGTH, 8);
            region = qp.pd.registerInternal(headers, Access.LOCAL_WRITE);
            this.inline = new InlineCopies(qp.pd::registerInternal, depth, qp.config.maxInlineData());
        } catch (RuntimeException e) {
            Quietly.close(region);
            arena.close();
            throw e;
        }
        this.headerRegion = region;
        this.headerSge = new Sge[depth];
        for (int i = 0; i < depth; i++) {
            headerSge[i] = new Sge(region, (long) i * FailoverHeader.LENGTH, FailoverHeader.LENGTH);
        }
    }

    /** The message id of the last Send posted. */
    int sentMessageId() {
        return sentMessageId;
    }

    /** The generation of the send path's QP the requests on the wire went out on. */
    int wireGeneration() {
        return wireGeneration;
    }

    /** A new connection: no Send posted yet. Lock held. */
    void reset() {
        sentMessageId = 0;
    }

    /** Posts the application's {@code request} (its QP is usable): logged, and on the wire when its path runs. */
    void post(WorkRequest request) {
        if (request == null) {
            throw new InvalidArgumentException("postSend: request is null");
        }
        QpState s = qp.state;
        if (s != QpState.ERROR && s != QpState.RTS && s != QpState.SQD) {
            throw new InvalidStateException("postSend on QP " + qp.qpNumber + " in state " + s
                    + ": sends may be posted in RTS (connect the QP or accept a request onto it first)");
        }
        if (s != QpState.ERROR) {
            PostChecks.send(request, qp.pd, qp.config.maxSendSge(), qp.qpNumber);
            checkSend(request);
        }
        AsyncErrorException told = qp.workError.getAndSet(null);
        if (told != null) {
            throw told; // the connection's work failed: the first post after it says so, once, as on a plain adapter
        }
        boolean prove = false;
        long bindToAwait = -1;
        boolean flush = false;
        qp.lock.lock();
        try {
            if (qp.state == QpState.ERROR) {
                flush = flushInOrder(request);
                if (!flush) {
                    return;
                }
            } else {
                int messageId = SendLog.isSend(request) ? MessageIds.next(sentMessageId) : 0;
                long seq = qp.sendLog.add(request, messageId);
                if (seq < 0) {
                    throw new QueueFullException("send queue of QP " + qp.qpNumber + " is full (" + qp.config.sendDepth()
                            + " requests outstanding); poll completions before posting more");
                }
                WorkRequest logged = request;
                if (WrFlags.has(request.flags(), WrFlags.INLINE)) {
                    try {
                        logged = inline.copy(request, qp.sendLog.slot(seq));
                    } catch (RuntimeException e) {
                        qp.sendLog.dropLast();
                        throw e;
                    }
                    qp.sendLog.replace(seq, logged);
                }
                qp.device.faults.reached(FaultPoint.BEFORE_POST); // a fault here meets whatever the post finds next
                if (request instanceof WorkRequest.RdmaRead) {
                    qp.proofs().markBeforeRead(); // a Read that completes proves the Sends before it: the peer learns where they end
                }
                Path p = pathFor(logged);
                if (p != null && p.up && !qp.moves().sendMoving() && qp.sendLog.unsentFrom(qp.sendLog.released()) == seq) {
                    try {
                        postOn(p, logged, seq, messageId);
                    } catch (RuntimeException e) {
                        qp.sendLog.dropLast();
                        throw e;
                    }
                }
                // else: logged only; the move (or the send path's set-up) posts it, in order
                if (SendLog.isSend(request)) {
                    sentMessageId = messageId;
                }
                if (SendLog.isPayload(request)) {
                    prove = qp.proofs().posted();
                }
                if (request instanceof WorkRequest.BindWindow && p != null && p.id != qp.paths.send && p.up) {
                    bindToAwait = seq; // bound where the peer's accesses arrive: the Sends that name it wait for it
                }
            }
        } finally {
            qp.lock.unlock();
        }
        if (flush) {
            qp.sendCq.deliver(qp, -1, request.wrId(), CompletionStatus.WR_FLUSH_ERR, SendLog.opcodeOf(request), 0, 0, 0, 0);
            return;
        }
        if (prove) {
            qp.proofs().proveNow();
        }
        if (bindToAwait >= 0) {
            awaitOutcome(bindToAwait);
        }
    }

    /**
     * Posts logged request {@code seq} on path {@code p}; when the path broke under it, it stays logged
     * (the move posts it again). Throws what the adapter refused otherwise (the caller then drops it from
     * the log). Lock held.
     */
    private void postOn(Path p, WorkRequest logged, long seq, int messageId) {
        QueuePair q = p.qp;
        try {
            q.postSend(onAdapter(p, logged, seq, messageId));
            qp.sendLog.sent(seq);
            if (p.id == qp.paths.send) {
                wireGeneration = p.generation;
            }
        } catch (RuntimeException e) {
            if (!qp.brokenPath(p)) {
                throw e; // refused as on a plain adapter (an AsyncErrorException tells the QP's error once)
            }
            qp.device.monitor().failover(qp, p, q, e.getMessage());
        }
    }

    /**
     * Posts, in order, every logged request that waits to be posted, on the send path (windows' binds
     * and invalidates on the receive path). Stops at the first the path refuses. Lock held.
     */
    void postPending() {
        long p = qp.sendLog.unsentFrom(qp.sendLog.released());
        while (p >= 0) {
            WorkRequest wr = qp.sendLog.request(p);
            Path path = pathFor(wr);
            if (path == null || !path.up) {
                return;
            }
            try {
                path.qp.postSend(onAdapter(path, wr, p, qp.sendLog.messageId(p)));
                qp.sendLog.sent(p);
                if (path.id == qp.paths.send) {
                    wireGeneration = path.generation;
                }
            } catch (RuntimeException e) {
                if (!qp.brokenPath(path)) {
                    qp.sendLog.done(p, CompletionStatus.WR_FLUSH_ERR, 0); // refused as a plain adapter would in ERROR
                } else {
                    qp.device.monitor().failover(qp, path, path.qp, e.getMessage());
                    return;
                }
            }
            p = qp.sendLog.unsentFrom(p + 1);
        }
    }

    /** Where a request goes: binds and invalidates of windows where the peer's accesses arrive (the receive path), the rest on the send path. */
    private Path pathFor(WorkRequest r) {
        if (r instanceof WorkRequest.BindWindow || (r instanceof WorkRequest.LocalInvalidate l && qp.pd.isWindow(l.stag()))) {
            return qp.paths.receivePath();
        }
        return qp.paths.sendPath();
    }

    /** Waits (bounded) until the request at {@code seq} has an outcome: a bind on another path than the Sends that follow it. */
    private void awaitOutcome(long seq) {
        long deadline = System.nanoTime() + qp.device.config().moveTimeout().toNanos();
        while (qp.sendLog.outcome(seq) == null && qp.sendLog.released() <= seq && qp.state != QpState.ERROR && System.nanoTime() < deadline) {
            qp.sendCq.adapterEvent();
            Thread.onSpinWait();
        }
    }

    /**
     * A post in ERROR: logged as flushed, so it completes after what was posted before it; false when
     * nothing is outstanding (then the caller completes it at once, as a plain adapter does). Lock held.
     */
    private boolean flushInOrder(WorkRequest request) {
        if (qp.sendsFinished && qp.sendLog.allHandedOver()) {
            return true;
        }
        long seq = qp.sendLog.add(request, 0);
        if (seq < 0) {
            throw new QueueFullException("send queue of QP " + qp.qpNumber + " is full (" + qp.config.sendDepth()
                    + " requests outstanding); poll completions before posting more");
        }
        qp.sendLog.done(seq, CompletionStatus.WR_FLUSH_ERR, 0);
        qp.sendLog.sent(seq);
        if (qp.sendsFinished) {
            qp.device.monitor().submit(() -> qp.sendCq.locked(() -> qp.proofs().release(qp.sendCq)));
        }
        return false;
    }

    /** Checks what the adapter cannot check the way the application wrote it (its SGE count excludes the header). */
    private void checkSend(WorkRequest request) {
        if (SendLog.isPayload(request)) {
            long length = request.length();
            if (length > qp.device.attributes().maxMessageSize()) {
                throw new InvalidArgumentException(request.getClass().getSimpleName() + " wrId " + request.wrId() + " on QP " + qp.qpNumber
                        + ": message of " + length + " bytes exceeds the maximum of " + qp.device.attributes().maxMessageSize());
            }
            if (WrFlags.has(request.flags(), WrFlags.INLINE) && length > qp.config.maxInlineData()) {
                throw new InvalidArgumentException(request.getClass().getSimpleName() + " wrId " + request.wrId() + " on QP " + qp.qpNumber
                        + ": INLINE payload of " + length + " bytes exceeds maxInlineData " + qp.config.maxInlineData());
            }
        }
        if (WrFlags.has(request.flags(), WrFlags.INLINE) && !SendLog.isPayload(request)) {
            throw new InvalidArgumentException(request.getClass().getSimpleName() + " wrId " + request.wrId() + " on QP " + qp.qpNumber
                    + ": INLINE applies to Sends and RDMA Writes only (their payload is copied at post time); post this request without INLINE");
        }
        if (request.sgl().size() > qp.config.maxSendSge()) {
            throw new InvalidArgumentException(request.getClass().getSimpleName() + " wrId " + request.wrId() + " on QP " + qp.qpNumber
                    + ": " + request.sgl().size() + " SGEs exceed maxSendSge " + qp.config.maxSendSge());
        }
        if (request instanceof WorkRequest.BindWindow b && (!(b.window() instanceof FailoverMemoryWindow w) || w.pd() != qp.pd)) {
            throw new LocalProtectionException("QP " + qp.qpNumber + " BindWindow wrId " + b.wrId() + ": window " + b.window()
                    + " is not a window of this QP's protection domain");
        }
        if (request instanceof WorkRequest.RdmaRead r && qp.negotiatedOrd == 0) {
            throw new InvalidStateException("QP " + qp.qpNumber + " RdmaRead wrId " + r.wrId()
                    + ": RDMA Read needs ORD of at least 1, but the connection negotiated ORD 0 (the peer offered IRD 0)");
        }
    }

    /** The request as path {@code p}'s QP runs it: ids are log positions; Sends get their header; only what ends a batch is signalled. */
    WorkRequest onAdapter(Path p, WorkRequest request, long seq, int messageId) {
        // the adapter frees its queue's slots only behind a signalled request: every SIGNAL_EVERY-th is
        // (its success says only that it left, not that it arrived: a proof or the peer's ack says that)
        int flags = request.flags() & ~WrFlags.SIGNALED | (seq % FailoverQueuePair.SIGNAL_EVERY == FailoverQueuePair.SIGNAL_EVERY - 1 ? WrFlags.SIGNALED : 0);
        return switch (request) {
            case WorkRequest.Send s -> new WorkRequest.Send(seq, withHeader(seq, FailoverHeader.TYPE_SEND, s, messageId, 0), flags);
            case WorkRequest.SendWithInvalidate s -> new WorkRequest.SendWithInvalidate(seq,
                    withHeader(seq, FailoverHeader.TYPE_SEND_INVALIDATE, s, messageId, s.invalidateStag()), s.invalidateStag(), flags);
            case WorkRequest.RdmaWrite w -> new WorkRequest.RdmaWrite(seq, w.sgl(), w.remoteOffset(), w.rkey(), flags);
            case WorkRequest.RdmaRead r -> new WorkRequest.RdmaRead(seq, r.sgl(), r.remoteOffset(), r.rkey(), flags | WrFlags.SIGNALED);
            case WorkRequest.BindWindow b -> {
                FailoverMemoryWindow w = (FailoverMemoryWindow) b.window();
                w.bindingOn(p.local);
                yield new WorkRequest.BindWindow(seq, w.under(p.local), b.region(), b.offset(), b.windowLength(), b.access(), b.newKey(),
                        flags | WrFlags.SIGNALED);
            }
            case WorkRequest.LocalInvalidate l -> new WorkRequest.LocalInvalidate(seq, l.stag(), flags | WrFlags.SIGNALED);
        };
    }

    private List<Sge> withHeader(long seq, int type, WorkRequest send, int messageId, int invalidate) {
        int slot = qp.sendLog.slot(seq);
        long at = (long) slot * FailoverHeader.LENGTH;
        int flags = WrFlags.has(send.flags(), WrFlags.SOLICITED) ? FailoverHeader.FLAG_SOLICITED : 0;
        FailoverHeader.write(headers, at, type, flags, messageId, qp.receiving.received(), qp.peer.session(),
                (int) send.length(), invalidate, qp.device.keys().incarnation());
        return FailoverHeader.inFront(headerSge[slot], send.sgl());
    }

    @Override
    public void close() {
        Quietly.close(inline);
        headerRegion.close();
        arena.close();
    }
}

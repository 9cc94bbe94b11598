package dev.tandem.provider;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.LocalProtectionException;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueueFullException;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The transport-neutral half of a reliable-connected QP: its state and the verbs' transitions, its
 * configuration checked against the adapter, the send queue, the receive queue (or the SRQ it takes
 * receives from), the CQs it holds a use of, the post-time checks of work requests, completion
 * generation, flush, and the local operations on STags (bind, local and remote invalidate). The
 * transport's QP owns the connection and decides when to move, post, complete and flush; this class
 * does each the same way for every transport.
 */
public final class QueuePairCore {
    /** What a remote invalidate (a peer's Send with Invalidate) found; the transport answers each refusal its own way. */
    public enum RemoteInvalidate {
        /** The STag is now invalid (or was already: the verbs allow invalidating twice). */
        DONE,
        /** No live STag with this index and key: this adapter never issued it. */
        NOT_ISSUED,
        /** The STag belongs to another PD, or is a window bound to another QP: not this connection's to invalidate. */
        NOT_THIS_QPS
    }

    private final DeviceCore device;
    private final KitProtectionDomain pd;
    private final QueuePairConfig config;
    private final int qpNumber;
    private final SendQueue sq;
    private final MpmcRing<ReceiveRequest> rq;
    private final KitCompletionQueue sendCq;
    private final KitCompletionQueue receiveCq;
    private final KitSharedReceiveQueue srq;
    private final AtomicBoolean queuesDetached = new AtomicBoolean();
    private final AtomicReference<QpState> state = new AtomicReference<>(QpState.INIT);

    /**
     * Checks {@code config} against the adapter's attributes and takes a use of its CQs and SRQ (so
     * none can be closed under the QP); all or none.
     *
     * @throws InvalidArgumentException  when a depth, SGE count, inline size or IRD/ORD is over the
     *                                   adapter's maximum, or a CQ or SRQ is not this adapter's or PD's
     * @throws ResourceClosedException when a CQ or the SRQ is closed
     */
    public QueuePairCore(KitProtectionDomain pd, QueuePairConfig config, int qpNumber) {
        this.device = pd.core();
        DeviceAttributes attrs = device.attributes();
        Validation.checkQueuePairConfig(config, attrs);
        this.sendCq = ownCq(config.sendCq(), "send");
        this.receiveCq = ownCq(config.receiveCq(), "receive");
        if (config.srq() != null && (!(config.srq() instanceof KitSharedReceiveQueue s) || s.pd() != pd)) {
            throw new InvalidArgumentException("the shared receive queue must belong to the same protection domain as the QP");
        }
        this.srq = (KitSharedReceiveQueue) config.srq();
        attachQueues();
        this.pd = pd;
        this.config = config;
        this.qpNumber = qpNumber;
        this.sq = new SendQueue(config.sendDepth(), config.maxInlineData());
        this.rq = srq == null ? new MpmcRing<>(config.receiveDepth()) : null;
    }

    private KitCompletionQueue ownCq(Object cq, String which) {
        if (cq instanceof KitCompletionQueue c && c.isClosed()) {
            throw new ResourceClosedException("the " + which + " CQ is closed; create the QP with an open CQ");
        }
        if (!(cq instanceof KitCompletionQueue c) || !device.holds(c)) {
            throw new InvalidArgumentException("the " + which + " CQ was not created on adapter " + device.name());
        }
        return c;
    }

    private void attachQueues() {
        if (!sendCq.users().attach()) {
            throw new ResourceClosedException("the send CQ is closed; create the QP with an open CQ");
        }
        if (!receiveCq.users().attach()) {
            sendCq.users().detach();
            throw new ResourceClosedException("the receive CQ is closed; create the QP with an open CQ");
        }
        if (srq != null && !srq.users().attach()) {
            sendCq.users().detach();
            receiveCq.users().detach();
            throw new ResourceClosedException("the shared receive queue is closed; create the QP with an open SRQ");
        }
    }

    /** Gives back the uses of the CQs and the SRQ (once; the QP closed or its creation failed). */
    public void detachQueues() {
        if (!queuesDetached.compareAndSet(false, true)) {
            return;
        }
        sendCq.users().detach();
        receiveCq.users().detach();
        if (srq != null) {
            srq.users().detach();
        }
    }

    public KitProtectionDomain pd() {
        return pd;
    }

    public QueuePairConfig config() {
        return config;
    }

    public SendQueue sendQueue() {
        return sq;
    }

    /** True when the QP takes its receives from a shared receive queue. */
    public boolean usesSrq() {
        return srq != null;
    }

    /** Receives posted and not yet consumed (-1 when the QP takes them from an SRQ), for dumps. */
    public int receivesPosted() {
        return rq == null ? -1 : rq.size();
    }

    /** Largest scatter/gather list of a receive (the SRQ's, when the QP takes receives from one). */
    public int maxReceiveSge() {
        return srq != null ? srq.maxSge() : config.maxReceiveSge();
    }

    // ---------------------------------------------------------------- state

    public QpState state() {
        return state.get();
    }

    public boolean inError() {
        return state.get() == QpState.ERROR;
    }

    /**
     * Checks a consumer's move to {@code target} against the verbs' transitions; returns the state it
     * moves from.
     *
     * @throws InvalidArgumentException when {@code target} is null
     * @throws InvalidStateException    when the QP may not move there from where it is (the message lists where it may)
     */
    public QpState checkModify(QpState target) {
        if (target == null) {
            throw new InvalidArgumentException("modify: target state is null");
        }
        QpState current = state.get();
        if (!current.canModifyTo(target)) {
            throw new InvalidStateException("QP " + qpNumber + " cannot move from " + current + " to " + target
                    + "; allowed from " + current + ": " + Arrays.stream(QpState.values()).filter(current::canModifyTo).toList());
        }
        return current;
    }

    /** Moves to {@code target} (checked by {@link #checkModify}, or RESET after ERROR). */
    public void moveTo(QpState target) {
        state.set(target);
    }

    /** The connection is up: INIT or RTR moves to RTS; false when the QP left them meanwhile. */
    public boolean established() {
        return state.compareAndSet(QpState.INIT, QpState.RTS) || state.compareAndSet(QpState.RTR, QpState.RTS);
    }

    /** Moves to ERROR; returns the state it left, ERROR when it was there already (the caller then has nothing to flush). */
    public QpState enterError() {
        return state.getAndSet(QpState.ERROR);
    }

    /** Throws unless sends may be posted now: in RTS, in SQD, or in ERROR (where they complete flushed). */
    public void checkSendState() {
        QpState s = state.get();
        if (s != QpState.RTS && s != QpState.SQD && s != QpState.ERROR) {
            throw new InvalidStateException("postSend on QP " + qpNumber + " in state " + s
                    + ": sends may be posted in RTS (connect the QP or accept a request onto it first)");
        }
    }

    // ---------------------------------------------------------------- posting

    /** "QP 3 RdmaWrite wrId 7": how errors name a request. */
    private String what(WorkRequest request) {
        return Validation.what("QP", qpNumber, request.getClass().getSimpleName(), request.wrId());
    }

    /**
     * Checks a send work request: flags, scatter/gather list (count, region, PD, bounds, rights),
     * message size, inline size, and what applies to which request. {@code ord} is the connection's
     * negotiated ORD, or -1 before the QP is connected.
     */
    public void checkSend(WorkRequest request, int ord) {
        if ((request.flags() & ~WrFlags.ALL) != 0) {
            throw new InvalidArgumentException("work request flags 0x" + Integer.toHexString(request.flags()) + " contain unknown bits");
        }
        switch (request) {
            case WorkRequest.RdmaRead read -> {
                Validation.checkSgl(read.sgl(), pd, config.maxSendSge(), Access.LOCAL_WRITE, "QP", qpNumber, "RdmaRead sink", read.wrId());
                if (ord == 0) {
                    throw new InvalidStateException(what(request) + ": RDMA Read needs ORD of at least 1, but the connection negotiated ORD 0"
                            + " (the peer offered IRD 0)");
                }
            }
            case WorkRequest.BindWindow bind -> {
                if (!(bind.window() instanceof KitMemoryWindow w) || w.kitPd() != pd) {
                    throw new LocalProtectionException(what(request) + ": window " + bind.window() + " is not a window of this QP's protection domain");
                }
                if (device.stags().resolve(bind.region()) == null) {
                    throw new LocalProtectionException(what(request) + ": region " + bind.region() + " is not one of adapter " + device.name()
                            + ": " + device.stags().whyUnresolved(bind.region()));
                }
            }
            case WorkRequest.LocalInvalidate inv -> {
            }
            default -> {
                long length = Validation.checkSgl(request.sgl(), pd, config.maxSendSge(), 0, "QP", qpNumber,
                        request.getClass().getSimpleName(), request.wrId());
                if (length > device.attributes().maxMessageSize()) {
                    throw new InvalidArgumentException(what(request) + ": message of " + length + " bytes exceeds the maximum of "
                            + device.attributes().maxMessageSize());
                }
                if (WrFlags.has(request.flags(), WrFlags.INLINE) && length > config.maxInlineData()) {
                    throw new InvalidArgumentException(what(request) + ": INLINE payload of " + length + " bytes exceeds maxInlineData "
                            + config.maxInlineData());
                }
            }
        }
        if (WrFlags.has(request.flags(), WrFlags.SOLICITED)
                && !(request instanceof WorkRequest.Send || request instanceof WorkRequest.SendWithInvalidate)) {
            throw new InvalidArgumentException(what(request) + ": SOLICITED applies to Sends only");
        }
        if (WrFlags.has(request.flags(), WrFlags.INLINE) && !carriesPayload(request)) {
            // refused rather than ignored (rxe answers EINVAL; siw ignores it): a Read has no payload
            // to copy, and a program that relies on one provider's leniency breaks on the next
            throw new InvalidArgumentException(what(request) + ": INLINE applies to Sends and RDMA Writes only (their payload is"
                    + " copied at post time); post this request without INLINE");
        }
    }

    /** Sends and Writes carry a payload from the sender's memory; only they may be INLINE. */
    private static boolean carriesPayload(WorkRequest request) {
        return request instanceof WorkRequest.Send || request instanceof WorkRequest.SendWithInvalidate
                || request instanceof WorkRequest.RdmaWrite;
    }

    /**
     * Queues a checked send request (copying an INLINE payload now); returns its position in the send queue.
     *
     * @throws QueueFullException when {@code sendDepth} requests are outstanding
     */
    public long enqueueSend(WorkRequest request) {
        long pos = sq.claim();
        if (pos < 0) {
            throw new QueueFullException("send queue of QP " + qpNumber + " is full (" + config.sendDepth()
                    + " requests outstanding); poll completions before posting more");
        }
        if (WrFlags.has(request.flags(), WrFlags.INLINE)) {
            MemorySegment target = sq.inlineSegment();
            long at = sq.inlineOffset(pos);
            for (int i = 0; i < request.sgl().size(); i++) {
                Sge s = request.sgl().get(i);
                MemorySegment.copy(s.region().segment(), s.offset(), target, at, s.length());
                at += s.length();
            }
        }
        sq.publish(pos, request);
        return pos;
    }

    /**
     * Checks and queues a receive; returns how many are posted now.
     *
     * @throws InvalidStateException when the QP takes its receives from an SRQ, or is in RESET
     * @throws QueueFullException    when {@code receiveDepth} receives are posted
     */
    public int enqueueReceive(ReceiveRequest request) {
        if (srq != null) {
            throw new InvalidStateException("QP " + qpNumber + " takes its receive buffers from a shared receive queue; post to the SRQ");
        }
        if (state.get() == QpState.RESET) {
            throw new InvalidStateException("postReceive on QP " + qpNumber + " in state RESET; move it to INIT first");
        }
        Validation.checkReceive(request, pd, config.maxReceiveSge(), "QP", qpNumber);
        if (rq.size() >= config.receiveDepth() || !rq.offer(request)) {
            throw new QueueFullException("receive queue of QP " + qpNumber + " is full (" + config.receiveDepth() + " buffers posted)");
        }
        return rq.size();
    }

    /** The next posted receive (of the QP or its SRQ) for an arriving Send; null when none is posted. */
    public ReceiveRequest takeReceive() {
        return srq != null ? srq.take() : rq.poll();
    }

    // ---------------------------------------------------------------- completions

    /**
     * Completes a finished send request on the send CQ (a successful unsignalled one completes
     * silently); false when the CQ overflowed, which fails the QP.
     */
    public boolean completeSend(WorkRequest wr, CompletionStatus status, int vendorError, long position) {
        boolean ok = status == CompletionStatus.SUCCESS;
        if (ok && !config.signalAll() && !WrFlags.has(wr.flags(), WrFlags.SIGNALED)) {
            return true;
        }
        CompletionOpcode op = switch (wr) {
            case WorkRequest.RdmaWrite w -> CompletionOpcode.RDMA_WRITE;
            case WorkRequest.RdmaRead r -> CompletionOpcode.RDMA_READ;
            case WorkRequest.BindWindow b -> CompletionOpcode.BIND_WINDOW;
            case WorkRequest.LocalInvalidate l -> CompletionOpcode.LOCAL_INVALIDATE;
            default -> CompletionOpcode.SEND;
        };
        device.ras().completion(status);
        return sendCq.add(wr.wrId(), status, op, ok ? wr.length() : 0, qpNumber, 0, 0, vendorError, sq, position);
    }

    /** Completes a receive on the receive CQ; false when the CQ overflowed, which fails the QP. */
    public boolean completeReceive(ReceiveRequest r, CompletionStatus status, long length, int flags, int invalidated, int vendorError) {
        device.ras().completion(status);
        return receiveCq.add(r.wrId(), status, CompletionOpcode.RECV, length, qpNumber, invalidated, flags, vendorError, null, 0);
    }

    /**
     * Finishes every queued send request with a flush status and completes them in order; the first
     * one already handed to the transport (before the transmit index) gets {@code headStatus} instead,
     * when given (the request whose failure moved the QP to ERROR).
     */
    public void flushSends(CompletionStatus headStatus, int vendorError, SendQueue.Emitter emitter) {
        boolean first = true;
        long tx = sq.txIndex();
        for (long pos = sq.head(); pos < sq.tail(); pos++) {
            CompletionStatus s = first && headStatus != null && pos < tx ? headStatus : CompletionStatus.WR_FLUSH_ERR;
            if (sq.finish(pos, s, s == CompletionStatus.WR_FLUSH_ERR ? 0 : vendorError)) {
                first = false;
            }
        }
        sq.complete(emitter);
    }

    /** Completes every receive posted to the QP (not its SRQ's) with a flush status; false when the CQ overflowed. */
    public boolean flushReceives() {
        if (rq == null) {
            return true;
        }
        ReceiveRequest r;
        boolean fit = true;
        while ((r = rq.poll()) != null) {
            fit &= completeReceive(r, CompletionStatus.WR_FLUSH_ERR, 0, 0, 0, 0);
        }
        return fit;
    }

    // ---------------------------------------------------------------- local operations on STags

    /**
     * Binds a window for {@code self} (a Bind at the head of its send queue): the region must be valid,
     * of this PD, allow MW_BIND and local write where the window allows remote write, and hold the range.
     */
    public CompletionStatus bind(WorkRequest.BindWindow b, KitQueuePair self) {
        KitMemoryWindow w = (KitMemoryWindow) b.window();
        KitMemoryRegion r = device.stags().resolve(b.region());
        StagEntry e = w.entry();
        if (r == null || w.isClosed() || !r.isValid() || r.kitPd() != pd || e.valid
                || !Access.allows(r.access(), Access.MW_BIND)
                || b.offset() < 0 || b.windowLength() < 0 || b.offset() + b.windowLength() > r.length()
                || (Access.allows(b.access(), Access.REMOTE_WRITE) && !Access.allows(r.access(), Access.LOCAL_WRITE))) {
            device.logger().log(System.Logger.Level.DEBUG, () -> "bind of " + w + " to " + r + " refused");
            return CompletionStatus.MW_BIND_ERR;
        }
        e.region = r;
        e.base = b.offset();
        e.length = b.windowLength();
        e.access = b.access();
        e.boundQp = self;
        e.key = b.newKey();
        e.valid = true;
        return CompletionStatus.SUCCESS;
    }

    /** A Local Invalidate at the head of {@code self}'s send queue: an STag of this PD, a window not bound to another QP. */
    public CompletionStatus localInvalidate(int stag, KitQueuePair self) {
        StagEntry e = device.stags().lookup(stag);
        if (e == null || e.pd != pd || e.key != STag.key(stag) || (e.window && e.boundQp != null && e.boundQp != self)) {
            return CompletionStatus.LOC_PROT_ERR;
        }
        invalidate(e);
        return CompletionStatus.SUCCESS;
    }

    /**
     * A peer's Send with Invalidate arriving on {@code self} names {@code stag}: it must be a live STag
     * (index and key) of this PD, and a window not bound to another QP; an STag already invalid is
     * invalidated again without error. Stricter than Linux siw in one point: siw looks an STag up by its
     * index alone, so a stale key would invalidate the region or window now under that index.
     */
    public RemoteInvalidate remoteInvalidate(int stag, KitQueuePair self) {
        StagEntry e = device.stags().lookup(stag);
        if (e == null || e.key != STag.key(stag)) {
            return RemoteInvalidate.NOT_ISSUED;
        }
        if (e.pd != pd || (e.window && e.boundQp != null && e.boundQp != self)) {
            return RemoteInvalidate.NOT_THIS_QPS;
        }
        invalidate(e);
        return RemoteInvalidate.DONE;
    }

    private static void invalidate(StagEntry e) {
        e.valid = false;
        if (e.window) {
            e.boundQp = null;
        }
    }

    /**
     * True when a peer's tagged access through {@code e} is {@code self}'s to make: the same PD, and a
     * window bound to this QP.
     */
    public boolean associated(StagEntry e, KitQueuePair self) {
        return e.pd == pd && (!e.window || e.boundQp == self);
    }
}

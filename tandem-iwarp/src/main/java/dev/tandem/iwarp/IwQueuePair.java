package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.TerminateCode;
import dev.tandem.provider.KitCompletionQueue;
import dev.tandem.provider.KitMemoryRegion;
import dev.tandem.provider.KitMemoryWindow;
import dev.tandem.provider.KitProtectionDomain;
import dev.tandem.provider.KitQueuePair;
import dev.tandem.provider.KitSharedReceiveQueue;
import dev.tandem.provider.MpmcRing;
import dev.tandem.provider.SendQueue;
import dev.tandem.provider.StagEntry;
import dev.tandem.provider.StagTable;
import dev.tandem.provider.Validation;
import dev.tandem.ras.TraceComponent;
import dev.tandem.ras.TraceEvent;
import dev.tandem.ras.TraceLevel;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.LocalProtectionException;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueueFullException;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A reliable-connected QP of the software adapter: the verbs' state machine, post-time checks,
 * the send and receive queues, completion generation and the move to ERROR with flush.
 */
final class IwQueuePair implements KitQueuePair, QpContext {
    private final IwarpDevice device;
    private final KitProtectionDomain pd;
    private final QueuePairConfig config;
    private final int qpNumber;
    private final AtomicReference<QpState> state = new AtomicReference<>(QpState.INIT);
    private final SendQueue sq;
    private final MpmcRing<ReceiveRequest> rq;
    private final KitCompletionQueue sendCq;
    private final KitCompletionQueue receiveCq;
    private final KitSharedReceiveQueue srq;
    private final QpCounters counters;
    private final SendQueue.Emitter sendEmitter = this::emitSend;
    private volatile Connection connection;
    private volatile boolean closed;
    /** Set by {@link #close} before it fails the QP: a QP being closed raises no DISCONNECTED. */
    private volatile boolean closing;
    private final java.util.concurrent.atomic.AtomicBoolean queuesDetached = new java.util.concurrent.atomic.AtomicBoolean();
    /** An error the engine found on this QP, reported once by the next post (see {@link AsyncErrorException}). */
    private final AtomicReference<AsyncErrorException> postedError = new AtomicReference<>();

    IwQueuePair(IwarpDevice device, KitProtectionDomain pd, QueuePairConfig config, int qpNumber) {
        var attrs = device.attributes();
        if (config.sendDepth() > attrs.maxQueuePairDepth() || config.receiveDepth() > attrs.maxQueuePairDepth()) {
            throw new InvalidArgumentException("queue depths " + config.sendDepth() + "/" + config.receiveDepth()
                    + " exceed the adapter's maximum of " + attrs.maxQueuePairDepth());
        }
        if (config.maxSendSge() > attrs.maxSge() || config.maxReceiveSge() > attrs.maxSge()) {
            throw new InvalidArgumentException("SGE limits " + config.maxSendSge() + "/" + config.maxReceiveSge()
                    + " exceed the adapter's maximum of " + attrs.maxSge());
        }
        if (config.maxInlineData() > attrs.maxInlineData()) {
            throw new InvalidArgumentException("maxInlineData " + config.maxInlineData() + " exceeds the adapter's maximum of " + attrs.maxInlineData());
        }
        if (config.ird() > attrs.maxIrd() || config.ord() > attrs.maxOrd()) {
            throw new InvalidArgumentException("IRD/ORD " + config.ird() + "/" + config.ord() + " exceed the adapter's maximum of "
                    + attrs.maxIrd() + "/" + attrs.maxOrd());
        }
        this.sendCq = ownCq(device, config.sendCq(), "send");
        this.receiveCq = ownCq(device, config.receiveCq(), "receive");
        if (config.srq() != null && (!(config.srq() instanceof KitSharedReceiveQueue s) || s.pd() != pd)) {
            throw new InvalidArgumentException("the shared receive queue must belong to the same protection domain as the QP");
        }
        this.srq = (KitSharedReceiveQueue) config.srq();
        attachQueues();
        this.device = device;
        this.pd = pd;
        this.config = config;
        this.qpNumber = qpNumber;
        this.sq = new SendQueue(config.sendDepth(), config.maxInlineData());
        this.rq = srq == null ? new MpmcRing<>(config.receiveDepth()) : null;
        try {
            this.counters = new QpCounters(device.ras(), qpNumber);
        } catch (RuntimeException e) {
            detachQueues();
            throw e;
        }
        trace(TraceLevel.ENTRY_EXIT, AdapterRas.QP_CREATE, config.sendDepth(), config.receiveDepth(), null);
    }

    /** Takes a use of both CQs and the SRQ, so that none can be closed under this QP; all or none. */
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

    private void detachQueues() {
        if (!queuesDetached.compareAndSet(false, true)) {
            return;
        }
        sendCq.users().detach();
        receiveCq.users().detach();
        if (srq != null) {
            srq.users().detach();
        }
    }

    private static KitCompletionQueue ownCq(IwarpDevice device, Object cq, String which) {
        if (cq instanceof KitCompletionQueue c && c.isClosed()) {
            throw new ResourceClosedException("the " + which + " CQ is closed; create the QP with an open CQ");
        }
        if (!(cq instanceof KitCompletionQueue c) || !device.owns(c)) {
            throw new InvalidArgumentException("the " + which + " CQ was not created on adapter " + device.name());
        }
        return c;
    }

    @Override
    public int qpNumber() {
        return qpNumber;
    }

    @Override
    public QpState state() {
        return state.get();
    }

    @Override
    public boolean inError() {
        return state.get() == QpState.ERROR;
    }

    @Override
    public boolean isDraining() {
        return state.get() == QpState.SQD;
    }

    @Override
    public QueuePairConfig config() {
        return config;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    KitProtectionDomain kitPd() {
        return pd;
    }

    IwarpDevice device() {
        return device;
    }

    @Override
    public SendQueue sendQueue() {
        return sq;
    }

    @Override
    public SendQueue.Emitter sendEmitter() {
        return sendEmitter;
    }

    @Override
    public QpCounters counters() {
        return counters;
    }

    Connection connection() {
        return connection;
    }

    /** Receives posted and not yet consumed (-1 when the QP takes them from an SRQ), for dumps. */
    int receivesPosted() {
        return rq == null ? -1 : rq.size();
    }

    @Override
    public int maxReceiveSge() {
        return srq != null ? srq.maxSge() : config.maxReceiveSge();
    }

    @Override
    public int maxSendSge() {
        return config.maxSendSge();
    }

    @Override
    public StagTable stags() {
        return device.stags();
    }

    @Override
    public AdapterRas ras() {
        return device.ras();
    }

    @Override
    public boolean associated(StagEntry e) {
        return e.pd == pd && (!e.window || e.boundQp == this);
    }

    @Override
    public boolean pollersActive() {
        return device.transport().pollersActive();
    }

    @Override
    public void wakeEngine() {
        device.transport().wake();
    }

    // ---------------------------------------------------------------- posting

    @Override
    public void postSend(WorkRequest request) {
        device.enter();
        try {
            postSendInside(request);
        } finally {
            device.leave();
        }
    }

    private void postSendInside(WorkRequest request) {
        checkOpen();
        reportPostedError();
        if (request == null) {
            throw new InvalidArgumentException("postSend: request is null");
        }
        QpState s = state.get();
        if (s != QpState.RTS && s != QpState.SQD && s != QpState.ERROR) {
            throw new InvalidStateException("postSend on QP " + qpNumber + " in state " + s
                    + ": sends may be posted in RTS (connect the QP or accept a request onto it first)");
        }
        if ((request.flags() & ~WrFlags.ALL) != 0) {
            throw new InvalidArgumentException("work request flags 0x" + Integer.toHexString(request.flags()) + " contain unknown bits");
        }
        checkRequest(request);
        long pos = sq.claim();
        if (pos < 0) {
            throw new QueueFullException("send queue of QP " + qpNumber + " is full (" + config.sendDepth()
                    + " requests outstanding); poll completions before posting more");
        }
        if (WrFlags.has(request.flags(), WrFlags.INLINE)) {
            copyInline(pos, request);
        }
        sq.publish(pos, request);
        counters.sendQueued(pos + 1 - sq.head());
        if (state.get() == QpState.ERROR) {
            flushSendQueue(null, 0);
            return;
        }
        Connection c = connection;
        if (c != null) {
            c.tx.poll();
        }
    }

    private String what(WorkRequest request) {
        return Validation.what("QP", qpNumber, request.getClass().getSimpleName(), request.wrId());
    }

    private void checkRequest(WorkRequest request) {
        switch (request) {
            case WorkRequest.RdmaRead read -> {
                Validation.checkSgl(read.sgl(), pd, config.maxSendSge(), Access.LOCAL_WRITE, "QP", qpNumber, "RdmaRead sink", read.wrId());
                Connection c = connection;
                if (c != null && c.ord == 0) {
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

    private void copyInline(long pos, WorkRequest request) {
        MemorySegment target = sq.inlineSegment();
        long at = sq.inlineOffset(pos);
        for (int i = 0; i < request.sgl().size(); i++) {
            Sge s = request.sgl().get(i);
            MemorySegment.copy(s.region().segment(), s.offset(), target, at, s.length());
            at += s.length();
        }
    }

    @Override
    public void postReceive(ReceiveRequest request) {
        device.enter();
        try {
            postReceiveInside(request);
        } finally {
            device.leave();
        }
    }

    private void postReceiveInside(ReceiveRequest request) {
        checkOpen();
        reportPostedError();
        if (srq != null) {
            throw new InvalidStateException("QP " + qpNumber + " takes its receive buffers from a shared receive queue; post to the SRQ");
        }
        QpState s = state.get();
        if (s == QpState.RESET) {
            throw new InvalidStateException("postReceive on QP " + qpNumber + " in state RESET; move it to INIT first");
        }
        Validation.checkReceive(request, pd, config.maxReceiveSge(), "QP", qpNumber);
        if (rq.size() >= config.receiveDepth() || !rq.offer(request)) {
            throw new QueueFullException("receive queue of QP " + qpNumber + " is full (" + config.receiveDepth() + " buffers posted)");
        }
        counters.receiveQueued(rq.size());
        if (state.get() == QpState.ERROR) {
            flushReceives();
        }
    }

    @Override
    public ReceiveRequest takeReceive() {
        return srq != null ? srq.take() : rq.poll();
    }

    // ---------------------------------------------------------------- completions

    private void emitSend(WorkRequest wr, CompletionStatus status, int vendorError, long emittingPosition) {
        boolean ok = status == CompletionStatus.SUCCESS;
        if (ok && !config.signalAll() && !WrFlags.has(wr.flags(), WrFlags.SIGNALED)) {
            return;
        }
        CompletionOpcode op = switch (wr) {
            case WorkRequest.RdmaWrite w -> CompletionOpcode.RDMA_WRITE;
            case WorkRequest.RdmaRead r -> CompletionOpcode.RDMA_READ;
            case WorkRequest.BindWindow b -> CompletionOpcode.BIND_WINDOW;
            case WorkRequest.LocalInvalidate l -> CompletionOpcode.LOCAL_INVALIDATE;
            default -> CompletionOpcode.SEND;
        };
        long length = ok ? wr.length() : 0;
        device.ras().completion(status);
        if (!sendCq.add(wr.wrId(), status, op, length, qpNumber, 0, 0, vendorError, sq, emittingPosition)) {
            fail(Failure.lost(AsyncEventType.QP_FATAL, "send completion queue overflowed"));
        }
    }

    @Override
    public void completeReceive(ReceiveRequest r, CompletionStatus status, long length, int flags, int invalidated, int vendorError) {
        device.ras().completion(status);
        if (!receiveCq.add(r.wrId(), status, CompletionOpcode.RECV, length, qpNumber, invalidated, flags, vendorError, null, 0)) {
            fail(Failure.lost(AsyncEventType.QP_FATAL, "receive completion queue overflowed"));
        }
    }

    // ---------------------------------------------------------------- local operations (bind, invalidate)

    @Override
    public void executeLocal(long pos, WorkRequest wr) {
        CompletionStatus status = switch (wr) {
            case WorkRequest.BindWindow b -> bind(b);
            case WorkRequest.LocalInvalidate inv -> localInvalidate(inv.stag());
            default -> CompletionStatus.LOC_QP_OP_ERR;
        };
        sq.finish(pos, status, 0);
        if (status != CompletionStatus.SUCCESS) {
            // a local error: QP_FATAL (QP_REQUEST_ERROR names a peer's invalid request); fail() logs
            // the error before it completes the slot, so whoever sees the completion sees the log
            fail(Failure.lost(AsyncEventType.QP_FATAL, "local " + wr.getClass().getSimpleName() + " wrId " + wr.wrId() + " failed: " + status));
        }
        sq.complete(sendEmitter);
    }

    private CompletionStatus bind(WorkRequest.BindWindow b) {
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
        e.boundQp = this;
        e.key = b.newKey();
        e.valid = true;
        return CompletionStatus.SUCCESS;
    }

    private CompletionStatus localInvalidate(int stag) {
        StagEntry e = device.stags().lookup(stag);
        if (e == null || e.pd != pd || e.key != STag.key(stag) || (e.window && e.boundQp != null && e.boundQp != this)) {
            return CompletionStatus.LOC_PROT_ERR;
        }
        e.valid = false;
        if (e.window) {
            e.boundQp = null;
        }
        return CompletionStatus.SUCCESS;
    }

    /**
     * A peer's Send with Invalidate (RFC 5040 section 5.1): invalidates {@code stag} and returns
     * null, or returns the Terminate that refuses it, as Linux siw's {@code siw_invalidate_stag}
     * decides (issue 12, rows 10 and 11):
     * <ul>
     * <li>an STag this adapter never issued (no live entry at its index, or one with another key:
     *     a different STag) cannot be invalidated: {@link TerminateCode#RDMAP_CANNOT_INVALIDATE},
     *     a remote operation error (siw: {@code -EINVAL});
     * <li>an STag of another protection domain, or a window of this one bound to another QP, is
     *     not this stream's to invalidate: {@link TerminateCode#RDMAP_CANNOT_INVALIDATE_PROTECTION},
     *     a remote protection error (siw: {@code -EACCES}; siw has no windows bound to QPs);
     * <li>an STag of this PD that is already invalid is invalidated again without error: the verbs
     *     allow it (siw does not look at the state), and {@link #localInvalidate} accepts it too.
     * </ul>
     * Stricter than siw in one point: siw looks an STag up by its index alone, so a stale key would
     * invalidate the region or window now under that index; here it names nothing.
     */
    @Override
    public TerminateCode remoteInvalidate(int stag) {
        StagEntry e = device.stags().lookup(stag);
        if (e == null || e.key != STag.key(stag)) {
            return TerminateCode.RDMAP_CANNOT_INVALIDATE;
        }
        if (e.pd != pd || (e.window && e.boundQp != null && e.boundQp != this)) {
            return TerminateCode.RDMAP_CANNOT_INVALIDATE_PROTECTION;
        }
        e.valid = false;
        if (e.window) {
            e.boundQp = null;
        }
        return null;
    }

    @Override
    public void sendQueueDrained() {
        device.raise(AsyncEventType.SQ_DRAINED, this, "send queue of QP " + qpNumber + " drained");
    }

    // ---------------------------------------------------------------- state changes

    @Override
    public void modify(QpState target) {
        device.enter();
        try {
            modifyInside(target);
        } finally {
            device.leave();
        }
    }

    private void modifyInside(QpState target) {
        checkOpen();
        trace(TraceLevel.ENTRY_EXIT, AdapterRas.QP_MODIFY, state.get().ordinal(), target == null ? -1 : target.ordinal(),
                target == null ? null : state.get() + " -> " + target);
        if (target == null) {
            throw new InvalidArgumentException("modify: target state is null");
        }
        QpState current = state.get();
        if (!current.canModifyTo(target)) {
            throw new InvalidStateException("QP " + qpNumber + " cannot move from " + current + " to " + target
                    + "; allowed from " + current + ": " + Arrays.stream(QpState.values()).filter(current::canModifyTo).toList());
        }
        switch (target) {
            case ERROR -> fail(Failure.local("consumer moved QP " + qpNumber + " to ERROR"));
            case RESET -> {
                if (current != QpState.ERROR) {
                    fail(Failure.local("consumer moved QP " + qpNumber + " to RESET"));
                }
                connection = null;
                state.set(QpState.RESET);
            }
            case RTS -> {
                Connection c = connection;
                if (c == null || c.isClosed()) {
                    throw new InvalidStateException("QP " + qpNumber + " is not connected; connect it (or accept a request onto it) to reach RTS");
                }
                state.set(QpState.RTS);
                c.tx.poll();
            }
            default -> state.set(target);
        }
    }

    /** Moves to ERROR once: Terminate or close, flush both queues, raise the event. */
    @Override
    public void fail(Failure f) {
        fail(f, null);
    }

    /**
     * As {@link #fail(Failure)}; {@code inProgress} (if not null) completes the receive the engine
     * had taken from the queue, the oldest one, right after the error is logged and before the
     * queued receives are flushed, so that receives complete in posting order and after the log
     * entry. It runs even when the QP was in ERROR already.
     */
    @Override
    public void fail(Failure f, Runnable inProgress) {
        QpState prev = state.getAndSet(QpState.ERROR);
        if (prev == QpState.ERROR) {
            if (inProgress != null) {
                inProgress.run();
            }
            return;
        }
        trace(TraceLevel.RARE, AdapterRas.QP_ERROR, prev.ordinal(), f.vendorError(), f.detail());
        if (f.event() != null && f.event() != AsyncEventType.DISCONNECTED) {
            // posted before the flush, so a thread that sees a flushed completion also sees the error
            postedError.set(new AsyncErrorException(f.event(), "QP " + qpNumber + " went to ERROR: " + f.detail()
                    + "; its work was flushed"));
        }
        device.describe(this, "ERROR: " + f.detail());
        // logged before anything completes or is sent: whoever sees a completion or the Terminate sees the log entry
        if (f.terminate() != null || (f.event() != null && f.event() != AsyncEventType.DISCONNECTED)) {
            device.recordError(this, f);
        }
        Connection c = connection;
        if (c != null) {
            if (f.terminate() != null) {
                c.terminate(f);
            } else {
                c.close();
            }
        }
        flushSendQueue(f.headStatus(), f.vendorError());
        if (inProgress != null) {
            inProgress.run();
        }
        flushReceives();
        if (f.event() != null) {
            device.raise(f.event(), this, f.detail());
        }
        if (c != null && f.event() != AsyncEventType.DISCONNECTED && !closing) {
            // every end of a connection is DISCONNECTED, after the error event if there was one, as
            // rdma_cm reports it for iWARP: one handler sees every end (a closed QP raises nothing)
            device.raise(AsyncEventType.DISCONNECTED, this, "connection " + c + " ended: " + f.detail());
        }
        if (srq != null) {
            device.raise(AsyncEventType.LAST_WQE_REACHED, this, "QP " + qpNumber + " left its shared receive queue");
        }
        device.transport().wake();
    }

    @Override
    public void connectionLost(IOException e) {
        connectionLost(e, null);
    }

    /** As {@link #connectionLost(IOException)}; {@code inProgress} as in {@link #fail(Failure, Runnable)}. */
    @Override
    public void connectionLost(IOException e, Runnable inProgress) {
        fail(Failure.lost(AsyncEventType.QP_FATAL, "connection lost: " + e.getMessage()), inProgress);
    }

    private void flushSendQueue(CompletionStatus headStatus, int vendorError) {
        boolean first = true;
        long tx = sq.txIndex();
        for (long pos = sq.head(); pos < sq.tail(); pos++) {
            CompletionStatus s = first && headStatus != null && pos < tx ? headStatus : CompletionStatus.WR_FLUSH_ERR;
            if (sq.finish(pos, s, s == CompletionStatus.WR_FLUSH_ERR ? 0 : vendorError)) {
                first = false;
            }
        }
        sq.complete(sendEmitter);
    }

    private void flushReceives() {
        if (rq == null) {
            return;
        }
        ReceiveRequest r;
        while ((r = rq.poll()) != null) {
            completeReceive(r, CompletionStatus.WR_FLUSH_ERR, 0, 0, 0, 0);
        }
    }

    // ---------------------------------------------------------------- connection management

    @Override
    public byte[] connect(InetSocketAddress remote, byte[] privateData, Duration timeout) {
        checkOpen();
        if (remote == null || timeout == null) {
            throw new InvalidArgumentException("connect: remote address and timeout are required, got " + remote + " / " + timeout);
        }
        byte[] pd = privateData == null ? new byte[0] : privateData;
        Mpa.checkPrivateData(pd, device);
        QpState s = state.get();
        if ((s != QpState.INIT && s != QpState.RTR) || connection != null) {
            throw new InvalidStateException("connect on QP " + qpNumber + " in state " + s + "; a QP connects once, from INIT");
        }
        Mpa.Outcome outcome = Mpa.connect(device, this, remote, pd, timeout);
        establish(outcome.channel(), outcome.crc(), outcome.ird(), outcome.ord());
        return outcome.peerPrivateData();
    }

    /** Makes the QP live on {@code channel} (after a successful MPA exchange). */
    void establish(SocketChannel channel, boolean crc, int ird, int ord) {
        try {
            channel.configureBlocking(false);
            Connection c = new Connection(this, channel, crc, ird, ord, device.maxUlpdu());
            connection = c;
            if (!state.compareAndSet(QpState.INIT, QpState.RTS) && !state.compareAndSet(QpState.RTR, QpState.RTS)) {
                c.close();
                throw new InvalidStateException("QP " + qpNumber + " left INIT while connecting (now " + state.get() + ")");
            }
            device.transport().activate(this);
            device.describe(this, "RTS " + c.local + " -> " + c.remote);
            device.raise(AsyncEventType.COMMUNICATION_ESTABLISHED, this, c.toString());
        } catch (IOException e) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // the connection failed already; nothing more to release
            }
            throw new ConnectionException("QP " + qpNumber + ": could not start the connection: " + e.getMessage(), e);
        }
    }

    @Override
    public void disconnect() {
        if (connection != null && state.get() != QpState.ERROR) {
            fail(Failure.local("QP " + qpNumber + " disconnected by the consumer"));
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        Connection c = connection;
        return c == null ? null : c.local;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        Connection c = connection;
        return c == null ? null : c.remote;
    }

    @Override
    public int ird() {
        Connection c = connection;
        return c == null ? config.ird() : c.ird;
    }

    @Override
    public int ord() {
        Connection c = connection;
        return c == null ? config.ord() : c.ord;
    }

    void checkOpen() {
        if (closed) {
            throw new ResourceClosedException("QP " + qpNumber + " is closed");
        }
        device.checkOpen();
    }

    /** Records a verbs.qp trace event of this QP (numbers a, b; short text) when the level is on. */
    private void trace(int level, dev.tandem.ras.TraceEvent event, long a, long b, String text) {
        TraceComponent t = device.ras().qp;
        if (t.enabled(level)) {
            t.record(level, event, qpNumber, a, b, 0, text);
        }
    }

    /** Throws (once) the error the engine posted to this QP when it moved it to ERROR. */
    private void reportPostedError() {
        if (postedError.get() != null) {
            AsyncErrorException e = postedError.getAndSet(null);
            if (e != null) {
                throw e;
            }
        }
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        trace(TraceLevel.ENTRY_EXIT, AdapterRas.QP_CLOSE, state.get().ordinal(), 0, null);
        closing = true;
        if (state.get() != QpState.ERROR) {
            fail(Failure.local("QP " + qpNumber + " closed"));
        }
        closed = true;
        Connection c = connection;
        if (c != null) {
            c.close();
        }
        detachQueues();
        device.transport().deactivate(this);
        counters.close();
        pd.forget(this);
    }

    @Override
    public String toString() {
        return "QueuePair[" + qpNumber + ", " + state.get() + (connection != null ? ", " + connection : "") + "]";
    }
}

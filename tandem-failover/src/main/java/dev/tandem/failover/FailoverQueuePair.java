package dev.tandem.failover;

import dev.tandem.provider.ResourceLimits;
import dev.tandem.provider.Validation;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.LocalProtectionException;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueueFullException;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One connection of the application over several paths ({@link Paths}): adapter QPs of this side, each
 * connected to one adapter of the peer. Sends, Writes and Reads go over the send path (where the peer
 * receives); receives are posted on the receive path (or the SRQ of its adapter); the two are one path
 * when the connection runs duplex. Every Send carries a {@link FailoverHeader}; Sends and Writes complete
 * for the application only when something shows the peer holds them ({@link Proofs}); receives are
 * checked before they are delivered ({@link Receiving}). When a path fails, {@link ConnectionFailover}
 * moves the connection's work to another path, {@link PathSetup} sets paths up (and up again), and
 * {@link Heartbeats} finds silent links.
 */
final class FailoverQueuePair implements QueuePair {
    /** Every this many requests, one is signalled on the adapter (it frees the adapter's queue slots). */
    static final int SIGNAL_EVERY = 8;
    /** Send-queue slots of an adapter QP beyond twice the application's: proofs (a mark and a Read each) and the layer's own work. */
    static final int PROOF_SLOTS = 48;
    /** Tags a proof's work request id: the rest is the last send position it covers. */
    static final long PROOF = 1L << 62;
    /** Tags a heartbeat's work request id: the rest is the path. */
    static final long HEARTBEAT = 1L << 61;
    /** Tags the layer's own requests (mailbox writes, arrival marks, windows bound again): the low bits say which. */
    static final long CONTROL = 1L << 60;
    /** How long a disconnect waits for its BYE to leave, and a path closed without a BYE for one to come. */
    static final Duration BYE_WAIT = Duration.ofMillis(200);

    final FailoverDevice device;
    final FailoverProtectionDomain pd;
    final QueuePairConfig config;
    final FirstLevelCq sendCq;
    final FirstLevelCq receiveCq;
    final FailoverSharedReceiveQueue srq;
    final int qpNumber;
    final Paths paths = new Paths();
    final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a path comes up or the connection ends (connect and accept wait on it). */
    final Condition pathReady = lock.newCondition();
    final Mailbox mailbox;
    final SendLog sendLog;
    private final InlineCopies inline;
    private final Proofs proofs = new Proofs(this);
    private final ReceiveLog receiveLog;
    final Receiving receiving;
    private final ConnectionFailover moves;
    private final PathSetup setup = new PathSetup(this);
    private final Heartbeats heartbeats = new Heartbeats(this);
    /** The number the peer's headers carry to this connection (unique among the device's connections). */
    private final int session;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment sendHeaderSegment;
    private final FailoverMemoryRegion sendHeaders;
    /** Each send slot's header gather element, made once. */
    private final Sge[] headerSge;
    /** Where proofs and heartbeats land (8 bytes of the session's proof region), as a work request keeps it. */
    final List<Sge> proofSink;
    /** "receive queue of QP n", for the queue-full message (made once: a post builds no string). */
    private final String receiveQueueName;
    /** Completions of QPs this connection left behind, dropped. */
    private final AtomicLong staleDropped = new AtomicLong();

    volatile QpState state = QpState.INIT;
    /** Why it went to ERROR, where the layer itself decided; null otherwise. */
    private volatile QpFailure failure;
    /** The connection's work failed (an ordinary verbs error): it ends, it does not fail over. */
    volatile boolean endedByError;
    /** The layer completed every Send (receive) outstanding after the connection ended: later posts flush at once. */
    volatile boolean sendsFinished;
    volatile boolean receivesFinished;
    volatile boolean closed;
    /** The first path's id (its events are the connection's until others carry it). */
    volatile int firstPath = Paths.NONE;
    /** Connection events passed on once per connection. */
    final EnumSet<AsyncEventType> reported = EnumSet.noneOf(AsyncEventType.class);
    long connectionId;
    volatile Hello peer;
    int negotiatedIrd;
    int negotiatedOrd;
    /** The message id of the last Send posted. */
    private int sentMessageId;
    /** The generation of the send path's QP the requests on the wire went out on. */
    volatile int sendWireGeneration;
    /** When the peer last showed it is alive (a probe answered, a mailbox record read). */
    volatile long peerSeenNanos;
    /** The connection's work failed: the next post throws this, once (then posts are flushed), as on a plain adapter. */
    final java.util.concurrent.atomic.AtomicReference<AsyncErrorException> workError = new java.util.concurrent.atomic.AtomicReference<>();
    /** The async event a carrying path's QP raised for an error of the work, if one came. */
    volatile AsyncEventType workErrorEvent;

    /** Application depth for adapters whose QPs hold {@code adapterMax}. */
    static int appDepth(int adapterMax) {
        return (adapterMax - PROOF_SLOTS) / 2;
    }

    FailoverQueuePair(FailoverProtectionDomain pd, QueuePairConfig config) {
        this.device = pd.failoverDevice();
        this.pd = pd;
        this.config = config;
        Validation.checkQueuePairConfig(config, device.attributes());
        this.sendCq = cq(config.sendCq(), "send");
        this.receiveCq = cq(config.receiveCq(), "receive");
        if (config.srq() != null && (!(config.srq() instanceof FailoverSharedReceiveQueue s) || s.pd() != pd)) {
            throw new InvalidArgumentException("the shared receive queue must belong to the same protection domain as the QP");
        }
        this.srq = (FailoverSharedReceiveQueue) config.srq();
        int ra = srq != null ? srq.adapter() : pd.primary();
        if (pd.under(ra) == null || !device.usable(ra)) {
            throw new dev.tandem.verbs.DeviceUnavailableException("adapter " + ra + " of " + device.name()
                    + ", where this QP's receives go, cannot carry work");
        }
        this.qpNumber = device.nextQpNumber();
        this.moves = new ConnectionFailover(this);
        this.sendLog = new SendLog(config.sendDepth());
        device.limits.take(ResourceLimits.Kind.QUEUE_PAIR);
        boolean attachedSend = false;
        boolean attachedReceive = false;
        ReceiveLog rl = null;
        FailoverMemoryRegion sh = null;
        Mailbox mb = null;
        InlineCopies ic = null;
        int sessionNumber = 0;
        try {
            if (!sendCq.attach(this, true)) {
                throw new ResourceClosedException("the send CQ is closed; create the QP with an open CQ");
            }
            attachedSend = true;
            if (!receiveCq.attach(this, false)) {
                throw new ResourceClosedException("the receive CQ is closed; create the QP with an open CQ");
            }
            attachedReceive = true;
            this.sendHeaderSegment = arena.allocate((long) config.sendDepth() * FailoverHeader.LENGTH, 8);
            sh = pd.registerInternal(sendHeaderSegment, Access.LOCAL_WRITE);
            rl = srq == null ? new ReceiveLog(pd, config.receiveDepth()) : null;
            mb = new Mailbox(pd);
            ic = new InlineCopies(pd, config.sendDepth(), config.maxInlineData());
            sessionNumber = device.sessions().take();
        } catch (RuntimeException e) {
            if (sessionNumber != 0) {
                device.sessions().giveBack(sessionNumber);
            }
            Quietly.close(ic);
            Quietly.close(rl);
            Quietly.close(sh);
            Quietly.close(mb);
            arena.close();
            if (attachedSend) {
                sendCq.detach(this, true);
            }
            if (attachedReceive) {
                receiveCq.detach(this, false);
            }
            device.limits.giveBack(ResourceLimits.Kind.QUEUE_PAIR);
            throw e;
        }
        this.session = sessionNumber;
        this.inline = ic;
        this.sendHeaders = sh;
        this.receiveQueueName = "receive queue of QP " + qpNumber;
        this.headerSge = new Sge[config.sendDepth()];
        for (int i = 0; i < headerSge.length; i++) {
            headerSge[i] = new Sge(sh, (long) i * FailoverHeader.LENGTH, FailoverHeader.LENGTH);
        }
        this.proofSink = List.of(new Sge(pd.proofRegion(), FailoverProtectionDomain.PROOF_SINK, 8));
        this.receiveLog = rl;
        this.receiving = new Receiving(this, srq != null ? srq.log() : rl);
        this.mailbox = mb;
        if (srq != null) {
            srq.attach(this);
        }
    }

    private FirstLevelCq cq(Object cq, String which) {
        if (cq instanceof FirstLevelCq c && c.isClosed()) {
            throw new ResourceClosedException("the " + which + " CQ is closed; create the QP with an open CQ");
        }
        if (!(cq instanceof FirstLevelCq c) || c.device() != device) {
            throw new InvalidArgumentException("the " + which + " CQ was not created on adapter " + device.name());
        }
        return c;
    }

    /**
     * An adapter QP's shape: room for the header element, the proofs (an INLINE mark and a Read each), the
     * heartbeat and the layer's own Writes, and the receives (a QP of an SRQ has none of its own).
     */
    QueuePairConfig adapterConfig(int k) {
        return new QueuePairConfig(sendCq.under(k), receiveCq.under(k), srq == null ? null : srq.under(k),
                2 * config.sendDepth() + PROOF_SLOTS, srq == null ? config.receiveDepth() : 1,
                config.maxSendSge() + 1, config.maxReceiveSge() + 1,
                Math.max(8, config.maxInlineData() == 0 ? 0 : config.maxInlineData() + FailoverHeader.LENGTH),
                config.ird() + 2, config.ord() + 2, false);
    }

    /** Whether adapter {@code k} can hold a QP of this connection now (its CQs, PD and SRQ are there). */
    boolean canHoldQp(int k) {
        return device.usable(k) && pd.under(k) != null && sendCq.under(k) != null && receiveCq.under(k) != null
                && (srq == null || srq.under(k) != null);
    }

    /** A new adapter QP on adapter {@code k} for path {@code path}, routed to it. Lock held. */
    QueuePair newQp(Path path) {
        QueuePair q = pd.under(path.local).createQueuePair(adapterConfig(path.local));
        path.qp = q;
        device.route(path.local, q.qpNumber(), new FailoverDevice.Route(this, path));
        return q;
    }

    /** Closes path {@code p}'s QP (it failed, or its adapter goes) and unroutes it. Lock held. */
    void dropQp(Path p) {
        QueuePair q = p.qp;
        p.qp = null;
        p.up = false;
        if (q != null) {
            device.unroute(p.local, q.qpNumber());
            Quietly.close(q);
        }
    }

    // ---------------------------------------------------------------- what the protocol steps use

    PathSetup setup() {
        return setup;
    }

    ConnectionFailover moves() {
        return moves;
    }

    Proofs proofs() {
        return proofs;
    }

    Heartbeats heartbeats() {
        return heartbeats;
    }

    /** The adapter where this side wants its receives: its SRQ's (which moves with it), else the session's primary. */
    int receiveAdapter() {
        return srq != null ? srq.adapter() : pd.primary();
    }

    /** The session number the peer's headers carry to this connection. */
    int session() {
        return session;
    }

    /** The key the peer's arrival marks are checked with (this connection, this life of the peer, this side's session). */
    int markKey() {
        Hello p = peer;
        return (int) connectionId ^ (p == null ? 0 : (int) p.incarnation()) ^ session;
    }

    /** The key this side's arrival marks carry to the peer (its {@link #markKey()}). */
    int peerMarkKey() {
        return (int) connectionId ^ (int) device.keys().incarnation() ^ peer.session();
    }

    /** Whether the peer's application ended the connection (its BYE): what left the adapter completes as sent. */
    boolean endedByPeer() {
        QpFailure f = failure;
        return state == QpState.ERROR && f != null && f.kind() == QpFailure.Kind.PEER_CLOSED;
    }

    /** The layer's 8-byte RDMA Read of the peer's proof region (a proof or a heartbeat probe), signalled, with {@code wrId}. */
    WorkRequest readOfProof(long wrId) {
        return new WorkRequest.RdmaRead(wrId, proofSink, FailoverProtectionDomain.PROOF_SOURCE, peer.proofStag(), WrFlags.SIGNALED);
    }

    int sentMessageId() {
        return sentMessageId;
    }

    // ---------------------------------------------------------------- connection set-up

    @Override
    public byte[] connect(InetSocketAddress remote, byte[] privateData, Duration timeout) {
        return setup.connect(remote, privateData, timeout);
    }

    void checkPrivateData(byte[] data) {
        int max = device.attributes().maxPrivateData();
        if (data.length > max) {
            throw new InvalidArgumentException("private data of " + data.length + " bytes exceeds the maximum of " + max
                    + " (DeviceAttributes.maxPrivateData)");
        }
    }

    // ---------------------------------------------------------------- posting sends

    @Override
    public void postSend(WorkRequest request) {
        if (request == null) {
            throw new InvalidArgumentException("postSend: request is null");
        }
        checkUsable();
        QpState s = state;
        if (s != QpState.ERROR && s != QpState.RTS && s != QpState.SQD) {
            throw new InvalidStateException("postSend on QP " + qpNumber + " in state " + s
                    + ": sends may be posted in RTS (connect the QP or accept a request onto it first)");
        }
        if (s != QpState.ERROR) {
            PostChecks.send(request, pd, config.maxSendSge(), qpNumber);
            checkSend(request);
        }
        AsyncErrorException told = workError.getAndSet(null);
        if (told != null) {
            throw told; // the connection's work failed: the first post after it says so, once, as on a plain adapter
        }
        boolean prove = false;
        long bindToAwait = -1;
        boolean flush = false;
        lock.lock();
        try {
            if (state == QpState.ERROR) {
                flush = flushInOrder(request);
                if (!flush) {
                    return;
                }
            } else {
                int messageId = isSend(request) ? sentMessageId + 1 : 0;
                long seq = sendLog.add(request, messageId);
                if (seq < 0) {
                    throw new QueueFullException("send queue of QP " + qpNumber + " is full (" + config.sendDepth()
                            + " requests outstanding); poll completions before posting more");
                }
                WorkRequest logged = request;
                if (WrFlags.has(request.flags(), WrFlags.INLINE)) {
                    try {
                        logged = inline.copy(request, sendLog.slot(seq), qpNumber);
                    } catch (RuntimeException e) {
                        sendLog.dropLast();
                        throw e;
                    }
                    sendLog.replace(seq, logged);
                }
                device.faults.reached(FaultPoint.BEFORE_POST); // a fault here meets whatever the post finds next
                if (request instanceof WorkRequest.RdmaRead) {
                    proofs.markBeforeRead(); // a Read that completes proves the Sends before it: the peer learns where they end
                }
                Path p = pathFor(logged);
                if (p != null && p.up && !moves.sendMoving() && sendLog.unsentFrom(sendLog.released()) == seq) {
                    try {
                        postOn(p, logged, seq, messageId);
                    } catch (RuntimeException e) {
                        sendLog.dropLast();
                        throw e;
                    }
                }
                // else: logged only; the move (or the send path's set-up) posts it, in order
                if (isSend(request)) {
                    sentMessageId = messageId;
                }
                if (SendLog.isPayload(request)) {
                    prove = proofs.posted();
                }
                if (request instanceof WorkRequest.BindWindow && p != null && p.id != paths.send && p.up) {
                    bindToAwait = seq; // bound where the peer's accesses arrive: the Sends that name it wait for it
                }
            }
        } finally {
            lock.unlock();
        }
        if (flush) {
            sendCq.deliver(this, -1, request.wrId(), CompletionStatus.WR_FLUSH_ERR, opcodeOf(request), 0, 0, 0, 0);
            return;
        }
        if (prove) {
            proofs.proveNow();
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
            sendLog.sent(seq);
            if (p.id == paths.send) {
                sendWireGeneration = p.generation;
            }
        } catch (RuntimeException e) {
            if (!brokenPath(p)) {
                throw e; // refused as on a plain adapter (an AsyncErrorException tells the QP's error once)
            }
            device.monitor().failover(this, p, q, e.getMessage());
        }
    }

    /**
     * Posts, in order, every logged request that waits to be posted, on the send path (windows' binds
     * and invalidates on the receive path). Stops at the first the path refuses. Lock held.
     */
    void postPending() {
        long p = sendLog.unsentFrom(sendLog.released());
        while (p >= 0) {
            WorkRequest wr = sendLog.request(p);
            Path path = pathFor(wr);
            if (path == null || !path.up) {
                return;
            }
            try {
                path.qp.postSend(onAdapter(path, wr, p, sendLog.messageId(p)));
                sendLog.sent(p);
                if (path.id == paths.send) {
                    sendWireGeneration = path.generation;
                }
            } catch (RuntimeException e) {
                if (!brokenPath(path)) {
                    sendLog.done(p, CompletionStatus.WR_FLUSH_ERR, 0); // refused as a plain adapter would in ERROR
                } else {
                    device.monitor().failover(this, path, path.qp, e.getMessage());
                    return;
                }
            }
            p = sendLog.unsentFrom(p + 1);
        }
    }

    /** Where a request goes: binds and invalidates of windows where the peer's accesses arrive (the receive path), the rest on the send path. */
    private Path pathFor(WorkRequest r) {
        if (r instanceof WorkRequest.BindWindow || (r instanceof WorkRequest.LocalInvalidate l && pd.isWindow(l.stag()))) {
            return paths.receivePath();
        }
        return paths.sendPath();
    }

    /** Waits (bounded) until the request at {@code seq} has an outcome: a bind on another path than the Sends that follow it. */
    private void awaitOutcome(long seq) {
        long deadline = System.nanoTime() + device.config().moveTimeout().toNanos();
        while (sendLog.outcome(seq) == null && sendLog.released() <= seq && state != QpState.ERROR && System.nanoTime() < deadline) {
            sendCq.adapterEvent();
            Thread.onSpinWait();
        }
    }

    /**
     * A post in ERROR: logged as flushed, so it completes after what was posted before it; false when
     * nothing is outstanding (then the caller completes it at once, as a plain adapter does). Lock held.
     */
    private boolean flushInOrder(WorkRequest request) {
        if (sendsFinished && sendLog.allHandedOver()) {
            return true;
        }
        long seq = sendLog.add(request, 0);
        if (seq < 0) {
            throw new QueueFullException("send queue of QP " + qpNumber + " is full (" + config.sendDepth()
                    + " requests outstanding); poll completions before posting more");
        }
        sendLog.done(seq, CompletionStatus.WR_FLUSH_ERR, 0);
        sendLog.sent(seq);
        if (sendsFinished) {
            device.monitor().submit(() -> sendCq.locked(() -> proofs.release(sendCq)));
        }
        return false;
    }

    static boolean isSend(WorkRequest r) {
        return r instanceof WorkRequest.Send || r instanceof WorkRequest.SendWithInvalidate;
    }

    /** Checks what the adapter cannot check the way the application wrote it (its SGE count excludes the header). */
    private void checkSend(WorkRequest request) {
        if (SendLog.isPayload(request)) {
            long length = request.length();
            if (length > device.attributes().maxMessageSize()) {
                throw new InvalidArgumentException(request.getClass().getSimpleName() + " wrId " + request.wrId() + " on QP " + qpNumber
                        + ": message of " + length + " bytes exceeds the maximum of " + device.attributes().maxMessageSize());
            }
            if (WrFlags.has(request.flags(), WrFlags.INLINE) && length > config.maxInlineData()) {
                throw new InvalidArgumentException(request.getClass().getSimpleName() + " wrId " + request.wrId() + " on QP " + qpNumber
                        + ": INLINE payload of " + length + " bytes exceeds maxInlineData " + config.maxInlineData());
            }
        }
        if (WrFlags.has(request.flags(), WrFlags.INLINE) && !SendLog.isPayload(request)) {
            throw new InvalidArgumentException(request.getClass().getSimpleName() + " wrId " + request.wrId() + " on QP " + qpNumber
                    + ": INLINE applies to Sends and RDMA Writes only (their payload is copied at post time); post this request without INLINE");
        }
        if (request.sgl().size() > config.maxSendSge()) {
            throw new InvalidArgumentException(request.getClass().getSimpleName() + " wrId " + request.wrId() + " on QP " + qpNumber
                    + ": " + request.sgl().size() + " SGEs exceed maxSendSge " + config.maxSendSge());
        }
        if (request instanceof WorkRequest.BindWindow b && (!(b.window() instanceof FailoverMemoryWindow w) || w.pd() != pd)) {
            throw new LocalProtectionException("QP " + qpNumber + " BindWindow wrId " + b.wrId() + ": window " + b.window()
                    + " is not a window of this QP's protection domain");
        }
        if (request instanceof WorkRequest.RdmaRead r && negotiatedOrd == 0) {
            throw new InvalidStateException("QP " + qpNumber + " RdmaRead wrId " + r.wrId()
                    + ": RDMA Read needs ORD of at least 1, but the connection negotiated ORD 0 (the peer offered IRD 0)");
        }
    }

    /** The request as path {@code p}'s QP runs it: ids are log positions; Sends get their header; only what ends a batch is signalled. */
    WorkRequest onAdapter(Path p, WorkRequest request, long seq, int messageId) {
        // the adapter frees its queue's slots only behind a signalled request: every SIGNAL_EVERY-th is
        // (its success says only that it left, not that it arrived: a proof or the peer's ack says that)
        int flags = request.flags() & ~WrFlags.SIGNALED | (seq % SIGNAL_EVERY == SIGNAL_EVERY - 1 ? WrFlags.SIGNALED : 0);
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
        int slot = sendLog.slot(seq);
        long at = (long) slot * FailoverHeader.LENGTH;
        int flags = WrFlags.has(send.flags(), WrFlags.SOLICITED) ? FailoverHeader.FLAG_SOLICITED : 0;
        FailoverHeader.write(sendHeaderSegment, at, type, flags, messageId, receiving.received(), peer.session(),
                (int) send.length(), invalidate, device.keys().incarnation());
        return FailoverHeader.inFront(headerSge[slot], send.sgl());
    }

    // ---------------------------------------------------------------- posting receives

    @Override
    public void postReceive(ReceiveRequest request) {
        if (request == null) {
            throw new InvalidArgumentException("postReceive: request is null");
        }
        checkUsable();
        if (srq != null) {
            throw new InvalidStateException("QP " + qpNumber + " takes its receive buffers from a shared receive queue; post to the SRQ");
        }
        if (state == QpState.RESET) {
            throw new InvalidStateException("postReceive on QP " + qpNumber + " in state RESET; move it to INIT first");
        }
        if (request.sgl().size() > config.maxReceiveSge()) {
            throw new InvalidArgumentException("receive wrId " + request.wrId() + " on QP " + qpNumber + ": " + request.sgl().size()
                    + " SGEs exceed maxReceiveSge " + config.maxReceiveSge());
        }
        PostChecks.receive(request, pd, config.maxReceiveSge(), "QP " + qpNumber);
        AsyncErrorException told = workError.getAndSet(null);
        if (told != null) {
            throw told;
        }
        boolean flushNow;
        lock.lock();
        try {
            int slot = receiveLog.claim(request, receiveQueueName, config.receiveDepth());
            flushNow = state == QpState.ERROR && receivesFinished;
            if (flushNow) {
                receiveLog.takeSlot(slot);
            } else if (state != QpState.ERROR) {
                Path p = paths.receivePath();
                if (p != null && p.up && !moves.receivesMoving()) {
                    postReceiveOn(p, slot);
                }
                // else logged only: the receive path's set-up or the move posts it
            }
            // in ERROR, before the layer flushed: it is flushed with the rest, in order
        } finally {
            lock.unlock();
        }
        if (flushNow) {
            receiveCq.deliver(this, -1, request.wrId(), CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.RECV, 0, 0, 0, 0);
        }
    }

    /** Posts logged receive {@code slot} on path {@code p}'s QP. Lock held. */
    private void postReceiveOn(Path p, int slot) {
        QueuePair q = p.qp;
        try {
            q.postReceive(receiveLog.onAdapter(slot));
        } catch (RuntimeException e) {
            if (connected() && brokenPath(p)) {
                device.monitor().failover(this, p, q, e.getMessage()); // it stays logged: the move posts it
                return;
            }
            receiveLog.unclaim(slot);
            throw e;
        }
    }

    /** Posts every logged receive not posted in this epoch on path {@code p} (its receive path now), in order. Lock held. */
    void postReceivesOn(Path p) {
        if (receiveLog == null) {
            return;
        }
        for (int slot : receiveLog.inOrder()) {
            if (receiveLog.unposted(slot)) {
                postReceiveOn(p, slot);
            }
        }
    }

    /** A receive whose buffer got a duplicate goes back where receives are posted now. */
    void repostReceive(ReceiveRequest r) {
        if (srq != null) {
            srq.repost(r);
            return;
        }
        lock.lock();
        try {
            int slot = receiveLog.claim(r, receiveQueueName, Integer.MAX_VALUE);
            Path p = paths.receivePath();
            if (state != QpState.ERROR && p != null && p.up && !moves.receivesMoving()) {
                postReceiveOn(p, slot);
            }
        } finally {
            lock.unlock();
        }
    }

    /** A receive taken for a message that failed its check: logged again, first, for the connection's end to flush. */
    void putBack(ReceiveRequest r) {
        if (srq != null) {
            srq.repost(r); // the SRQ's buffers are not the connection's to flush
        } else {
            receiveLog.putFirst(r);
        }
        String why = receiving.fault();
        device.monitor().submit(() -> moves.fault(why == null ? "a message failed its check" : why));
    }

    // ---------------------------------------------------------------- completions

    /** A completion of path {@code path}'s adapter QP, polled through {@code cq}. */
    void adapterCompletion(Path path, WorkCompletion wc, FirstLevelCq cq) {
        QueuePair q = path.qp;
        if (q == null || q.qpNumber() != wc.qpNumber()) {
            staleDropped.incrementAndGet(); // a QP this connection left behind
            device.ras.staleDropped();
            return;
        }
        long id = wc.wrId();
        boolean ok = wc.status() == CompletionStatus.SUCCESS;
        boolean receive = wc.opcode() == CompletionOpcode.RECV;
        if (!receive && (id & (HEARTBEAT | CONTROL)) != 0 && (id & PROOF) == 0) {
            if ((id & HEARTBEAT) != 0) {
                heartbeats.answered(path, ok);
            } else {
                moves.controlCompletion(path, id, wc);
            }
            if (!ok && brokenPath(path)) {
                device.monitor().failover(this, path, q, failureOf(q, "path failed"));
            }
            return;
        }
        if (!ok && brokenPath(path)) {
            // the transport failed under this path: its work moves to another path, not to the application
            device.monitor().failover(this, path, q, failureOf(q, "path failed"));
            if ((id & PROOF) != 0 && !receive) {
                proofs.proofFailed();
            }
            return;
        }
        if (receive) {
            if (ok) {
                Receiving.Outcome o = receiving.success(wc, cq);
                if (o == Receiving.Outcome.DELIVERED) {
                    peerSeenNanos = System.nanoTime();
                }
                return;
            }
            if (wc.status() == CompletionStatus.WR_FLUSH_ERR || !receiving.log().current(wc.wrId())) {
                return; // the layer flushes receives itself, in order, when the connection ends
            }
            ReceiveRequest r = receiving.log().take(wc.wrId());
            if (r != null && !cq.deliver(this, -1, r.wrId(), wc.status(), CompletionOpcode.RECV, 0, 0, wc.flags(), wc.vendorError())) {
                overflowed();
            }
            workFailed(path);
            return;
        }
        if (!ok && carries(path)) {
            workFailed(path);
        }
        proofs.sendCompletion(path, wc, cq);
    }

    /** The connection's work failed on path {@code p} (not its transport): it ends as on a plain adapter, and the peer is told. */
    private void workFailed(Path p) {
        if (endedByError) {
            return;
        }
        endedByError = true;
        device.monitor().submit(() -> moves.endedByWork(p));
    }

    private static String failureOf(QueuePair q, String otherwise) {
        return q.failure().map(QpFailure::detail).orElse(otherwise);
    }

    /**
     * Whether path {@code p} failed in its transport (its work may go another way), not by an error of
     * the work: a broken or reset connection, an adapter that cannot carry work, a path closed by the
     * peer without its BYE, or any failure of a path that carries none of the application's work.
     */
    boolean brokenPath(Path p) {
        if (!p.up) {
            return true;
        }
        if (device.failing(p.local)) {
            return true; // its adapter failed (it refuses verbs before its QPs say so)
        }
        QueuePair q = p.qp;
        if (q == null || !device.usable(p.local)) {
            return true;
        }
        QpFailure.Kind kind = q.failure().map(QpFailure::kind).orElse(null);
        if (kind == QpFailure.Kind.TRANSPORT) {
            return true;
        }
        if (kind == QpFailure.Kind.PEER_CLOSED && peer != null && !moves.peerSaidBye()) {
            return true; // a path the peer closed without saying BYE was left by a fail-over of the peer
        }
        return kind != null && kind != QpFailure.Kind.CONSUMER && !carries(p);
    }

    /** Whether path {@code p} carries the connection's work now (its Sends or its receives). */
    boolean carries(Path p) {
        return p.id == paths.send || p.id == paths.receive;
    }

    /** Whether the connection is set up and not failed for good: the monitor watches its paths. */
    boolean connected() {
        QpState s = state;
        return !closed && !endedByError && peer != null && (s == QpState.RTS || s == QpState.SQD);
    }

    /** Whether a move of its Sends or receives is in progress. */
    boolean migrating() {
        return moves.sendMoving() || moves.receivesMoving();
    }

    /** How many paths carry work or stand by now (set up, not failed). */
    int livePaths() {
        return paths.live();
    }

    /** How many paths the connection has when every adapter works (0 before it is set up). */
    int pathCount() {
        Hello p = peer;
        return p == null ? 0 : Paths.expected(device.config().topology(), device.adapterCount(), p.adapters().size()).size();
    }

    /** This side's adapter of the send path (moves with each fail-over), -1 before the connection is set up. */
    int sendAdapter() {
        Path p = paths.sendPath();
        return p == null ? -1 : p.local;
    }

    /** This side's adapter of the receive path, -1 before the connection is set up. */
    int receivePathAdapter() {
        Path p = paths.receivePath();
        return p == null ? -1 : p.local;
    }

    /** Completions of stale QPs this connection dropped. */
    long staleDropped() {
        return staleDropped.get() + receiving.stale();
    }

    /** The application polled the completion of send position {@code seq}. */
    void sendPolled(long seq) {
        sendLog.freedUpTo(seq);
    }

    void overflowed() {
        lock.lock();
        try {
            if (state != QpState.ERROR) {
                toError(QpFailure.Kind.LOCAL_ERROR, "a completion queue of QP " + qpNumber + " overflowed");
            }
        } finally {
            lock.unlock();
        }
        device.monitor().submit(moves::finish);
    }

    static CompletionOpcode opcodeOf(WorkRequest r) {
        return switch (r) {
            case WorkRequest.RdmaWrite w -> CompletionOpcode.RDMA_WRITE;
            case WorkRequest.RdmaRead rd -> CompletionOpcode.RDMA_READ;
            case WorkRequest.BindWindow b -> CompletionOpcode.BIND_WINDOW;
            case WorkRequest.LocalInvalidate l -> CompletionOpcode.LOCAL_INVALIDATE;
            default -> CompletionOpcode.SEND;
        };
    }

    // ---------------------------------------------------------------- state

    /**
     * Whether an event of path {@code p}'s QP is this connection's to pass on: only from a path that
     * carries it (or its first), and connection events (established, disconnected, errors) once.
     */
    boolean reports(Path p, AsyncEventType type) {
        if (!carries(p) && p.id != firstPath) {
            return false;
        }
        return switch (type) {
            case COMMUNICATION_ESTABLISHED, DISCONNECTED, QP_FATAL, QP_REQUEST_ERROR, QP_ACCESS_ERROR -> {
                lock.lock();
                try {
                    yield reported.add(type);
                } finally {
                    lock.unlock();
                }
            }
            default -> true;
        };
    }

    @Override
    public int qpNumber() {
        return qpNumber;
    }

    /** The state the application sees: the layer's, or ERROR once a path carrying it failed in its work. */
    @Override
    public QpState state() {
        QpState s = state;
        if ((s == QpState.RTS || s == QpState.SQD) && (failed(paths.sendPath()) || failed(paths.receivePath()))) {
            return QpState.ERROR;
        }
        if (s == QpState.SQD) {
            Path p = paths.sendPath();
            QueuePair q = p == null ? null : p.qp;
            return q == null ? s : q.state();
        }
        return s;
    }

    /**
     * Why the connection ended: no path left (TRANSPORT), the peer's application ended it (PEER_CLOSED),
     * the consumer did (CONSUMER), or an error of its work on a path, as that path's QP tells it.
     */
    @Override
    public Optional<QpFailure> failure() {
        if (state() != QpState.ERROR) {
            return Optional.empty();
        }
        QpFailure f = failure;
        if (f != null) {
            return Optional.of(f);
        }
        for (Path p : new Path[] {paths.sendPath(), paths.receivePath()}) {
            if (failed(p)) {
                return p.qp.failure();
            }
        }
        return Optional.empty();
    }

    /**
     * The connection ends here ({@code kind}, {@code detail} unless it had a cause already): ERROR, no
     * move runs any more, waiters wake, every path's QP goes to ERROR. Lock held. The caller then has
     * the monitor {@link ConnectionFailover#finish} what is outstanding.
     */
    void toError(QpFailure.Kind kind, String detail) {
        ended(kind, detail);
        state = QpState.ERROR;
        moves.stopMoving();
        pathReady.signalAll();
        for (Path p : paths.all()) {
            QueuePair q = p.qp;
            if (q != null) {
                modifyQuietly(q, QpState.ERROR);
            }
        }
    }

    /** The connection goes to ERROR for this cause, unless it had one already. Lock held. */
    void ended(QpFailure.Kind kind, String detail) {
        if (failure == null) {
            failure = new QpFailure(kind, detail);
        }
    }

    /** Whether path {@code p} ended in an error of the work (the ordinary verbs behaviour), not a broken transport. */
    private boolean failed(Path p) {
        if (p == null) {
            return false;
        }
        QueuePair q = p.qp;
        return q != null && q.state() == QpState.ERROR && !brokenPath(p);
    }

    @Override
    public QueuePairConfig config() {
        return config;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public void modify(QpState target) {
        checkUsable();
        if (target == null) {
            throw new InvalidArgumentException("modify: target state is null");
        }
        QpState current = state();
        if (!current.canModifyTo(target)) {
            throw new InvalidStateException("QP " + qpNumber + " cannot move from " + current + " to " + target
                    + " (allowed: to RESET or ERROR from any state, SQD from RTS, RTS from SQD)");
        }
        boolean finish = false;
        lock.lock();
        try {
            switch (target) {
                case ERROR -> {
                    toError(QpFailure.Kind.CONSUMER, "moved to ERROR by the consumer");
                    finish = true;
                }
                case RESET -> reset();
                case INIT -> state = QpState.INIT;
                case SQD, RTS -> {
                    if (target == QpState.SQD) {
                        proofs.proveNow(); // the drain then completes what was posted: the proof goes in before it
                    }
                    Path p = paths.sendPath();
                    if (p != null && p.qp != null) {
                        p.qp.modify(target);
                    }
                    state = target;
                }
                default -> throw new InvalidStateException("QP " + qpNumber + " cannot be moved to " + target + " by the consumer");
            }
        } finally {
            lock.unlock();
        }
        if (finish) {
            device.monitor().submit(moves::finish);
        }
    }

    /** Back to RESET: every path goes, the connection is forgotten, the logs are empty. Lock held. */
    private void reset() {
        for (Path p : paths.all()) {
            dropQp(p);
        }
        if (connectionId != 0) {
            device.disconnected(connectionId);
        }
        paths.clear();
        firstPath = Paths.NONE;
        reported.clear();
        peer = null;
        connectionId = 0;
        sentMessageId = 0;
        receiving.reset();
        moves.reset();
        proofs.reset();
        sendLog.clear();
        if (receiveLog != null) {
            for (int slot : receiveLog.inOrder()) {
                receiveLog.takeSlot(slot);
            }
        }
        mailbox.clear();
        failure = null;
        endedByError = false;
        sendsFinished = false;
        receivesFinished = false;
        state = QpState.RESET;
    }

    static void modifyQuietly(QueuePair q, QpState target) {
        try {
            if (q.state().canModifyTo(target)) {
                q.modify(target);
            }
        } catch (RuntimeException e) {
            // a failed adapter's QP is already in ERROR
        }
    }

    @Override
    public void disconnect() {
        checkUsable();
        if (moves.sayBye()) {
            // the BYE leaves before the closes: a close would flush it from the adapter's queue
            long deadline = System.nanoTime() + BYE_WAIT.toNanos();
            while (!moves.byeSent() && System.nanoTime() < deadline) {
                sendCq.adapterEvent();
                Thread.onSpinWait();
            }
        }
        lock.lock();
        try {
            disconnectAll();
            ended(QpFailure.Kind.CONSUMER, "disconnected by the consumer");
            state = QpState.ERROR;
            moves.stopMoving();
            pathReady.signalAll();
        } finally {
            lock.unlock();
        }
        device.monitor().submit(moves::finish);
    }

    /** Disconnects every path (its QP's connection closes). */
    void disconnectAll() {
        for (Path p : paths.all()) {
            QueuePair q = p.qp;
            if (q != null) {
                try {
                    q.disconnect();
                } catch (RuntimeException e) {
                    // the path failed already
                }
            }
        }
        if (connectionId != 0) {
            device.disconnected(connectionId);
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        Path p = paths.sendPath();
        QueuePair q = p == null ? null : p.qp;
        return q == null ? null : q.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        Path p = paths.sendPath();
        QueuePair q = p == null ? null : p.qp;
        return q == null ? null : q.remoteAddress();
    }

    @Override
    public int ird() {
        return negotiatedIrd;
    }

    @Override
    public int ord() {
        return negotiatedOrd;
    }

    void checkUsable() {
        if (closed) {
            throw new ResourceClosedException("queue pair " + qpNumber + " is closed");
        }
        device.checkOpen();
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            pathReady.signalAll();
        } finally {
            lock.unlock();
        }
        device.monitor().unwatch(this);
        device.monitor().forget(this);
        if (connectionId != 0) {
            device.disconnected(connectionId);
        }
        lock.lock();
        try {
            for (Path p : paths.all()) {
                dropQp(p);
            }
        } finally {
            lock.unlock();
        }
        sendCq.detach(this, true);
        receiveCq.detach(this, false);
        if (srq != null) {
            srq.detach(this);
        }
        // under both CQs' locks: a completion or the monitor's finish reading the logs or the mailbox ends first
        sendCq.locked(() -> receiveCq.locked(() -> {
            Quietly.close(receiveLog);
            Quietly.close(inline);
            sendHeaders.close();
            mailbox.close();
            arena.close();
        }));
        device.sessions().giveBack(session);
        device.limits.giveBack(ResourceLimits.Kind.QUEUE_PAIR);
        pd.forget(this);
    }

    /** Raises {@code type} on this QP as the device's event. */
    void raise(AsyncEventType type, String detail) {
        device.raise(new AsyncEvent(type, this, detail));
    }

    /** What a dump shows of this connection, read as it is without the lock (a dump never waits). */
    FailoverSnapshot.Connection snapshot() {
        Hello p = peer;
        List<FailoverSnapshot.PathView> views = new java.util.ArrayList<>();
        for (Path path : paths.all()) {
            QueuePair q = path.qp;
            views.add(new FailoverSnapshot.PathView(path.id, path.local, path.remote, path.generation, path.up,
                    q == null ? -1 : q.qpNumber(), q == null ? null : q.state(), path.downCause));
        }
        return new FailoverSnapshot.Connection(qpNumber, state, paths.connecting(), connectionId, p == null ? null : p.node(),
                paths.send, paths.receive, views, sentMessageId, sendLog.lastProvenMessageId(), receiving.received(),
                staleDropped(), receiving.duplicates(), moves.windowsRebound(), moves.sendMoveSince(), session);
    }

    @Override
    public String toString() {
        StringBuilder live = new StringBuilder();
        for (Path p : paths.all()) {
            live.append(live.isEmpty() ? "" : " ").append(p.id).append(p.up ? "+" : "-").append('g').append(p.generation);
        }
        return "QueuePair[" + qpNumber + " of " + device.name() + ", " + state() + ", send " + paths.describe(paths.send)
                + (moves.sendMoving() ? " (moving)" : "") + ", receive " + paths.describe(paths.receive)
                + (moves.receivesMoving() ? " (moving)" : "") + ", paths " + live + ", sent " + sentMessageId + ", received "
                + receiving.received() + ", log " + sendLog.released() + ".." + sendLog.next() + " unsent from "
                + sendLog.unsentFrom(sendLog.released()) + "]";
    }
}

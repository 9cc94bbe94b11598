package dev.tandem.failover;

import dev.tandem.provider.ResourceLimits;
import dev.tandem.provider.Validation;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.DeviceUnavailableException;
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
import java.util.concurrent.locks.Condition;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One connection of the application, with a path on each adapter: adapter k's QP connected to one
 * adapter of the peer. Sends go over the path that ends at the peer's receive adapter, receives are
 * posted on this side's receive adapter (the session's primary, or its SRQ's), so a connection may
 * run as two simplex paths. Every Send carries a {@link FailoverHeader}; Sends and Writes complete
 * for the application when a proof (an RDMA Read of the peer's proof region, posted after them)
 * completed, which shows the peer holds them.
 */
final class FailoverQueuePair implements QueuePair {
    /** Every this many requests, one is signalled on the adapter (it frees the adapter's queue slots). */
    static final int SIGNAL_EVERY = 8;
    /** Send-queue slots of an adapter QP beyond twice the application's: proofs. */
    static final int PROOF_SLOTS = 16;
    /** Tags a proof's work request id: the rest is the last send position it covers. */
    static final long PROOF = 1L << 62;
    /** Tags a heartbeat's work request id: the rest is the path. */
    static final long HEARTBEAT = 1L << 61;
    /** Tags the layer's own requests (mailbox writes, re-bound windows, invalidates replayed): their completions are dropped. */
    static final long CONTROL = 1L << 60;
    /** How long a post waits for the path it needs (set up by the peer's later paths, or a fail-over). */
    private static final Duration PATH_WAIT = Duration.ofSeconds(5);
    /** How long a disconnect waits for its BYE to leave. */
    static final Duration BYE_WAIT = Duration.ofMillis(200);

    final FailoverDevice device;
    final FailoverProtectionDomain pd;
    final QueuePairConfig config;
    final FirstLevelCq sendCq;
    final FirstLevelCq receiveCq;
    final FailoverSharedReceiveQueue srq;
    final int qpNumber;
    final QueuePair[] under;
    /** The peer's adapter index at the other end of each path, -1 while none. */
    final int[] peerOf;
    /** This side's adapter where receives are posted (moves in a fail-over). */
    volatile int recvAdapter;
    /** Paths that failed (their QP is stale: late completions are dropped, nothing more is posted there). */
    final boolean[] pathDead;
    /**
     * Per path: when its heartbeat went out, 0 while none is outstanding. The monitor sets it, before the
     * probe is posted; whichever thread polls the probe's answer clears it (atomic: the two race).
     */
    final AtomicLongArray heartbeatSent;
    final Mailbox mailbox;
    /** The fail-over of this connection in progress, or null. */
    volatile Migration migration;
    /** The connection's work failed (an ordinary verbs error): it ends, it does not fail over. */
    private volatile boolean endedByError;
    /** This side connected (the other accepted): it chooses the path of a fail-over. */
    boolean connectedActively;
    /** Completions of stale QPs dropped, Sends dropped as duplicates, headers of another incarnation. */
    private final java.util.concurrent.atomic.AtomicLong staleDropped = new java.util.concurrent.atomic.AtomicLong();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment sendHeaderSegment;
    private final FailoverMemoryRegion sendHeaders;
    /** "receive queue of QP n", for the queue-full message (made once: a post builds no string). */
    private final String receiveQueueName;
    /** Each send slot's header gather element, made once. */
    private final Sge[] headerSge;
    /** Where proofs and heartbeats land (8 bytes of the session's proof region), as a work request keeps it. */
    final List<Sge> proofSink;
    final ReceiveLog receiveLog;
    final SendLog sendLog;
    final ReentrantLock lock = new ReentrantLock();
    final Condition pathReady = lock.newCondition();
    /** Its fail-over protocol and how its paths are set up. */
    private final ConnectionFailover moves;
    private final PathSetup setup = new PathSetup(this);
    private final Proofs proofs = new Proofs(this);

    volatile QpState state = QpState.INIT;
    /** Why it went to ERROR, where the layer itself decided (no path left, the peer's BYE, the consumer); null otherwise. */
    private volatile QpFailure failure;
    volatile int sendPath = -1;
    /** The adapter of the connection's first path (its events are the connection's). */
    volatile int firstPath = -1;
    /** Connection events passed on once per connection. */
    final EnumSet<AsyncEventType> reported = EnumSet.noneOf(AsyncEventType.class);
    volatile boolean closed;
    long connectionId;
    Hello peer;
    int negotiatedIrd;
    int negotiatedOrd;
    /** Message ids: the last this side sent, and the last it received in order. */
    private int sentMessageId;
    volatile int receivedMessageId;

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
        this.recvAdapter = srq != null ? srq.adapter() : pd.primary();
        this.qpNumber = device.nextQpNumber();
        this.under = new QueuePair[device.adapterCount()];
        this.peerOf = new int[device.adapterCount()];
        java.util.Arrays.fill(peerOf, -1);
        this.pathDead = new boolean[device.adapterCount()];
        this.heartbeatSent = new AtomicLongArray(device.adapterCount());
        this.moves = new ConnectionFailover(this);
        this.sendLog = new SendLog(config.sendDepth());
        device.limits.take(ResourceLimits.Kind.QUEUE_PAIR);
        boolean attachedSend = false;
        boolean attachedReceive = false;
        ReceiveLog rl = null;
        FailoverMemoryRegion sh = null;
        Mailbox mb = null;
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
            rl = srq == null ? new ReceiveLog(pd, 2 * config.receiveDepth()) : null;
            mb = new Mailbox(pd);
            for (int k = 0; k < under.length; k++) {
                if (pd.under(k) != null && sendCq.under(k) != null && receiveCq.under(k) != null && device.usable(k)) {
                    under[k] = pd.under(k).createQueuePair(adapterConfig(k));
                    device.route(k, under[k].qpNumber(), this);
                }
            }
            if (under[recvAdapter] == null) {
                throw new dev.tandem.verbs.DeviceUnavailableException("adapter " + recvAdapter + " of " + device.name()
                        + ", where this QP's receives go, cannot carry work");
            }
        } catch (RuntimeException e) {
            closeUnder();
            if (rl != null) {
                rl.close();
            }
            if (sh != null) {
                sh.close();
            }
            if (mb != null) {
                mb.close();
            }
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
        this.sendHeaders = sh;
        this.receiveQueueName = "receive queue of QP " + qpNumber;
        this.headerSge = new Sge[config.sendDepth()];
        for (int i = 0; i < headerSge.length; i++) {
            headerSge[i] = new Sge(sh, (long) i * FailoverHeader.LENGTH, FailoverHeader.LENGTH);
        }
        this.proofSink = List.of(new Sge(pd.proofRegion(), FailoverProtectionDomain.PROOF_SINK, 8));
        this.receiveLog = rl;
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

    /** Adapter k's QP: room for the header element, the proofs, and the proof's and heartbeat's Reads each way. */
    QueuePairConfig adapterConfig(int k) {
        return new QueuePairConfig(sendCq.under(k), receiveCq.under(k), srq == null ? null : srq.under(k),
                2 * config.sendDepth() + PROOF_SLOTS, srq == null ? config.receiveDepth() : 1,
                config.maxSendSge() + 1, config.maxReceiveSge() + 1,
                config.maxInlineData() == 0 ? 0 : config.maxInlineData() + FailoverHeader.LENGTH,
                config.ird() + 2, config.ord() + 2, false);
    }

    // ---------------------------------------------------------------- connection set-up

    @Override
    public byte[] connect(InetSocketAddress remote, byte[] privateData, Duration timeout) {
        return setup.connect(remote, privateData, timeout);
    }

    /** How its paths are set up (connect, accept, joins, heals). */
    PathSetup setup() {
        return setup;
    }

    /** The layer's 8-byte RDMA Read of the peer's proof region (a proof or a heartbeat probe), signalled, with {@code wrId}. */
    WorkRequest readOfProof(long wrId) {
        return new WorkRequest.RdmaRead(wrId, proofSink, FailoverProtectionDomain.PROOF_SOURCE, peer.proofStag(), WrFlags.SIGNALED);
    }

    /** What its Sends and Writes wait for before they complete. */
    Proofs proofs() {
        return proofs;
    }

    /** Its fail-over protocol (the monitor thread runs it). */
    ConnectionFailover moves() {
        return moves;
    }

    int pathTo(int peerAdapter) {
        for (int k = 0; k < peerOf.length; k++) {
            if (peerOf[k] == peerAdapter && under[k] != null) {
                return k;
            }
        }
        return -1;
    }

    void checkPrivateData(byte[] data) {
        int max = device.attributes().maxPrivateData();
        if (data.length > max) {
            throw new InvalidArgumentException("private data of " + data.length + " bytes exceeds the maximum of " + max
                    + " (DeviceAttributes.maxPrivateData)");
        }
    }

    // ---------------------------------------------------------------- posting

    @Override
    public void postSend(WorkRequest request) {
        if (request == null) {
            throw new InvalidArgumentException("postSend: request is null");
        }
        checkUsable();
        QpState s = state;
        if (s == QpState.ERROR) {
            flushAtOnce(request);
            return;
        }
        if (s != QpState.RTS && s != QpState.SQD) {
            throw new InvalidStateException("postSend on QP " + qpNumber + " in state " + s
                    + ": sends may be posted in RTS (connect the QP or accept a request onto it first)");
        }
        checkSend(request);
        boolean prove = false;
        lock.lock();
        try {
            int k = awaitSendPath();
            if (k < 0) {
                lock.unlock();
                try {
                    flushAtOnce(request); // no path was left while the post waited
                } finally {
                    lock.lock();
                }
                return;
            }
            int messageId = isSend(request) ? sentMessageId + 1 : 0;
            long seq = sendLog.add(request, messageId);
            if (seq < 0) {
                throw new QueueFullException("send queue of QP " + qpNumber + " is full (" + config.sendDepth()
                        + " requests outstanding); poll completions before posting more");
            }
            if (device.faults.reached(FaultPoint.BEFORE_POST)) {
                k = sendPath; // the fault may have moved nothing yet; the post meets whatever it did
            }
            QueuePair q = under[k];
            try {
                q.postSend(onAdapter(k, request, seq, messageId));
            } catch (RuntimeException e) {
                if (!brokenPath(k)) {
                    sendLog.dropLast();
                    throw e;
                }
                // the path broke under the post: the request stays logged and goes again over the next path
                device.monitor().failover(this, k, q, e.getMessage());
            }
            if (isSend(request)) {
                sentMessageId = messageId;
            }
            if (SendLog.isPayload(request)) {
                prove = proofs.posted();
            }
        } finally {
            lock.unlock();
        }
        if (prove) {
            proofs.proveNow();
        }
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

    /** The request as adapter {@code k} runs it: ids are log positions; Sends get their header; only what ends a batch is signalled. */
    WorkRequest onAdapter(int k, WorkRequest request, long seq, int messageId) {
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
                w.bindingOn(k);
                yield new WorkRequest.BindWindow(seq, w.under(k), b.region(), b.offset(), b.windowLength(), b.access(), b.newKey(),
                        flags | WrFlags.SIGNALED);
            }
            case WorkRequest.LocalInvalidate l -> new WorkRequest.LocalInvalidate(seq, l.stag(), flags | WrFlags.SIGNALED);
        };
    }

    private List<Sge> withHeader(long seq, int type, WorkRequest send, int messageId, int invalidate) {
        int slot = (int) (seq % config.sendDepth());
        long at = (long) slot * FailoverHeader.LENGTH;
        int flags = WrFlags.has(send.flags(), WrFlags.SOLICITED) ? FailoverHeader.FLAG_SOLICITED : 0;
        FailoverHeader.write(sendHeaderSegment, at, type, flags, messageId, receivedMessageId, (int) connectionId,
                (int) send.length(), invalidate, device.keys().incarnation());
        return FailoverHeader.inFront(headerSge[slot], send.sgl());
    }

    /** Waits (bounded) for the path Sends take: the peer's later paths or a fail-over may still be setting it up. Lock held. */
    private int awaitSendPath() {
        long left = PATH_WAIT.toNanos();
        while (true) {
            if (state == QpState.ERROR) {
                return -1; // no path was left (while the post waited, or before)
            }
            if (sendPath >= 0 && migration == null) {
                return sendPath;
            }
            if (left <= 0) {
                throw new InvalidStateException("QP " + qpNumber + (migration != null ? " is still failing over after " : " has no path to the peer's receive adapter after ") + PATH_WAIT);
            }
            try {
                left = pathReady.awaitNanos(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InvalidStateException("interrupted while QP " + qpNumber + " waited for its path");
            }
        }
    }

    /** A post in ERROR completes at once, flushed (as on an adapter). */
    private void flushAtOnce(WorkRequest request) {
        sendCq.deliver(this, -1, request.wrId(), CompletionStatus.WR_FLUSH_ERR, opcodeOf(request), 0, 0, 0, 0);
    }

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
        if (state == QpState.ERROR) {
            receiveCq.deliver(this, -1, request.wrId(), CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.RECV, 0, 0, 0, 0);
            return;
        }
        boolean ended;
        lock.lock();
        try {
            awaitSteady();
            ended = state == QpState.ERROR;
            if (!ended) {
                postReceiveClaimed(receiveLog.claim(request, receiveQueueName));
            }
        } finally {
            lock.unlock();
        }
        if (ended) {
            // no path was left while the post waited: flushed at once, as a plain adapter does in ERROR
            receiveCq.deliver(this, -1, request.wrId(), CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.RECV, 0, 0, 0, 0);
        }
    }

    /** Waits (bounded) while the connection fails over: its receives are moving. Lock held. */
    private void awaitSteady() {
        long left = PATH_WAIT.toNanos();
        while (migration != null && left > 0) {
            try {
                left = pathReady.awaitNanos(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InvalidStateException("interrupted while QP " + qpNumber + " waited for its fail-over");
            }
        }
    }

    private void postReceiveClaimed(ReceiveRequest wire) {
        int k = recvAdapter;
        QueuePair q = under[k];
        try {
            q.postReceive(wire);
        } catch (QueueFullException e) {
            receiveLog.unclaim((int) wire.wrId());
            throw new QueueFullException("receive queue of QP " + qpNumber + " is full (" + config.receiveDepth() + " buffers posted)");
        } catch (RuntimeException e) {
            if (connected() && brokenPath(k)) {
                // the path broke under the post: the receive stays logged and is posted again on the next path
                device.monitor().failover(this, k, q, e.getMessage());
                return;
            }
            receiveLog.unclaim((int) wire.wrId());
            throw e;
        }
    }

    // ---------------------------------------------------------------- completions

    /** A completion of adapter {@code k}'s QP, polled through {@code cq}. */
    void adapterCompletion(int k, WorkCompletion wc, FirstLevelCq cq) {
        QueuePair q = under[k];
        if (q == null || q.qpNumber() != wc.qpNumber()) {
            staleDropped.incrementAndGet(); // a QP this connection left behind
            device.ras.staleDropped();
            return;
        }
        long id = wc.wrId();
        boolean ok = wc.status() == CompletionStatus.SUCCESS;
        if (wc.opcode() != CompletionOpcode.RECV && (id & (HEARTBEAT | CONTROL)) != 0) {
            if ((id & HEARTBEAT) != 0 && ok) {
                heartbeatSent.set((int) (id & 0xFF), 0);
            }
            if (id == (CONTROL | Mailbox.BYE)) {
                moves.byeSent = true;
            }
            return;
        }
        if (!ok && brokenPath(k)) {
            // the transport failed under this path: its work moves to another path, not to the application
            device.monitor().failover(this, k, q, q.failure().map(f -> f.detail()).orElse("path failed"));
            if ((id & PROOF) != 0 && wc.opcode() != CompletionOpcode.RECV) {
                proofs.proofFailed();
            }
            return;
        }
        if (!ok && !endedByError && uses(k)) {
            // the work failed, not the path: the connection ends as on a plain adapter, and the peer is told
            endedByError = true;
            device.monitor().submit(() -> moves.tellPeerTheEnd(k));
        }
        if (wc.opcode() == CompletionOpcode.RECV) {
            receiveCompletion(wc, cq);
        } else {
            proofs.sendCompletion(wc, cq);
        }
    }

    /** Whether path {@code k} failed in its transport (its work may go another way), not by an error of the work. */
    boolean brokenPath(int k) {
        if (pathDead[k]) {
            return true;
        }
        QueuePair q = under[k];
        if (q == null || !device.usable(k)) {
            return true;
        }
        QpFailure.Kind kind = q.failure().map(QpFailure::kind).orElse(null);
        // a path the peer closed without saying BYE was left by a fail-over of the peer, not ended by its application
        return kind == QpFailure.Kind.TRANSPORT || (kind == QpFailure.Kind.PEER_CLOSED && peer != null && !peerSaidBye());
    }

    /** Whether the peer's application disconnected (its BYE is in the mailbox). */
    private boolean peerSaidBye() {
        Mailbox.Record r = mailbox.read(Mailbox.BYE);
        return r != null && r.incarnation() == peer.incarnation();
    }

    private void receiveCompletion(WorkCompletion wc, FirstLevelCq cq) {
        ReceiveLog log = srq != null ? srq.log() : receiveLog;
        ReceiveRequest r = log.take(wc.wrId());
        if (r == null) {
            return;
        }
        long length = Math.max(0, wc.byteLength() - FailoverHeader.LENGTH);
        if (wc.status() == CompletionStatus.SUCCESS && (wc.flags() & WorkCompletion.FLAG_INVALIDATED) != 0) {
            pd.invalidated(wc.invalidatedStag());
        }
        if (wc.status() == CompletionStatus.SUCCESS) {
            long at = ReceiveLog.offset(wc.wrId());
            if (FailoverHeader.present(log.segment(), at)) {
                receivedMessageId = FailoverHeader.messageId(log.segment(), at);
                proofs.acked(FailoverHeader.lastAcked(log.segment(), at));
            }
        }
        if (!cq.deliver(this, -1, r.wrId(), wc.status(), CompletionOpcode.RECV, length, wc.invalidatedStag(), wc.flags(),
                wc.vendorError())) {
            overflowed();
        }
    }

    // ---------------------------------------------------------------- fail-over (the monitor thread runs these)

    int receivedMessageId() {
        return receivedMessageId;
    }

    void receivedMessageId(int id) {
        receivedMessageId = id;
    }

    /** Whether the connection is set up and not failed for good: the monitor watches its paths. */
    boolean connected() {
        QpState s = state;
        return !closed && !endedByError && peer != null && (s == QpState.RTS || s == QpState.SQD);
    }

    boolean migrating() {
        return migration != null;
    }

    /** Whether it uses a path on adapter {@code k}. */
    boolean uses(int k) {
        return k == sendPath || k == recvAdapter;
    }

    /** The peer's Send with Invalidate named {@code stag} (a rebuilt receive completion says so). */
    void invalidated(int stag) {
        pd.invalidated(stag);
    }

    /** How many paths carry work or stand by now (set up, not failed). */
    int livePaths() {
        int n = 0;
        for (int k = 0; k < under.length; k++) {
            if (under[k] != null && !pathDead[k] && peerOf[k] >= 0) {
                n++;
            }
        }
        return n;
    }

    /** The path a fail-over in progress moves to, or -1 when none runs. */
    int migrationPath() {
        Migration m = migration;
        return m == null ? -1 : m.path;
    }

    /** The peer's adapter at the other end of path {@code k}, or -1. */
    int peerAdapterOf(int k) {
        return peerOf[k];
    }

    /** This side's adapter where the connection's receives are posted now (moves with each fail-over). */
    int receiveAdapter() {
        return recvAdapter;
    }

    /** The adapter Sends take now, -1 before the connection is set up. */
    int sendPath() {
        return sendPath;
    }

    /** Completions of stale QPs this connection dropped. */
    long staleDropped() {
        return staleDropped.get();
    }

    /** The application polled the completion of send position {@code seq}. */
    void sendPolled(long seq) {
        sendLog.freedUpTo(seq);
    }

    void overflowed() {
        modify(QpState.ERROR);
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
     * Whether an event of adapter {@code k}'s QP is this connection's to pass on: only from a path it
     * uses, and connection events (established, disconnected, errors) once per connection.
     */
    boolean reports(int k, AsyncEventType type) {
        if (k != sendPath && k != recvAdapter && k != firstPath) {
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

    /** The state the application sees: the layer's, or ERROR once a path it uses failed. */
    @Override
    public QpState state() {
        QpState s = state;
        if (migration != null) {
            return s;
        }
        if ((s == QpState.RTS || s == QpState.SQD) && (failed(sendPath) || failed(recvAdapter))) {
            return QpState.ERROR;
        }
        if (s == QpState.SQD && sendPath >= 0) {
            return under[sendPath].state();
        }
        return s;
    }

    /**
     * Why the connection ended: no path left (TRANSPORT), the peer's application ended it (PEER_CLOSED),
     * the consumer did (CONSUMER), or an error of its work on a path, as that path's QP tells it.
     */
    @Override
    public java.util.Optional<QpFailure> failure() {
        if (state() != QpState.ERROR) {
            return java.util.Optional.empty();
        }
        QpFailure f = failure;
        if (f != null) {
            return java.util.Optional.of(f);
        }
        for (int k : new int[] {sendPath, recvAdapter}) {
            if (failed(k)) {
                return under[k].failure();
            }
        }
        return java.util.Optional.empty();
    }

    /**
     * The connection ends here ({@code kind}, {@code detail} unless it had a cause already): ERROR, no
     * fail-over runs any more, waiting posts wake, every path's QP goes to ERROR. Lock held.
     */
    void toError(QpFailure.Kind kind, String detail) {
        ended(kind, detail);
        state = QpState.ERROR;
        migration = null;
        pathReady.signalAll();
        for (QueuePair q : under) {
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

    /** Whether path {@code k} ended in an error of the work (the ordinary verbs behaviour), not a broken transport. */
    private boolean failed(int k) {
        return k >= 0 && under[k] != null && under[k].state() == QpState.ERROR && !brokenPath(k);
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
        lock.lock();
        try {
            switch (target) {
                case ERROR -> toError(QpFailure.Kind.CONSUMER, "moved to ERROR by the consumer");
                case RESET -> {
                    for (QueuePair q : under) {
                        if (q != null) {
                            modifyQuietly(q, QpState.RESET);
                        }
                    }
                    if (connectionId != 0) {
                        device.disconnected(connectionId);
                    }
                    java.util.Arrays.fill(peerOf, -1);
                    sendPath = -1;
                    firstPath = -1;
                    reported.clear();
                    peer = null;
                    connectionId = 0;
                    sentMessageId = 0;
                    receivedMessageId = 0;
                    proofs.reset();
                    sendLog.clear();
                    failure = null;
                    state = QpState.RESET;
                }
                case INIT -> {
                    for (QueuePair q : under) {
                        if (q != null && q.state() == QpState.RESET) {
                            modifyQuietly(q, QpState.INIT);
                        }
                    }
                    state = QpState.INIT;
                }
                case SQD, RTS -> {
                    if (target == QpState.SQD) {
                        proofs.proveNow(); // the drain then completes what was posted: the proof goes in before it
                    }
                    if (sendPath >= 0) {
                        under[sendPath].modify(target);
                    }
                    state = target;
                }
                default -> throw new InvalidStateException("QP " + qpNumber + " cannot be moved to " + target + " by the consumer");
            }
        } finally {
            lock.unlock();
        }
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
            while (!moves.byeSent && System.nanoTime() < deadline) {
                sendCq.adapterEvent();
                Thread.onSpinWait();
            }
        }
        lock.lock();
        try {
            disconnectAll();
            ended(QpFailure.Kind.CONSUMER, "disconnected by the consumer");
            state = QpState.ERROR;
        } finally {
            lock.unlock();
        }
    }

    void disconnectAll() {
        for (int k = 0; k < under.length; k++) {
            if (under[k] != null && peerOf[k] >= 0) {
                try {
                    under[k].disconnect();
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
        int k = sendPath;
        return k < 0 ? null : under[k].localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        int k = sendPath;
        return k < 0 ? null : under[k].remoteAddress();
    }

    @Override
    public int ird() {
        return negotiatedIrd;
    }

    @Override
    public int ord() {
        return negotiatedOrd;
    }

    /** This QP's QP on adapter {@code k}, or null. */
    QueuePair under(int k) {
        return under[k];
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
        closeUnder();
        sendCq.detach(this, true);
        receiveCq.detach(this, false);
        if (srq != null) {
            srq.detach(this);
        }
        if (receiveLog != null) {
            receiveLog.close();
        }
        sendHeaders.close();
        mailbox.close();
        arena.close();
        device.limits.giveBack(ResourceLimits.Kind.QUEUE_PAIR);
        pd.forget(this);
    }

    private void closeUnder() {
        for (int k = 0; k < under.length; k++) {
            QueuePair q = under[k];
            if (q != null) {
                device.unroute(k, q.qpNumber());
                Quietly.close(q);
            }
        }
    }

    /** What a dump shows of this connection, read as it is without the lock (a dump never waits). */
    FailoverSnapshot.Connection snapshot() {
        Hello p = peer;
        return new FailoverSnapshot.Connection(qpNumber, state, connectedActively, connectionId, p == null ? null : p.node(), sendPath,
                recvAdapter, under.clone(), peerOf.clone(), pathDead.clone(), sentMessageId, sendLog.lastProvenMessageId(),
                receivedMessageId, staleDropped.get(), moves.windowsRebound, moves.mailSeq, moves.reportSeq, moves.migratedSeq, migration);
    }

    @Override
    public String toString() {
        return "QueuePair[" + qpNumber + " of " + device.name() + ", " + state() + ", send path " + sendPath + ", receive adapter "
                + recvAdapter + "]";
    }
}

package dev.tandem.iwarp;

import dev.tandem.iwarp.ras.AdapterRas;
import dev.tandem.iwarp.ras.QpCounters;
import dev.tandem.iwarp.wire.TerminateCode;
import dev.tandem.provider.KitProtectionDomain;
import dev.tandem.provider.KitQueuePair;
import dev.tandem.provider.QueuePairCore;
import dev.tandem.provider.SendQueue;
import dev.tandem.provider.StagEntry;
import dev.tandem.provider.StagTable;
import dev.tandem.ras.TraceComponent;
import dev.tandem.ras.TraceEvent;
import dev.tandem.ras.TraceLevel;
import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.PeerIncarnation;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.WorkRequest;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A reliable-connected QP of the iWARP adapter: the verbs' state machine, the connection (MPA, the
 * transmitter and receiver), Terminates, and the move to ERROR with flush. Its queues, post-time
 * checks, completions and STag operations are the kit's {@link QueuePairCore}.
 */
final class IwQueuePair implements KitQueuePair, QpContext {
    private final IwarpDevice device;
    private final int qpNumber;
    /** Queues, checks, completions and STag operations, the same for every transport. */
    private final QueuePairCore core;
    private final SendQueue sq;
    private final QpCounters counters;
    private final SendQueue.Emitter sendEmitter = this::emitSend;
    private volatile Connection connection;
    /** The socket of a connect in progress (TCP connect or MPA exchange), null otherwise: a fatal error resets it. */
    private volatile SocketChannel connecting;
    /** The selector that connect waits on for the MPA Reply (woken by a reset), with {@link #connecting}. */
    private volatile Selector connectWait;
    private volatile boolean closed;
    /**
     * Why the QP went to ERROR, null outside ERROR: set before the state moves (whoever sees ERROR, an
     * event or a flushed completion can ask why), and setting it is what makes one failure the QP's.
     */
    private final AtomicReference<QpFailure> failure = new AtomicReference<>();
    /** Set by {@link #close} before it fails the QP: a QP being closed raises no DISCONNECTED. */
    private volatile boolean closing;
    /** An error the engine found on this QP, reported once by the next post (see {@link AsyncErrorException}). */
    private final AtomicReference<AsyncErrorException> postedError = new AtomicReference<>();

    IwQueuePair(IwarpDevice device, KitProtectionDomain pd, QueuePairConfig config, int qpNumber) {
        this.core = new QueuePairCore(pd, config, qpNumber);
        this.device = device;
        this.qpNumber = qpNumber;
        this.sq = core.sendQueue();
        try {
            this.counters = new QpCounters(device.ras(), qpNumber);
        } catch (RuntimeException e) {
            core.detachQueues();
            throw e;
        }
        trace(TraceLevel.ENTRY_EXIT, AdapterRas.QP_CREATE, config.sendDepth(), config.receiveDepth(), null);
    }

    @Override
    public int qpNumber() {
        return qpNumber;
    }

    @Override
    public QpState state() {
        return core.state();
    }

    @Override
    public boolean inError() {
        return core.inError();
    }

    @Override
    public boolean isDraining() {
        return core.state() == QpState.SQD;
    }

    @Override
    public QueuePairConfig config() {
        return core.config();
    }

    @Override
    public ProtectionDomain pd() {
        return core.pd();
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

    /**
     * A connect of this QP opened {@code ch} and waits on {@code selector} (nulls: it ended); throws when the
     * adapter failed meanwhile. Set before the check, as the fatal error fails the adapter before it resets
     * connects in progress: either the connect sees the failure here, or {@link #resetConnect} sees the socket.
     */
    void connectingOn(SocketChannel ch, Selector selector) {
        connectWait = selector;
        connecting = ch;
        if (ch != null) {
            device.checkOpen();
        }
    }

    /**
     * The adapter failed: a connect in progress is reset and its wait woken, so its caller fails at once;
     * the peer sees RST when the connect's selection lets go of the socket (java.nio closes it only then).
     */
    void resetConnect() {
        SocketChannel ch = connecting;
        Selector wait = connectWait;
        if (ch != null) {
            device.link().reset(ch);
            if (wait != null) {
                wait.wakeup();
            }
        }
    }

    /** Receives posted and not yet consumed (-1 when the QP takes them from an SRQ), for dumps. */
    int receivesPosted() {
        return core.receivesPosted();
    }

    @Override
    public int maxReceiveSge() {
        return core.maxReceiveSge();
    }

    @Override
    public int maxSendSge() {
        return core.config().maxSendSge();
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
        return core.associated(e, this);
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
        core.checkSendState();
        Connection c = connection;
        core.checkSend(request, c == null ? -1 : c.ord);
        long pos = core.enqueueSend(request);
        counters.sendQueued(pos + 1 - sq.head());
        if (core.inError()) {
            flushSendQueue(null, 0);
            return;
        }
        c = connection;
        if (c != null) {
            c.tx.poll();
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
        counters.receiveQueued(core.enqueueReceive(request));
        if (core.inError()) {
            flushReceives();
        }
    }

    @Override
    public ReceiveRequest takeReceive() {
        return core.takeReceive();
    }

    // ---------------------------------------------------------------- completions

    private void emitSend(WorkRequest wr, CompletionStatus status, int vendorError, long emittingPosition) {
        if (!core.completeSend(wr, status, vendorError, emittingPosition)) {
            fail(Failure.localFault("send completion queue overflowed"));
        }
    }

    @Override
    public void completeReceive(ReceiveRequest r, CompletionStatus status, long length, int flags, int invalidated, int vendorError) {
        if (!core.completeReceive(r, status, length, flags, invalidated, vendorError)) {
            fail(Failure.localFault("receive completion queue overflowed"));
        }
    }

    // ---------------------------------------------------------------- local operations (bind, invalidate)

    @Override
    public void executeLocal(long pos, WorkRequest wr) {
        CompletionStatus status = switch (wr) {
            case WorkRequest.BindWindow b -> core.bind(b, this);
            case WorkRequest.LocalInvalidate inv -> core.localInvalidate(inv.stag(), this);
            default -> CompletionStatus.LOC_QP_OP_ERR;
        };
        sq.finish(pos, status, 0);
        if (status != CompletionStatus.SUCCESS) {
            // a local error: QP_FATAL (QP_REQUEST_ERROR names a peer's invalid request); fail() logs
            // the error before it completes the slot, so whoever sees the completion sees the log
            fail(Failure.localFault("local " + wr.getClass().getSimpleName() + " wrId " + wr.wrId() + " failed: " + status));
        }
        sq.complete(sendEmitter);
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
        return switch (core.remoteInvalidate(stag, this)) {
            case DONE -> null;
            case NOT_ISSUED -> TerminateCode.RDMAP_CANNOT_INVALIDATE;
            case NOT_THIS_QPS -> TerminateCode.RDMAP_CANNOT_INVALIDATE_PROTECTION;
        };
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
        trace(TraceLevel.ENTRY_EXIT, AdapterRas.QP_MODIFY, core.state().ordinal(), target == null ? -1 : target.ordinal(),
                target == null ? null : core.state() + " -> " + target);
        QpState current = core.checkModify(target);
        switch (target) {
            case ERROR -> {
                fail(Failure.local("consumer moved QP " + qpNumber + " to ERROR"));
                // a duty cycle that was inside a receive of this QP ends first: nothing is placed after modify returns
                device.transport().awaitCycle();
            }
            case RESET -> {
                if (current != QpState.ERROR) {
                    fail(Failure.local("consumer moved QP " + qpNumber + " to RESET"));
                }
                connection = null;
                core.moveTo(QpState.RESET);
                failure.set(null);
            }
            case RTS -> {
                Connection c = connection;
                if (c == null || c.isClosed()) {
                    throw new InvalidStateException("QP " + qpNumber + " is not connected; connect it (or accept a request onto it) to reach RTS");
                }
                core.moveTo(QpState.RTS);
                c.tx.poll();
            }
            default -> core.moveTo(target);
        }
    }

    @Override
    public java.util.Optional<QpFailure> failure() {
        return java.util.Optional.ofNullable(failure.get());
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
        // the cause goes first, before the state and anything that completes: a QP seen in ERROR tells why;
        // of two failures racing, the one that set it is the one that fails the QP
        if (!failure.compareAndSet(null, new QpFailure(f.kind(), f.detail(), f.headStatus()))) {
            if (inProgress != null) {
                inProgress.run();
            }
            return;
        }
        QpState prev = core.enterError();
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
        if (core.usesSrq()) {
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
        core.flushSends(headStatus, vendorError, sendEmitter);
    }

    private void flushReceives() {
        if (!core.flushReceives()) {
            fail(Failure.localFault("receive completion queue overflowed"));
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
        QpState s = core.state();
        if ((s != QpState.INIT && s != QpState.RTR) || connection != null) {
            throw new InvalidStateException("connect on QP " + qpNumber + " in state " + s + "; a QP connects once, from INIT");
        }
        Mpa.Outcome outcome = Mpa.connect(device, this, remote, pd, timeout);
        establish(outcome.channel(), outcome.crc(), outcome.ird(), outcome.ord(), outcome.peer());
        return outcome.peerPrivateData();
    }

    /**
     * Makes the QP live on {@code channel} (after a successful MPA exchange); {@code peer} is the peer
     * node's life the exchange admitted (its frames are dropped once it is no longer current), or null.
     */
    void establish(SocketChannel channel, boolean crc, int ird, int ord, PeerIncarnation peer) {
        try {
            channel.configureBlocking(false);
            Connection c = new Connection(this, channel, crc, ird, ord, device.maxUlpdu(), device.link(), peer);
            connection = c;
            if (!core.established()) {
                c.close();
                throw new InvalidStateException("QP " + qpNumber + " left INIT while connecting (now " + core.state() + ")");
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
        if (connection != null && !core.inError()) {
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
        return c == null ? core.config().ird() : c.ird;
    }

    @Override
    public int ord() {
        Connection c = connection;
        return c == null ? core.config().ord() : c.ord;
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
        trace(TraceLevel.ENTRY_EXIT, AdapterRas.QP_CLOSE, core.state().ordinal(), 0, null);
        closing = true;
        if (!core.inError()) {
            fail(Failure.local("QP " + qpNumber + " closed"));
        }
        closed = true;
        Connection c = connection;
        if (c != null) {
            c.close();
        }
        core.detachQueues();
        device.transport().deactivate(this);
        counters.close();
        core.pd().forget(this);
    }

    @Override
    public String toString() {
        return "QueuePair[" + qpNumber + ", " + core.state() + (connection != null ? ", " + connection : "") + "]";
    }
}

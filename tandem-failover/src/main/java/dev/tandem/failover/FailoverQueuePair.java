package dev.tandem.failover;

import dev.tandem.provider.ResourceLimits;
import dev.tandem.provider.Validation;
import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
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
    private final Proofs proofs = new Proofs(this);
    final Receiving receiving;
    private final SendPosting sending;
    private final ReceivePosting receivePosting;
    private final ConnectionFailover moves;
    private final PeerMail mail = new PeerMail(this);
    private final ConnectionEnd ends = new ConnectionEnd(this);
    private final PathSetup setup = new PathSetup(this);
    private final Heartbeats heartbeats = new Heartbeats(this);
    /** The number the peer's headers carry to this connection (unique among the device's connections). */
    private final int session;
    /** Where proofs and heartbeats land (8 bytes of the session's proof region), as a work request keeps it. */
    final List<Sge> proofSink;
    private final AdapterCompletions completions = new AdapterCompletions(this);

    volatile QpState state = QpState.INIT;
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
        SendPosting sp = null;
        Mailbox mb = null;
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
            sp = new SendPosting(this);
            rl = srq == null ? new ReceiveLog(pd::registerInternal, config.receiveDepth()) : null;
            mb = new Mailbox(pd::registerInternal);
            sessionNumber = device.sessions().take();
        } catch (RuntimeException e) {
            if (sessionNumber != 0) {
                device.sessions().giveBack(sessionNumber);
            }
            Quietly.close(sp);
            Quietly.close(rl);
            Quietly.close(mb);
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
        this.sending = sp;
        this.receivePosting = new ReceivePosting(this, rl);
        this.proofSink = List.of(new Sge(pd.proofRegion(), FailoverProtectionDomain.PROOF_SINK, 8));
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

    // ---------------------------------------------------------------- what the protocol steps use

    PathSetup setup() {
        return setup;
    }

    ConnectionFailover moves() {
        return moves;
    }

    PeerMail mail() {
        return mail;
    }

    ConnectionEnd ends() {
        return ends;
    }

    Proofs proofs() {
        return proofs;
    }

    AdapterCompletions completions() {
        return completions;
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
        QpFailure f = ends.cause();
        return state == QpState.ERROR && f != null && f.kind() == QpFailure.Kind.PEER_CLOSED;
    }

    /** The layer's 8-byte RDMA Read of the peer's proof region (a proof or a heartbeat probe), signalled, with {@code wrId}. */
    WorkRequest readOfProof(long wrId) {
        return new WorkRequest.RdmaRead(wrId, proofSink, FailoverProtectionDomain.PROOF_SOURCE, peer.proofStag(), WrFlags.SIGNALED);
    }

    SendPosting sending() {
        return sending;
    }

    ReceivePosting receivePosting() {
        return receivePosting;
    }

    // ---------------------------------------------------------------- connection set-up

    @Override
    public byte[] connect(InetSocketAddress remote, byte[] privateData, Duration timeout) {
        return setup.connect(remote, privateData, timeout);
    }

    // ---------------------------------------------------------------- posting

    @Override
    public void postSend(WorkRequest request) {
        checkUsable();
        sending.post(request);
    }

    @Override
    public void postReceive(ReceiveRequest request) {
        checkUsable();
        receivePosting.post(request);
    }

    // ---------------------------------------------------------------- completions

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
        if (kind == QpFailure.Kind.PEER_CLOSED && peer != null && !mail.peerSaidBye()) {
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
        return completions.staleDropped() + receiving.stale();
    }

    /** The application polled the completion of send position {@code seq}. */
    void sendPolled(long seq) {
        sendLog.freedUpTo(seq);
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
        QpFailure f = ends.cause();
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
                    ends.toError(QpFailure.Kind.CONSUMER, "moved to ERROR by the consumer");
                    finish = true;
                }
                case RESET -> ends.reset();
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
            device.monitor().submit(ends::finish);
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
        ends.disconnect();
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
                setup.dropQp(p);
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
            receivePosting.close();
            sending.close();
            mailbox.close();
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
                paths.send, paths.receive, views, sending.sentMessageId(), sendLog.lastProvenMessageId(), receiving.received(),
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
                + (moves.receivesMoving() ? " (moving)" : "") + ", paths " + live + ", sent " + sending.sentMessageId() + ", received "
                + receiving.received() + ", log " + sendLog.released() + ".." + sendLog.next() + " unsent from "
                + sendLog.unsentFrom(sendLog.released()) + "]";
    }
}

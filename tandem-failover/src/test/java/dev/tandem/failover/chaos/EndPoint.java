package dev.tandem.failover.chaos;

import dev.tandem.failover.FailoverDevice;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionChannel;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.MemoryWindow;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.SharedReceiveQueue;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.random.RandomGenerator;

/**
 * One end of a connection: its QP and CQs, its regions (send sources, landing slots for the peer's
 * named Writes, the credit word the peer writes, known bytes the peer reads, Read sinks, receive
 * buffers of its own or of a shared queue), and its two halves. One driver thread owns it: polls its
 * CQs, watches its QP state and posts. Once its QP leaves RTS (or a completion fails) it is ended: it
 * posts no more, sends one probe that must flush, and waits for its outstanding work to flush.
 */
final class EndPoint {
    static final int MAX_READ = 2048;
    /** The wrId bits above the sequence or buffer number: whose request it is. */
    static final long TAG_MASK = ~((1L << 40) - 1);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    private final int id;
    private final int connection;
    private final int node;
    private final SendSide.Role role;
    private final EndShape shape;
    private final FailoverDevice device;
    private final QueuePair qp;
    private final CompletionQueue sendCq;
    private final CompletionQueue receiveCq;
    private final MemoryRegion source;
    private final MemoryRegion landing;
    private final MemoryRegion credit;
    private final MemoryRegion known;
    private final MemoryRegion readSink;
    private final MemoryWindow window;
    private final ReceiveBuffers buffers;
    private final boolean errorsAllowed;
    private final WorkCompletion[] wcs = WorkCompletion.array(16);
    /** The peer's keys, learnt from the private data at connection set-up. */
    volatile PeerKeys peerKeys;
    /** The rkey of the window the peer bound over its landing slots, 0 when it has none. */
    volatile int peerWindowRkey;
    private Findings findings;
    private SendSide send;
    private ReceiveSide receive;
    private volatile boolean ended;
    private volatile long endedAtNanos;
    private volatile String endedWhy;
    private boolean stateReported;
    private boolean sawError;
    private boolean backReported;
    private boolean probed;
    private boolean finished;
    /** Exceptions of the verbs by verb and class: the first of each is a finding, the rest are counted. */
    private final java.util.Map<String, Integer> exceptions = new java.util.TreeMap<>();

    private EndPoint(int id, int connection, int node, SendSide.Role role, EndShape shape, FailoverDevice device, QueuePair qp,
                     CompletionQueue sendCq, CompletionQueue receiveCq, MemoryRegion source, MemoryRegion landing, MemoryRegion credit,
                     MemoryRegion known, MemoryRegion readSink, MemoryWindow window, ReceiveBuffers buffers, boolean errorsAllowed) {
        this.id = id;
        this.connection = connection;
        this.node = node;
        this.role = role;
        this.shape = shape;
        this.device = device;
        this.qp = qp;
        this.sendCq = sendCq;
        this.receiveCq = receiveCq;
        this.source = source;
        this.landing = landing;
        this.credit = credit;
        this.known = known;
        this.readSink = readSink;
        this.window = window;
        this.buffers = buffers;
        this.errorsAllowed = errorsAllowed;
    }

    /** The bytes of one send source slot: room for the largest message or Write gathered with gaps. */
    static int sourceSlot(TrafficModel model) {
        return 2 * Math.max(model.maxMessage(), model.maxWrite());
    }

    static long sendTag(int id) {
        return 1L << 62 | (long) id << 40;
    }

    /**
     * Creates an end on {@code device} in {@code pd}: its CQs report to {@code channel} (its driver's);
     * with {@code shared} it receives from that shared queue, else from buffers of its own, all posted.
     */
    static EndPoint create(int id, int connection, int node, SendSide.Role role, EndShape shape, FailoverDevice device,
                           ProtectionDomain pd, CompletionChannel channel, SharedReceiveQueue srq, ReceiveBuffers shared, Arena arena,
                           TrafficModel model, Resources res, RandomGenerator rng, boolean errorsAllowed) {
        CompletionQueue sendCq = res.keep(Resources.Group.CQ, device.createCompletionQueue(shape.sendCqDepth(), channel));
        CompletionQueue receiveCq = shape.oneCq() ? sendCq
                : res.keep(Resources.Group.CQ, device.createCompletionQueue(shape.receiveCqDepth(), channel));
        QueuePairConfig config = new QueuePairConfig(sendCq, receiveCq, srq, shape.sendDepth(), srq == null ? shape.receiveCredits() : 1,
                3, 3, shape.maxInline(), 4, 4, shape.signalAll());
        QueuePair qp = res.keep(Resources.Group.QP, pd.createQueuePair(config));
        int rw = Access.LOCAL_WRITE | Access.REMOTE_WRITE;
        MemoryRegion source = region(pd, arena, (long) shape.sendDepth() * sourceSlot(model), Access.LOCAL_WRITE, res);
        MemoryRegion landing = region(pd, arena, (long) shape.receiveCredits() * model.maxWrite(), rw | (shape.window() ? Access.MW_BIND : 0),
                res);
        MemoryWindow window = shape.window() ? res.keep(Resources.Group.MW, pd.allocateMemoryWindow()) : null;
        MemorySegment word = arena.allocate(64, 64);
        word.set(LONG, 0, 0);
        word.set(LONG, 8, ~0L);
        MemoryRegion credit = res.keep(Resources.Group.MR, pd.registerMemory(word, rw));
        MemorySegment knownBytes = arena.allocate(model.knownLength(), 64);
        MemorySegment.copy(model.known(connection, node), 0, knownBytes, ValueLayout.JAVA_BYTE, 0, model.knownLength());
        MemoryRegion known = res.keep(Resources.Group.MR, pd.registerMemory(knownBytes, Access.REMOTE_READ));
        MemoryRegion readSink = region(pd, arena, (long) shape.reads() * MAX_READ, rw, res);
        ReceiveBuffers buffers = shared;
        if (buffers == null) {
            MemoryRegion r = region(pd, arena, ReceiveBuffers.regionSize(shape.receiveCredits(), model.maxMessage()), Access.LOCAL_WRITE, res);
            buffers = ReceiveBuffers.own(qp, r, shape.receiveCredits(), model.maxMessage(), 1 + id);
            for (int b = 0; b < shape.receiveCredits(); b++) {
                buffers.post(b, rng);
            }
        }
        return new EndPoint(id, connection, node, role, shape, device, qp, sendCq, receiveCq, source, landing, credit, known, readSink,
                window, buffers, errorsAllowed);
    }

    private static MemoryRegion region(ProtectionDomain pd, Arena arena, long size, int access, Resources res) {
        return res.keep(Resources.Group.MR, pd.registerMemory(arena.allocate(size, 64), access));
    }

    /** What this end tells its peer at connection set-up. */
    PeerKeys keys() {
        return new PeerKeys(connection, shape.receiveCredits(), landing.rkey(), credit.rkey(), known.rkey());
    }

    /**
     * Binds this end's window over its whole landing region through its QP (before traffic), waiting
     * up to {@code bound} for the bind's completion; its rkey, or 0 when there is no window or the bind
     * failed (a finding).
     */
    int bindWindow(java.time.Duration bound, Findings f, RandomGenerator rng) {
        if (window == null) {
            return 0;
        }
        long wrId = sendTag(id) | ((1L << 40) - 1);
        try {
            qp.postSend(new WorkRequest.BindWindow(wrId, window, landing, 0, landing.length(), Access.REMOTE_WRITE, 1 + rng.nextInt(255),
                    WrFlags.SIGNALED));
        } catch (RuntimeException e) {
            f.add(Check.EXCEPTION, name() + ": postSend of a BindWindow threw " + e);
            return 0;
        }
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (sendCq.await(wcs, java.time.Duration.ofMillis(10)) > 0) {
                WorkCompletion wc = wcs[0];
                if (wc.wrId() != wrId || wc.status() != dev.tandem.verbs.CompletionStatus.SUCCESS
                        || wc.opcode() != dev.tandem.verbs.CompletionOpcode.BIND_WINDOW) {
                    f.add(Check.STATUS, name() + ": the window's bind completed " + wc);
                    return 0;
                }
                return window.rkey();
            }
        }
        f.add(Check.NO_OUTCOME, name() + ": the window's bind did not complete within " + bound);
        return 0;
    }

    /** Connected: builds the halves over the peer's keys. */
    void start(PeerKeys peer, TrafficModel model, StreamState out, StreamState in, Findings f, RandomGenerator rng) {
        this.findings = f;
        StreamCheck check = new StreamCheck(model, in, f, name(),
                (offset, length) -> landing.segment().asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE), shape.receiveCredits());
        this.receive = new ReceiveSide(this, buffers, check, in, f, rng, errorsAllowed);
        this.send = new SendSide(this, model, f, out, in, check, peer, rng, role, errorsAllowed);
    }

    /** One step of the end's owner: polls, watches the QP state, posts; true when anything happened. */
    boolean step(boolean drain) {
        boolean progress = poll(sendCq);
        if (receiveCq != sendCq) {
            progress |= poll(receiveCq);
        }
        watchState();
        if (!ended) {
            progress |= receive.retry();
            progress |= send.pump(drain, receive.consumed());
        }
        return progress;
    }

    private boolean poll(CompletionQueue cq) {
        int n;
        try {
            n = cq.poll(wcs);
        } catch (RuntimeException e) {
            threw("poll", e, "");
            return false;
        }
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs[i];
            if ((wc.wrId() & TAG_MASK) == sendTag(id)) {
                send.onCompletion(wc);
            } else if (receive.owns(wc.wrId())) {
                receive.onCompletion(wc);
            } else {
                findings.add(Check.COMPLETION, name() + ": a completion this end never asked for: " + wc);
            }
        }
        return n > 0;
    }

    private void watchState() {
        QpState s = qp.state();
        if (s == QpState.RTS) {
            if (sawError && !backReported) {
                backReported = true;
                findings.add(Check.QP_STATE, name() + ": QP " + qp.qpNumber() + " is RTS again after it was seen in ERROR (only a"
                        + " reset and a new connection may leave ERROR)");
            }
            return;
        }
        sawError |= s == QpState.ERROR;
        if (!errorsAllowed && !stateReported) {
            stateReported = true;
            findings.add(Check.QP_STATE, name() + ": QP " + qp.qpNumber() + " is " + s + " (" + qp.failure().map(Object::toString)
                    .orElse("no failure told") + ") while each node kept a working adapter");
        }
        ended("QP in " + s);
        if (s == QpState.ERROR && !probed) {
            probed = true;
            send.probe();
        }
    }

    /** The end stops posting: its QP left RTS or a completion failed. */
    void ended(String why) {
        if (!ended) {
            endedAtNanos = System.nanoTime();
            endedWhy = why;
            ended = true;
            send.outStream().broken = true;
        }
    }

    /**
     * A verb threw: the first exception of each verb and class is a finding, the rest are counted (the
     * application goes on and tries again, as one would).
     */
    void threw(String verb, RuntimeException e, String context) {
        if (e instanceof dev.tandem.verbs.AsyncErrorException && qp.state() != QpState.RTS) {
            return; // the verbs report a QP's background error once, on the next call, once it is in ERROR: as documented
        }
        String key = verb + " " + e.getClass().getSimpleName();
        if (exceptions.merge(key, 1, Integer::sum) == 1) {
            findings.add(Check.EXCEPTION, name() + ": " + verb + " threw " + e + context);
        }
    }

    /** True when this end has nothing more to do, in the drain phase: drained, or ended and flushed. */
    boolean done(boolean drain) {
        if (!finished) {
            // an ended end polls on until the drain: a receive completed before the end may still be queued
            finished = drain && (ended ? send.flushed() && receive.flushed() : send.drained() && receive.drained());
        }
        return finished;
    }

    /**
     * After its driver stopped: polls what is left, then reports what never got an outcome: signalled
     * requests, and own receives of an ended QP that never flushed.
     */
    void finish() {
        while (poll(sendCq) | (receiveCq != sendCq && poll(receiveCq))) {
            // a completion handled now is still checked like any other
        }
        watchState();
        var left = send.ledger().unresolvedSignalled();
        if (!left.isEmpty()) {
            findings.add(Check.NO_OUTCOME, name() + ": " + left.size() + " signalled requests never completed, first " + left.getFirst()
                    + " (QP " + qp.state() + ")");
        }
        if (ended && !receive.flushed()) {
            findings.add(Check.NO_OUTCOME, name() + ": " + buffers.outstanding() + " receives of the ended QP never flushed");
        }
        send.ledger().summarise();
        receive.summarise();
        exceptions.forEach((key, n) -> {
            if (n > 1) {
                findings.add(Check.EXCEPTION, name() + ": " + key + " " + (n - 1) + " more times");
            }
        });
    }

    /** The end's state in words, for a stall report. */
    String describe() {
        String paths;
        try {
            paths = "livePaths " + device.livePaths(qp) + ", adapterOf " + device.adapterOf(qp) + " (" + qp + ")";
        } catch (RuntimeException e) {
            paths = "paths unknown (" + e.getMessage() + ")";
        }
        return name() + " [" + role + "] QP " + qp.qpNumber() + " " + qp.state() + (ended ? " ended (" + endedWhy + ")" : "") + ", " + paths + "; "
                + send.describe() + "; " + receive.describe();
    }

    String name() {
        return Nodes.name(node) + "/conn" + connection;
    }

    int id() {
        return id;
    }

    int connection() {
        return connection;
    }

    int node() {
        return node;
    }

    EndShape shape() {
        return shape;
    }

    FailoverDevice device() {
        return device;
    }

    QueuePair qp() {
        return qp;
    }

    MemoryRegion source() {
        return source;
    }

    MemoryRegion credit() {
        return credit;
    }

    MemoryRegion readSink() {
        return readSink;
    }

    CompletionQueue sendCq() {
        return sendCq;
    }

    CompletionQueue receiveCq() {
        return receiveCq;
    }

    boolean isEnded() {
        return ended;
    }

    long endedAtNanos() {
        return endedAtNanos;
    }

    SendSide send() {
        return send;
    }

    ReceiveSide receive() {
        return receive;
    }
}

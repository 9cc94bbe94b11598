package dev.tandem.failover;

import dev.tandem.failover.check.CheckedStream;
import dev.tandem.failover.check.StreamShape;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.SharedReceiveQueue;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two fail-over nodes in this process, {@code a} (127.0.k.1) and {@code b} (127.0.k.2), each over
 * {@code adapters} iWARP adapters, one connection from a to b, and a checked stream over it: each
 * message is a Send after an RDMA Write of the same bytes, carrying its sequence number; the receiver
 * checks every one (once, in order, its bytes, the Write before it) and that the application saw only
 * successful completions, in posting order. Counts carry over from one {@link #stream} to the next.
 */
final class TwoNodes implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(10);
    static final int SIZE = 256;
    static final int DEPTH = 32;

    /** One side of the connection: its QP, CQ and a region of 2 x DEPTH slots. */
    record Side(QueuePair qp, CompletionQueue cq, MemoryRegion region, SharedReceiveQueue srq) {
        /** Posts a receive to the QP, or to its shared receive queue when it has one. */
        void postReceive(ReceiveRequest r) {
            if (srq != null) {
                srq.postReceive(r);
            } else {
                qp.postReceive(r);
            }
        }

        FailoverQueuePair failover() {
            return (FailoverQueuePair) qp;
        }
    }

    final FailoverDevice a;
    final FailoverDevice b;
    final Side sa;
    final Side sb;
    private final Arena arena = Arena.ofShared();
    int sent;
    int sendsDone;
    int received;

    /** The shipped checked stream from a to b ({@link #withCheckedStream}), or null when the nodes stream by {@link #stream}. */
    final CheckedStream checked;

    TwoNodes(int adapters, Topology topology) throws Exception {
        this(adapters, topology, false, null, UnaryOperator.identity());
    }

    /** Nodes whose configuration {@code tune} changes (e.g. proof batching). */
    TwoNodes(int adapters, Topology topology, UnaryOperator<FailoverConfig> tune) throws Exception {
        this(adapters, topology, false, null, tune);
    }

    /** With {@code sharedAtB}, b's QP takes its receives from a shared receive queue. */
    TwoNodes(int adapters, Topology topology, boolean sharedAtB) throws Exception {
        this(adapters, topology, sharedAtB, null, UnaryOperator.identity());
    }

    /**
     * Two nodes whose connection carries the shipped checked stream of {@code shape} (CRC32C on every
     * message and block, credits back): made before the connection, so b's receives are posted first.
     */
    static TwoNodes withCheckedStream(int adapters, Topology topology, StreamShape shape) throws Exception {
        return new TwoNodes(adapters, topology, false, shape, UnaryOperator.identity());
    }

    private TwoNodes(int adapters, Topology topology, boolean sharedAtB, StreamShape shape, UnaryOperator<FailoverConfig> tune)
            throws Exception {
        a = node("a", 1, adapters, topology, tune);
        FailoverDevice bb;
        try {
            bb = node("b", 2, adapters, topology, tune);
        } catch (RuntimeException e) {
            a.close();
            throw e;
        }
        b = bb;
        sa = side(a, false);
        sb = side(b, sharedAtB);
        if (shape == null) {
            checked = null;
            for (int i = 0; i < DEPTH; i++) {
                sb.postReceive(new ReceiveRequest(i, new Sge(sb.region, (long) i * SIZE, SIZE)));
            }
        } else {
            checked = CheckedStream.between(sa.qp, sb.qp, shape);
        }
        // as most servers do, b stops listening once it has its connection: paths heal without the application's listener
        try (Listener l = b.listen(new InetSocketAddress("127.0.1.2", 0), 4)) {
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                ConnectionRequest r = l.accept(WAIT);
                r.accept(sb.qp, new byte[0]);
            });
            sa.qp.connect(l.localAddress(), new byte[0], WAIT);
            accepted.get(10, TimeUnit.SECONDS);
        }
        awaitAllPaths(); // the backups join in the background once connect returned
    }

    private static FailoverDevice node(String name, int host, int adapters, Topology topology, UnaryOperator<FailoverConfig> tune) {
        List<String> names = new ArrayList<>();
        for (int k = 1; k <= adapters; k++) {
            names.add("iwarp://127.0." + k + "." + host);
        }
        return FailoverDevice.open(tune.apply(FailoverConfig.of(name, names).withTopology(topology)));
    }

    private Side side(FailoverDevice d, boolean shared) {
        ProtectionDomain pd = d.allocateProtectionDomain();
        CompletionQueue cq = d.createCompletionQueue(4 * DEPTH);
        MemoryRegion r = pd.registerMemory(arena.allocate((long) SIZE * DEPTH * 2, 64),
                Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
        SharedReceiveQueue srq = shared ? pd.createSharedReceiveQueue(2 * DEPTH, 1) : null;
        QueuePairConfig config = QueuePairConfig.of(cq).withDepths(DEPTH, DEPTH);
        QueuePair qp = pd.createQueuePair(srq == null ? config : config.withSrq(srq));
        return new Side(qp, cq, r, srq);
    }

    /**
     * Streams {@code messages} more messages, calling {@code fault} once after {@code faultAt} of them,
     * and checks every one; fails on any error completion or a stall.
     */
    void stream(int messages, int faultAt, Runnable fault) {
        MemorySegment src = sa.region.segment();
        int end = sent + messages;
        int faultAfter = sent + faultAt;
        boolean faulted = false;
        int outstanding = 2 * sent - sendsDone;
        WorkCompletion[] wcs = WorkCompletion.array(16);
        long deadline = System.nanoTime() + WAIT.toNanos() * 3;
        while (received < end || sendsDone < 2 * end) {
            assertThat(System.nanoTime()).as("stream stalled: sent %d, sends done %d, received %d", sent, sendsDone, received)
                    .isLessThan(deadline);
            if (!faulted && sent == faultAfter) {
                fault.run();
                faulted = true;
            }
            if (sent < end && outstanding < DEPTH / 2 && sent - received < DEPTH) {
                int slot = sent % DEPTH;
                long at = (long) slot * SIZE;
                src.asSlice(at, SIZE).fill((byte) (sent * 7));
                src.set(ValueLayout.JAVA_INT_UNALIGNED, at, sent);
                sa.qp.postSend(new WorkRequest.RdmaWrite(2L * sent, new Sge(sa.region, at, SIZE), (long) SIZE * DEPTH + at,
                        sb.region.rkey(), WrFlags.SIGNALED));
                sa.qp.postSend(new WorkRequest.Send(2L * sent + 1, new Sge(sa.region, at, SIZE), WrFlags.SIGNALED));
                sent++;
                outstanding += 2;
            }
            int n = sa.cq.poll(wcs);
            for (int i = 0; i < n; i++) {
                assertThat(wcs[i].status()).as("sender completion %s", wcs[i]).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(wcs[i].wrId()).as("sender completions in posting order").isEqualTo(sendsDone);
                sendsDone++;
                outstanding--;
            }
            n = sb.cq.poll(wcs);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs[i];
                assertThat(wc.status()).as("receive %s", wc).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(wc.opcode()).isEqualTo(CompletionOpcode.RECV);
                assertThat(wc.byteLength()).isEqualTo(SIZE);
                int slot = (int) wc.wrId();
                assertThat(slot).as("receive buffers complete in posting order").isEqualTo(received % DEPTH);
                MemorySegment got = sb.region.segment().asSlice((long) slot * SIZE, SIZE);
                assertThat(got.get(ValueLayout.JAVA_INT_UNALIGNED, 0)).as("message %d arrives once, in order", received)
                        .isEqualTo(received);
                assertThat(got.get(ValueLayout.JAVA_BYTE, SIZE - 1)).isEqualTo((byte) (received * 7));
                MemorySegment written = sb.region.segment().asSlice((long) SIZE * DEPTH + (long) slot * SIZE, SIZE);
                assertThat(written.get(ValueLayout.JAVA_INT_UNALIGNED, 0)).as("the Write before message %d landed", received)
                        .isEqualTo(received);
                received++;
                sb.postReceive(new ReceiveRequest(slot, new Sge(sb.region, (long) slot * SIZE, SIZE)));
            }
        }
        assertThat(sa.qp.state()).isEqualTo(QpState.RTS);
        assertThat(sb.qp.state()).isEqualTo(QpState.RTS);
    }

    /** Waits (bounded) until both sides of the connection have every path the topology gives them live. */
    void awaitAllPaths() {
        int n = sa.failover().pathCount();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (sa.failover().livePaths() < n || sb.failover().livePaths() < n) {
            assertThat(System.nanoTime()).as("paths set up again: a has %d, b has %d of %d", sa.failover().livePaths(),
                    sb.failover().livePaths(), n).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /** The first path of {@code qp} whose own end is adapter {@code k}. */
    static Path pathOn(FailoverQueuePair qp, int k) {
        return qp.paths.on(k).getFirst();
    }

    static List<FailoverEvent> events(FailoverWatch w) {
        List<FailoverEvent> l = new ArrayList<>();
        FailoverEvent e;
        while ((e = w.poll(Duration.ZERO)) != null) {
            l.add(e);
        }
        return l;
    }

    /**
     * The events {@code w} has told, waiting up to {@link #WAIT} for one of {@code kind} (a move's last step may
     * come after the stream that crossed it ended); the caller asserts on what came.
     */
    static List<FailoverEvent> eventsUntil(FailoverWatch w, Class<? extends FailoverEvent> kind) {
        List<FailoverEvent> l = new ArrayList<>();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (l.stream().noneMatch(kind::isInstance) && System.nanoTime() < deadline) {
            FailoverEvent e = w.poll(Duration.ofMillis(50));
            if (e != null) {
                l.add(e);
            }
        }
        l.addAll(events(w));
        return l;
    }

    /** Polls one completion of {@code cq} (a copy), failing after {@link #WAIT} with {@code what}. */
    static WorkCompletion awaitOne(CompletionQueue cq, String what) {
        WorkCompletion[] wcs = WorkCompletion.array(1);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (cq.poll(wcs) == 0) {
            assertThat(System.nanoTime()).as("waiting for %s", what).isLessThan(deadline);
            Thread.onSpinWait();
        }
        return new WorkCompletion().copyFrom(wcs[0]);
    }

    @Override
    public void close() {
        try {
            if (checked != null) {
                checked.close();
            }
            b.close();
        } finally {
            try {
                a.close();
            } finally {
                arena.close();
            }
        }
    }
}

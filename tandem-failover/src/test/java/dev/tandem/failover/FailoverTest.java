package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.LinkControl;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A connection between two fail-over nodes keeps every Send and Write through a fault of one of its
 * adapters: each message arrives once, in order, with its bytes, and the application sees only
 * successful completions.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FailoverTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int MESSAGES = 400;
    private static final int SIZE = 256;
    private static final int DEPTH = 32;

    private final Arena arena = Arena.ofShared();
    private final List<AutoCloseable> open = new ArrayList<>();
    private FailoverDevice a;
    private FailoverDevice b;

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        arena.close();
    }

    private FailoverDevice node(String name, String... ips) {
        FailoverDevice d = FailoverDevice.open(FailoverConfig.of(name, List.of("iwarp://" + ips[0], "iwarp://" + ips[1])));
        open.add(d);
        return d;
    }

    /** One side of the connection: its QP, CQ and a region of DEPTH slots. */
    private record Side(QueuePair qp, CompletionQueue cq, MemoryRegion region) {
    }

    private Side side(FailoverDevice d) {
        ProtectionDomain pd = d.allocateProtectionDomain();
        CompletionQueue cq = d.createCompletionQueue(4 * DEPTH);
        MemoryRegion r = pd.registerMemory(arena.allocate((long) SIZE * DEPTH * 2, 64),
                Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
        QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq).withDepths(DEPTH, DEPTH));
        return new Side(qp, cq, r);
    }

    private Side[] connect() throws Exception {
        a = node("a", "127.0.1.1", "127.0.2.1");
        b = node("b", "127.0.1.2", "127.0.2.2");
        Side sa = side(a);
        Side sb = side(b);
        for (int i = 0; i < DEPTH; i++) {
            sb.qp.postReceive(new ReceiveRequest(i, new Sge(sb.region, (long) i * SIZE, SIZE)));
        }
        Listener l = b.listen(new InetSocketAddress("127.0.1.2", 0), 4);
        CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
            ConnectionRequest r = l.accept(WAIT);
            r.accept(sb.qp, new byte[0]);
        });
        sa.qp.connect(l.localAddress(), new byte[0], WAIT);
        accepted.get(10, TimeUnit.SECONDS);
        return new Side[] {sa, sb};
    }

    /** Counts of one checked stream, kept across faults. */
    private static final class Counts {
        int sent;
        int sendsDone;
        int received;
    }

    private final Counts counts = new Counts();

    /**
     * Streams MESSAGES more Sends (each after an RDMA Write of the same bytes into the peer's second half),
     * calling {@code fault} once, after {@code faultAt} of them; checks every message on arrival: its
     * sequence number (once, in order), its bytes and the Write before it, and that the application saw
     * only successful completions, in posting order.
     */
    private void stream(Side sa, Side sb, int faultAt, Runnable fault) {
        MemorySegment src = sa.region.segment();
        Counts c = counts;
        int end = c.sent + MESSAGES;
        int faultAfter = c.sent + faultAt;
        boolean faulted = false;
        int outstanding = 2 * c.sent - c.sendsDone;
        WorkCompletion[] wcs = WorkCompletion.array(16);
        long deadline = System.nanoTime() + WAIT.toNanos() * 3;
        while (c.received < end || c.sendsDone < 2 * end) {
            assertThat(System.nanoTime()).as("stream stalled: sent %d, sends done %d, received %d", c.sent, c.sendsDone, c.received)
                    .isLessThan(deadline);
            if (!faulted && c.sent == faultAfter) {
                fault.run();
                faulted = true;
            }
            if (c.sent < end && outstanding < DEPTH / 2 && c.sent - c.received < DEPTH) {
                int slot = c.sent % DEPTH;
                long at = (long) slot * SIZE;
                src.asSlice(at, SIZE).fill((byte) (c.sent * 7));
                src.set(ValueLayout.JAVA_INT_UNALIGNED, at, c.sent);
                sa.qp.postSend(new WorkRequest.RdmaWrite(2L * c.sent, new Sge(sa.region, at, SIZE), (long) SIZE * DEPTH + at,
                        sb.region.rkey(), WrFlags.SIGNALED));
                sa.qp.postSend(new WorkRequest.Send(2L * c.sent + 1, new Sge(sa.region, at, SIZE), WrFlags.SIGNALED));
                c.sent++;
                outstanding += 2;
            }
            int n = sa.cq.poll(wcs);
            for (int i = 0; i < n; i++) {
                assertThat(wcs[i].status()).as("sender completion %s", wcs[i]).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(wcs[i].wrId()).as("sender completions in posting order").isEqualTo(c.sendsDone);
                c.sendsDone++;
                outstanding--;
            }
            n = sb.cq.poll(wcs);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs[i];
                assertThat(wc.status()).as("receive %s", wc).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(wc.opcode()).isEqualTo(CompletionOpcode.RECV);
                assertThat(wc.byteLength()).isEqualTo(SIZE);
                int slot = (int) wc.wrId();
                assertThat(slot).as("receive buffers complete in posting order").isEqualTo(c.received % DEPTH);
                MemorySegment got = sb.region.segment().asSlice((long) slot * SIZE, SIZE);
                assertThat(got.get(ValueLayout.JAVA_INT_UNALIGNED, 0)).as("message %d arrives once, in order", c.received)
                        .isEqualTo(c.received);
                assertThat(got.get(ValueLayout.JAVA_BYTE, SIZE - 1)).isEqualTo((byte) (c.received * 7));
                MemorySegment written = sb.region.segment().asSlice((long) SIZE * DEPTH + (long) slot * SIZE, SIZE);
                assertThat(written.get(ValueLayout.JAVA_INT_UNALIGNED, 0)).as("the Write before message %d landed", c.received)
                        .isEqualTo(c.received);
                c.received++;
                sb.qp.postReceive(new ReceiveRequest(slot, new Sge(sb.region, (long) slot * SIZE, SIZE)));
            }
        }
        assertThat(sa.qp.state()).isEqualTo(QpState.RTS);
        assertThat(sb.qp.state()).isEqualTo(QpState.RTS);
    }

    private List<FailoverEvent> events(FailoverWatch w) {
        List<FailoverEvent> l = new ArrayList<>();
        FailoverEvent e;
        while ((e = w.poll(Duration.ZERO)) != null) {
            l.add(e);
        }
        return l;
    }

    private void failsOver(Consumer<Side[]> fault) throws Exception {
        Side[] s = connect();
        FailoverWatch wa = a.watch();
        FailoverWatch wb = b.watch();
        stream(s[0], s[1], MESSAGES / 2, () -> fault.accept(s));
        List<FailoverEvent> ea = events(wa);
        List<FailoverEvent> eb = events(wb);
        assertThat(ea).as("node a's fail-over").anyMatch(e -> e instanceof FailoverEvent.Migrated);
        assertThat(eb).as("node b's fail-over").anyMatch(e -> e instanceof FailoverEvent.Migrated);
        assertThat(ea).noneMatch(e -> e instanceof FailoverEvent.NoPathLeft);
    }

    /** Waits (bounded) until both sides of the connection have {@code n} live paths again. */
    private static void awaitPaths(Side[] s, int n) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        FailoverQueuePair qa = (FailoverQueuePair) s[0].qp;
        FailoverQueuePair qb = (FailoverQueuePair) s[1].qp;
        while (qa.livePaths() < n || qb.livePaths() < n) {
            assertThat(System.nanoTime()).as("paths set up again: a has %d, b has %d of %d", qa.livePaths(), qb.livePaths(), n)
                    .isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    @Test
    void failHealAndFailTheOtherPathAnyNumberOfTimes() throws Exception {
        Side[] s = connect();
        FailoverWatch wa = a.watch();
        FailoverQueuePair qa = (FailoverQueuePair) s[0].qp;
        FailoverWatch wb = b.watch();
        try {
            rounds(s, qa);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nnode a: " + events(wa) + "\nnode b: " + events(wb), e);
        }
        List<FailoverEvent> ea = events(wa);
        assertThat(ea.stream().filter(e -> e instanceof FailoverEvent.Migrated).count()).as("six fail-overs of node a: " + ea).isEqualTo(6);
        assertThat(ea).noneMatch(e -> e instanceof FailoverEvent.NoPathLeft);
    }

    private void rounds(Side[] s, FailoverQueuePair qa) {
        for (int round = 0; round < 3; round++) {
            int path = qa.sendPath();
            AdapterControl failing = (AdapterControl) a.adapters().get(path);
            stream(s[0], s[1], MESSAGES / 2, () -> failing.injectFatalError("test: round with adapter " + path));
            assertThat(qa.sendPath()).as("the connection left the failed adapter").isNotEqualTo(path);
            failing.reset(Duration.ofSeconds(5));
            awaitPaths(s, 2);
            LinkControl link = (LinkControl) a.adapters().get(qa.sendPath());
            int other = qa.sendPath();
            stream(s[0], s[1], MESSAGES / 2, link::linkDown);
            assertThat(qa.sendPath()).as("the connection left the silent link").isNotEqualTo(other);
            link.linkUp();
            awaitPaths(s, 2);
        }
    }

    @Test
    void aLocalAdapterFatalErrorMovesTheConnectionWithNothingLostTwiceOrOutOfOrder() throws Exception {
        failsOver(s -> ((AdapterControl) a.adapters().get(0)).injectFatalError("test: PCI error on a's adapter 0"));
    }

    @Test
    void aRemoteAdapterFatalErrorMovesTheConnection() throws Exception {
        failsOver(s -> ((AdapterControl) b.adapters().get(0)).injectFatalError("test: PCI error on b's adapter 0"));
    }

    @Test
    void aLinkThatGoesSilentIsFoundByHeartbeatAndTheConnectionMoves() throws Exception {
        failsOver(s -> ((LinkControl) b.adapters().get(0)).linkDown());
    }
}

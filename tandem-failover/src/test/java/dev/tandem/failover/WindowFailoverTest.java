package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.MemoryWindow;
import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.QpState;
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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A window bound through a connection is bound again on the new path when the connection fails over:
 * the peer keeps reading and writing through the same rkey. A window the application invalidated is
 * not brought back by a fail-over.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WindowFailoverTest {
    private static final int RW = Access.REMOTE_READ | Access.REMOTE_WRITE;
    private static final long BASE = 1024;
    private static final long LENGTH = 4096;
    private final Arena arena = Arena.ofShared();
    private TwoNodes nodes;

    @AfterEach
    void close() {
        if (nodes != null) {
            nodes.close();
        }
        arena.close();
    }

    @Test
    void theWindowIsBoundAgainOnTheNewPathAndTheSameRkeyKeepsWorking() throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED);
        FailoverQueuePair qb = nodes.sb.failover();
        MemorySegment memory = arena.allocate(BASE + LENGTH + 1024, 64);
        MemoryRegion target = nodes.sb.qp().pd().registerMemory(memory, Access.LOCAL_WRITE | Access.MW_BIND);
        MemoryWindow w = nodes.sb.qp().pd().allocateMemoryWindow();
        nodes.sb.qp().postSend(new WorkRequest.BindWindow(77, w, target, BASE, LENGTH, RW, 0x5A, WrFlags.SIGNALED));
        assertThat(TwoNodes.awaitOne(nodes.sb.cq(), "b's bind").opcode()).isEqualTo(CompletionOpcode.BIND_WINDOW);
        int rkey = w.rkey();

        write(rkey, 0, (byte) 1, "a Write through the window before the fail-over");
        assertThat(memory.get(ValueLayout.JAVA_BYTE, BASE)).isEqualTo((byte) 1);

        FailoverWatch wb = nodes.b.watch();
        int carrying = qb.receivePathAdapter(); // a window is bound where the peer's accesses arrive
        ((AdapterControl) nodes.b.adapters().get(carrying)).injectFatalError("test: the adapter b's window was bound on");
        awaitMigrated(wb);

        assertThat(w.rkey()).as("the window's STag after the fail-over").isEqualTo(rkey);
        assertThat(w.isBound()).isTrue();
        assertThat(qb.snapshot().windowsRebound()).as("windows bound again (b's dump)").isEqualTo(1);
        write(rkey, 100, (byte) 2, "a Write through the same rkey over the new path");
        assertThat(memory.get(ValueLayout.JAVA_BYTE, BASE + 100)).isEqualTo((byte) 2);
        assertThat(memory.get(ValueLayout.JAVA_BYTE, BASE + 100 + 63)).isEqualTo((byte) 2);
        memory.set(ValueLayout.JAVA_BYTE, BASE + 2000, (byte) 9);
        nodes.sa.qp().postSend(new WorkRequest.RdmaRead(5, new Sge(nodes.sa.region(), 0, 16), 2000, rkey, WrFlags.SIGNALED));
        assertThat(TwoNodes.awaitOne(nodes.sa.cq(), "a Read through the window over the new path").status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(nodes.sa.region().segment().get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 9);
        assertThat(memory.get(ValueLayout.JAVA_BYTE, BASE - 1)).as("the byte before the window").isZero();
    }

    @Test
    void aWindowInvalidatedBeforeTheFailoverIsNotBoundAgain() throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED);
        FailoverQueuePair qb = nodes.sb.failover();
        MemorySegment memory = arena.allocate(BASE + LENGTH, 64);
        MemoryRegion target = nodes.sb.qp().pd().registerMemory(memory, Access.LOCAL_WRITE | Access.MW_BIND);
        MemoryWindow w = nodes.sb.qp().pd().allocateMemoryWindow();
        nodes.sb.qp().postSend(new WorkRequest.BindWindow(77, w, target, BASE, LENGTH, RW, 0x21, WrFlags.SIGNALED));
        TwoNodes.awaitOne(nodes.sb.cq(), "b's bind");
        int rkey = w.rkey();
        nodes.sb.qp().postSend(new WorkRequest.LocalInvalidate(78, rkey, WrFlags.SIGNALED));
        assertThat(TwoNodes.awaitOne(nodes.sb.cq(), "b's invalidate").status()).isEqualTo(CompletionStatus.SUCCESS);

        FailoverWatch wb = nodes.b.watch();
        ((AdapterControl) nodes.b.adapters().get(qb.receivePathAdapter())).injectFatalError("test: after the window was invalidated");
        awaitMigrated(wb);
        assertThat(qb.snapshot().windowsRebound()).as("an invalidated window is not bound again").isZero();

        nodes.sa.region().segment().asSlice(0, 64).fill((byte) 3);
        nodes.sa.qp().postSend(new WorkRequest.RdmaWrite(9, new Sge(nodes.sa.region(), 0, 64), 0, rkey, WrFlags.SIGNALED));
        // as on a plain adapter: the owner refuses the access and the connection ends (iWARP may complete the Write first)
        long deadline = System.nanoTime() + TwoNodes.WAIT.toNanos();
        while (nodes.sb.qp().state() != QpState.ERROR) {
            assertThat(System.nanoTime()).as("b refusing the Write through the invalidated window").isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(nodes.sb.qp().failure()).as("why b's QP ended").hasValueSatisfying(f ->
                assertThat(f.kind()).isEqualTo(QpFailure.Kind.LOCAL_ERROR));
        assertThat(memory.asSlice(BASE, 64).toArray(ValueLayout.JAVA_BYTE)).as("nothing placed through the invalidated window")
                .containsOnly((byte) 0);
    }

    /**
     * From a node's second session on, sessions receive on its other adapter: a's Sends and Writes arrive on
     * b's adapter 1 while b sends from adapter 0 (two simplex paths when switchless, a cross path when
     * switched). A window b binds through the connection is bound where a's accesses arrive, so a's Write and
     * Read through it work, with no fault at all.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(Topology.class)
    void aWindowWorksWhereThePeersAccessesArriveWhenTheConnectionRunsOnTwoPaths(Topology topology) throws Exception {
        Opened opened = new Opened();
        try (opened) {
            String t = "&topology=" + topology.name().toLowerCase(java.util.Locale.ROOT);
            FailoverDevice a = opened.keep((FailoverDevice) dev.tandem.verbs.RdmaDevices.open("failover://127.0.1.1+127.0.2.1?node=a" + t));
            FailoverDevice b = opened.keep((FailoverDevice) dev.tandem.verbs.RdmaDevices.open("failover://127.0.1.2+127.0.2.2?node=b" + t));
            var pdA = opened.keep(a.allocateProtectionDomain());
            opened.keep(b.allocateProtectionDomain()); // sessions take turns: b's next one receives on adapter 1
            var pdB = opened.keep(b.allocateProtectionDomain());
            MemoryRegion mrA = opened.keep(pdA.registerMemory(arena.allocate(256, 64), Access.LOCAL_WRITE | Access.REMOTE_WRITE));
            MemorySegment memory = arena.allocate(BASE + LENGTH, 64);
            MemoryRegion target = opened.keep(pdB.registerMemory(memory, Access.LOCAL_WRITE | Access.MW_BIND));
            CompletionQueue cqA = opened.keep(a.createCompletionQueue(16));
            CompletionQueue cqB = opened.keep(b.createCompletionQueue(16));
            var qa = opened.keep(pdA.createQueuePair(dev.tandem.verbs.QueuePairConfig.of(cqA).withDepths(8, 8)));
            var qb = opened.keep(pdB.createQueuePair(dev.tandem.verbs.QueuePairConfig.of(cqB).withDepths(8, 8)));
            MemoryWindow w = opened.keep(pdB.allocateMemoryWindow());
            Opened.connect(qa, b, "127.0.1.2", qb);

            qb.postSend(new WorkRequest.BindWindow(1, w, target, BASE, LENGTH, RW, 0x21, WrFlags.SIGNALED));
            assertThat(TwoNodes.awaitOne(cqB, "b's bind").status()).isEqualTo(CompletionStatus.SUCCESS);
            mrA.segment().asSlice(0, 64).fill((byte) 9);
            qa.postSend(new WorkRequest.RdmaWrite(2, new Sge(mrA, 0, 64), 0, w.rkey(), WrFlags.SIGNALED));
            WorkCompletion wrote = TwoNodes.awaitOne(cqA, "a's Write through the window");
            assertThat(wrote.status()).as("%s", wrote).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(memory.asSlice(BASE, 64).toArray(ValueLayout.JAVA_BYTE)).as("placed through the window").containsOnly((byte) 9);
            memory.asSlice(BASE + 64, 64).fill((byte) 4);
            qa.postSend(new WorkRequest.RdmaRead(3, new Sge(mrA, 128, 64), 64, w.rkey(), WrFlags.SIGNALED));
            assertThat(TwoNodes.awaitOne(cqA, "a's Read through the window").status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(mrA.segment().asSlice(128, 64).toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 4);
            assertThat(qa.state()).isEqualTo(QpState.RTS);
            assertThat(qb.state()).isEqualTo(QpState.RTS);
        }
    }

    /**
     * The fail-over device completes a Write only when the peer is shown to hold it: a Write the peer
     * refuses (a wrong key) is not reported SUCCESS (a plain iWARP adapter may, having sent it) but takes the
     * peer's reason, the Write behind it is flushed, and nothing is placed.
     */
    @Test
    void aWriteThePeerRefusesIsNotReportedAsDone() throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED);
        MemorySegment memory = arena.allocate(LENGTH, 64);
        MemoryRegion target = nodes.sb.qp().pd().registerMemory(memory, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        int wrongKey = dev.tandem.verbs.STag.of(dev.tandem.verbs.STag.index(target.rkey()), (dev.tandem.verbs.STag.key(target.rkey()) + 1) & 0xFF);
        nodes.sa.region().segment().asSlice(0, 64).fill((byte) 5);
        nodes.sa.qp().postSend(new WorkRequest.RdmaWrite(7, new Sge(nodes.sa.region(), 0, 64), 0, wrongKey, WrFlags.SIGNALED));
        boolean second = true;
        try {
            nodes.sa.qp().postSend(new WorkRequest.RdmaWrite(8, new Sge(nodes.sa.region(), 0, 64), 64, target.rkey(), WrFlags.SIGNALED));
        } catch (AsyncErrorException e) {
            second = false; // the peer's Terminate came first: the first post after it says so, as on an adapter
        }
        WorkCompletion wc = TwoNodes.awaitOne(nodes.sa.cq(), "the refused Write's completion");
        assertThat(wc.wrId()).isEqualTo(7);
        assertThat(wc.status()).as("a Write the peer refused takes the peer's reason: %s", wc).isEqualTo(CompletionStatus.REM_ACCESS_ERR);
        assertThat(wc.vendorError()).as("the vendor error carries the peer's Terminate code: %s", wc).isNotZero();
        if (second) {
            WorkCompletion next = TwoNodes.awaitOne(nodes.sa.cq(), "the next Write's completion");
            assertThat(next.wrId()).isEqualTo(8);
            assertThat(next.status()).as("the Write behind it: %s", next).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
        }
        assertThat(memory.toArray(ValueLayout.JAVA_BYTE)).as("nothing placed").containsOnly((byte) 0);
        target.close();
    }

    private void write(int rkey, long offset, byte value, String what) {
        nodes.sa.region().segment().asSlice(0, 64).fill(value);
        nodes.sa.qp().postSend(new WorkRequest.RdmaWrite(8, new Sge(nodes.sa.region(), 0, 64), offset, rkey, WrFlags.SIGNALED));
        WorkCompletion wc = TwoNodes.awaitOne(nodes.sa.cq(), what);
        assertThat(wc.status()).as("%s: %s", what, wc).isEqualTo(CompletionStatus.SUCCESS);
    }


    private static void awaitMigrated(FailoverWatch w) {
        long deadline = System.nanoTime() + TwoNodes.WAIT.toNanos();
        while (true) {
            FailoverEvent e = w.poll(Duration.ofMillis(100));
            if (e instanceof FailoverEvent.Migrated) {
                return;
            }
            assertThat(e).as("the fail-over ended without a path").isNotInstanceOf(FailoverEvent.NoPathLeft.class);
            assertThat(System.nanoTime()).as("waiting for b's fail-over").isLessThan(deadline);
        }
    }
}

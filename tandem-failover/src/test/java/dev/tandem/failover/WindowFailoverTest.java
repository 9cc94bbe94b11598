package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AdapterControl;
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
        assertThat(await(nodes.sb.cq(), "b's bind").opcode()).isEqualTo(CompletionOpcode.BIND_WINDOW);
        int rkey = w.rkey();

        write(rkey, 0, (byte) 1, "a Write through the window before the fail-over");
        assertThat(memory.get(ValueLayout.JAVA_BYTE, BASE)).isEqualTo((byte) 1);

        FailoverWatch wb = nodes.b.watch();
        int carrying = qb.receivePathAdapter(); // a window is bound where the peer's accesses arrive
        ((AdapterControl) nodes.b.adapters().get(carrying)).injectFatalError("test: the adapter b's window was bound on");
        awaitMigrated(wb);

        assertThat(w.rkey()).as("the window's STag after the fail-over").isEqualTo(rkey);
        assertThat(w.isBound()).isTrue();
        write(rkey, 100, (byte) 2, "a Write through the same rkey over the new path");
        assertThat(memory.get(ValueLayout.JAVA_BYTE, BASE + 100)).isEqualTo((byte) 2);
        assertThat(memory.get(ValueLayout.JAVA_BYTE, BASE + 100 + 63)).isEqualTo((byte) 2);
        memory.set(ValueLayout.JAVA_BYTE, BASE + 2000, (byte) 9);
        nodes.sa.qp().postSend(new WorkRequest.RdmaRead(5, new Sge(nodes.sa.region(), 0, 16), 2000, rkey, WrFlags.SIGNALED));
        assertThat(await(nodes.sa.cq(), "a Read through the window over the new path").status()).isEqualTo(CompletionStatus.SUCCESS);
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
        await(nodes.sb.cq(), "b's bind");
        int rkey = w.rkey();
        nodes.sb.qp().postSend(new WorkRequest.LocalInvalidate(78, rkey, WrFlags.SIGNALED));
        assertThat(await(nodes.sb.cq(), "b's invalidate").status()).isEqualTo(CompletionStatus.SUCCESS);

        FailoverWatch wb = nodes.b.watch();
        ((AdapterControl) nodes.b.adapters().get(qb.receivePathAdapter())).injectFatalError("test: after the window was invalidated");
        awaitMigrated(wb);

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

    private void write(int rkey, long offset, byte value, String what) {
        nodes.sa.region().segment().asSlice(0, 64).fill(value);
        nodes.sa.qp().postSend(new WorkRequest.RdmaWrite(8, new Sge(nodes.sa.region(), 0, 64), offset, rkey, WrFlags.SIGNALED));
        WorkCompletion wc = await(nodes.sa.cq(), what);
        assertThat(wc.status()).as("%s: %s", what, wc).isEqualTo(CompletionStatus.SUCCESS);
    }

    private static WorkCompletion await(CompletionQueue cq, String what) {
        WorkCompletion[] wcs = WorkCompletion.array(1);
        long deadline = System.nanoTime() + TwoNodes.WAIT.toNanos();
        while (cq.poll(wcs) == 0) {
            assertThat(System.nanoTime()).as("waiting for %s", what).isLessThan(deadline);
            Thread.onSpinWait();
        }
        return wcs[0];
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

package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Restart-safe keys through the fail-over device: a node restarts (same name, a new incarnation);
 * a client that keeps using the rkeys of its earlier life reaches none of the new life's regions
 * (canaries unchanged, the Write refused with a Terminate), and the new life works.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RestartedNodeTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int CANARIES = 64;
    private static final int SIZE = 4096;

    private final Arena arena = Arena.ofShared();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        arena.close();
    }

    private FailoverDevice node(String name, int host) {
        FailoverDevice d = FailoverDevice.open(FailoverConfig.of(name, List.of("iwarp://127.0.1." + host, "iwarp://127.0.2." + host)));
        open.add(d);
        return d;
    }

    /** A life of node b: its canary regions, each filled with its number, and a listener. */
    private record Life(FailoverDevice device, ProtectionDomain pd, List<MemoryRegion> canaries, Listener listener) {
    }

    private Life life() {
        FailoverDevice b = node("b", 2);
        ProtectionDomain pd = b.allocateProtectionDomain();
        List<MemoryRegion> canaries = new ArrayList<>();
        for (int i = 0; i < CANARIES; i++) {
            MemorySegment m = arena.allocate(SIZE, 64);
            m.fill((byte) (i + 1));
            canaries.add(pd.registerMemory(m, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ));
        }
        return new Life(b, pd, canaries, b.listen(new InetSocketAddress("127.0.1.2", 0), 4));
    }

    private QueuePair connect(FailoverDevice a, ProtectionDomain pdA, CompletionQueue cq, Life b) throws Exception {
        QueuePair qa = pdA.createQueuePair(QueuePairConfig.of(cq));
        CompletionQueue cqB = b.device.createCompletionQueue(64);
        QueuePair qb = b.pd.createQueuePair(QueuePairConfig.of(cqB));
        CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
            ConnectionRequest r = b.listener.accept(WAIT);
            r.accept(qb, new byte[0]);
        });
        qa.connect(b.listener.localAddress(), new byte[0], WAIT);
        accepted.get(10, TimeUnit.SECONDS);
        return qa;
    }

    private static WorkCompletion await(CompletionQueue cq, long wrId) {
        WorkCompletion[] wcs = WorkCompletion.array(8);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            int n = cq.poll(wcs);
            for (int i = 0; i < n; i++) {
                if (wcs[i].wrId() == wrId) {
                    return wcs[i];
                }
            }
        }
        throw new AssertionError("no completion of wrId " + wrId + " within " + WAIT);
    }

    @Test
    void theRkeysOfANodesEarlierLifeReachNothingOfItsNewLifeAndTheNewLifeWorks() throws Exception {
        FailoverDevice a = node("a", 1);
        ProtectionDomain pdA = a.allocateProtectionDomain();
        CompletionQueue cq = a.createCompletionQueue(64);
        MemoryRegion src = pdA.registerMemory(arena.allocate(SIZE, 64), Access.LOCAL_WRITE);
        src.segment().fill((byte) 0x5A);

        Life first = life();
        Set<Integer> oldKeys = new HashSet<>();
        first.canaries.forEach(r -> oldKeys.add(r.rkey()));
        QueuePair qa = connect(a, pdA, cq, first);
        qa.postSend(new WorkRequest.RdmaWrite(1, new Sge(src, 0, 64), 0, first.canaries.getFirst().rkey(), WrFlags.SIGNALED));
        assertThat(await(cq, 1).status()).isEqualTo(CompletionStatus.SUCCESS);

        // b restarts: its process dies (its adapters with it) and a new life opens under the same name
        first.device.close();
        open.remove(first.device);
        Life second = life();
        assertThat(second.canaries).allSatisfy(r -> assertThat(oldKeys).as("an STag of the earlier life").doesNotContain(r.rkey()));

        // a keeps using an rkey of the earlier life, on a new connection to the new life
        QueuePair again = connect(a, pdA, cq, second);
        int stale = oldKeys.iterator().next();
        again.postSend(new WorkRequest.RdmaWrite(2, new Sge(src, 0, SIZE), 0, stale, WrFlags.SIGNALED));
        WorkCompletion refused = await(cq, 2);
        assertThat(refused.status()).isIn(CompletionStatus.REM_ACCESS_ERR, CompletionStatus.SUCCESS, CompletionStatus.WR_FLUSH_ERR);
        long end = System.nanoTime() + WAIT.toNanos();
        while (again.state() != QpState.ERROR) {
            assertThat(System.nanoTime()).as("the Write to an STag of the earlier life ends the connection").isLessThan(end);
            Thread.onSpinWait();
        }
        for (int i = 0; i < CANARIES; i++) {
            MemorySegment m = second.canaries.get(i).segment();
            for (long at = 0; at < SIZE; at++) {
                assertThat(m.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at)).as("canary %d of the new life at %d", i, at)
                        .isEqualTo((byte) (i + 1));
            }
        }

        // the new life works
        QueuePair fresh = connect(a, pdA, cq, second);
        fresh.postSend(new WorkRequest.RdmaWrite(3, new Sge(src, 0, 64), 0, second.canaries.get(7).rkey(), WrFlags.SIGNALED));
        assertThat(await(cq, 3).status()).isEqualTo(CompletionStatus.SUCCESS);
        fresh.postSend(new WorkRequest.RdmaRead(4, new Sge(pdA.registerMemory(arena.allocate(64, 64),
                Access.LOCAL_WRITE | Access.REMOTE_WRITE), 0, 64), 0, second.canaries.get(7).rkey(), WrFlags.SIGNALED));
        assertThat(await(cq, 4).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(second.canaries.get(7).segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x5A);
    }
}

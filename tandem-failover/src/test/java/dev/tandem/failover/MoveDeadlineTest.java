package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.LinkControl;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevices;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The layer's waits have one configurable deadline ({@link FailoverConfig#moveTimeout()}) and end in verbs
 * behaviour: a move the peer does not answer ends the connection (no path left, its work flushed); a post
 * during a move never blocks; a connect takes no longer for a dark adapter of the peer; and the session
 * numbers a shared receive queue tells its connections apart by are never the same twice on a device.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MoveDeadlineTest {
    private static final int SIZE = 64;
    private final Opened opened = new Opened();
    private final CountDownLatch monitorFree = new CountDownLatch(1);

    @AfterEach
    void close() {
        monitorFree.countDown();
        opened.close();
    }

    @Test
    void aMoveThePeerDoesNotAnswerEndsTheConnectionAfterTheConfiguredDeadlineAndPostsNeverBlock() throws Exception {
        FailoverDevice a = opened.keep(FailoverDevice.open(FailoverConfig.of("a", List.of("iwarp://127.0.1.1", "iwarp://127.0.2.1"))
                .withMoveTimeout(Duration.ofMillis(400))));
        FailoverDevice b = opened.keep(FailoverDevice.open(FailoverConfig.of("b", List.of("iwarp://127.0.1.2", "iwarp://127.0.2.2"))));
        Arena arena = opened.keep(Arena.ofShared());
        ProtectionDomain pdA = opened.keep(a.allocateProtectionDomain());
        ProtectionDomain pdB = opened.keep(b.allocateProtectionDomain());
        MemoryRegion mrA = opened.keep(pdA.registerMemory(arena.allocate(SIZE, 64), Access.LOCAL_WRITE));
        CompletionQueue cqA = opened.keep(a.createCompletionQueue(16));
        CompletionQueue cqB = opened.keep(b.createCompletionQueue(16));
        QueuePair qa = opened.keep(pdA.createQueuePair(QueuePairConfig.of(cqA).withDepths(8, 4)));
        QueuePair qb = opened.keep(pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(4, 8)));
        Opened.connect(qa, b, "127.0.1.2", qb);

        // b's layer stops answering (its monitor is busy): a's Sends move and wait for b's MIGRATED, which never comes
        CountDownLatch held = new CountDownLatch(1);
        b.monitor().submit(() -> {
            held.countDown();
            try {
                monitorFree.await(Opened.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(held.await(Opened.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        ((AdapterControl) a.adapters().get(a.adapterOf(qa))).injectFatalError("test: a's adapter, while b's layer is busy");
        FailoverQueuePair fa = (FailoverQueuePair) qa;
        long deadline = System.nanoTime() + Opened.WAIT.toNanos();
        while (!fa.migrating()) {
            assertThat(System.nanoTime()).as("a's move to start").isLessThan(deadline);
            Thread.onSpinWait();
        }
        qa.postSend(new WorkRequest.Send(1, new Sge(mrA, 0, SIZE), WrFlags.SIGNALED)); // logged, not blocked
        assertThat(fa.migrating()).as("the post returned while the move still waits for the peer").isTrue();

        WorkCompletion[] wcs = WorkCompletion.array(4);
        deadline = System.nanoTime() + Opened.WAIT.toNanos();
        while (cqA.poll(wcs) == 0) {
            assertThat(System.nanoTime()).as("the Send posted during the move to complete").isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(wcs[0].wrId()).isEqualTo(1);
        assertThat(wcs[0].status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
        assertThat(qa.state()).isEqualTo(QpState.ERROR);
        assertThat(qa.failure()).hasValueSatisfying(f -> {
            assertThat(f.kind()).isEqualTo(QpFailure.Kind.TRANSPORT);
            assertThat(f.detail()).startsWith("no path left").contains("within 400 ms");
        });
    }

    @Test
    void aConnectTakesNoLongerForADarkAdapterOfThePeerItsBackupsJoinOnceItIsBack() throws Exception {
        FailoverDevice a = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.1+127.0.2.1?node=a"));
        FailoverDevice b = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.2+127.0.2.2?node=b"));
        ProtectionDomain pdA = opened.keep(a.allocateProtectionDomain());
        ProtectionDomain pdB = opened.keep(b.allocateProtectionDomain());
        CompletionQueue cqA = opened.keep(a.createCompletionQueue(16));
        CompletionQueue cqB = opened.keep(b.createCompletionQueue(16));
        QueuePair qa = opened.keep(pdA.createQueuePair(QueuePairConfig.of(cqA).withDepths(4, 4)));
        QueuePair qb = opened.keep(pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(4, 4)));
        LinkControl dark = (LinkControl) b.adapters().get(1); // b's adapter 1 is a black hole: its joins never answer
        dark.linkDown();
        try (var l = b.listen(new java.net.InetSocketAddress("127.0.1.2", 0), 1)) {
            var accepted = java.util.concurrent.CompletableFuture.runAsync(() -> l.accept(Opened.WAIT).accept(qb, new byte[0]));
            qa.connect(l.localAddress(), new byte[0], Duration.ofSeconds(3));
            accepted.get(10, TimeUnit.SECONDS);
        }
        // it returned with the paths the connection needs (both sides receive on adapter 0), its backups still to come
        assertThat(qa.state()).isEqualTo(QpState.RTS);
        assertThat(a.livePaths(qa)).isLessThan(a.pathCount(qa));
        dark.linkUp();
        Opened.awaitAllPaths((FailoverQueuePair) qa, (FailoverQueuePair) qb);
    }

    @Test
    void sessionNumbersAreNeverTheSameTwiceAmongADevicesOpenQueuePairs() {
        FailoverDevice b = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.2+127.0.2.2?node=b"));
        ProtectionDomain pd = opened.keep(b.allocateProtectionDomain());
        CompletionQueue cq = opened.keep(b.createCompletionQueue(16));
        var srq = opened.keep(pd.createSharedReceiveQueue(8, 1));
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            FailoverQueuePair q = (FailoverQueuePair) pd.createQueuePair(QueuePairConfig.of(cq).withDepths(2, 2).withSrq(srq));
            assertThat(q.session()).isNotZero();
            assertThat(seen.add(q.session())).as("session %d unique among open QPs", q.session()).isTrue();
            if (i % 2 == 0) {
                q.close(); // closed ones give theirs back: still never the same as an open one
                seen.remove(q.session());
            } else {
                opened.keep(q);
            }
        }
        assertThat(b.sessions().held()).isEqualTo(seen.size());
    }
}

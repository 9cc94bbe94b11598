package dev.tandem.failover;

import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventSubscription;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The fail-over CQ the application polls: its completions in the order the layer queued them, with every
 * field, across its ring's wrap; an overflow as on an adapter (CQ_ERROR, the poll's error once, nothing
 * queued lost); the depths it accepts; and one CQ per working adapter under it, made again when an adapter
 * is reset and closed with it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FirstLevelCqTest {
    private final Opened opened = new Opened();
    private FailoverDevice device;

    @AfterEach
    void close() {
        opened.close();
    }

    private FailoverDevice device() {
        device = opened.keep(FailoverDevice.open(FailoverConfig.of("a", List.of("iwarp://127.0.1.1", "iwarp://127.0.2.1"))));
        return device;
    }

    @Test
    void completionsComeOutInTheOrderQueuedWithEveryFieldAcrossTheWrapAndAnOverflowLosesNothingQueued() {
        FailoverDevice d = device();
        FirstLevelCq cq = (FirstLevelCq) opened.keep(d.createCompletionQueue(4));
        ProtectionDomain pd = opened.keep(d.allocateProtectionDomain());
        FailoverQueuePair qp = (FailoverQueuePair) opened.keep(pd.createQueuePair(QueuePairConfig.of(cq)));
        AsyncEventSubscription events = opened.keep(d.subscribeAsyncEvents());
        WorkCompletion[] out = WorkCompletion.array(8);

        for (int i = 1; i <= 3; i++) {
            assertThat(queue(cq, qp, i)).isTrue();
        }
        assertThat(cq.poll(out, 0, 2)).isEqualTo(2);
        assertCompletion(out[0], qp, 1);
        assertCompletion(out[1], qp, 2);
        for (int i = 4; i <= 6; i++) {
            assertThat(queue(cq, qp, i)).as("completion %d fits (4 deep, 1 queued before)", i).isTrue();
        }
        assertThat(queue(cq, qp, 7)).as("a fifth does not fit").isFalse();
        assertThat(queue(cq, qp, 8)).isFalse();
        AsyncEvent e = events.poll(Duration.ofSeconds(10));
        assertThat(e).isNotNull();
        assertThat(e.type()).isEqualTo(AsyncEventType.CQ_ERROR);
        assertThat(e.resource()).isSameAs(cq);
        assertThat(events.poll(Duration.ofMillis(20))).as("the overflow is raised once").isNull();
        assertThat(assertThrows(AsyncErrorException.class, () -> cq.poll(out)).getMessage()).contains("overflowed");
        assertThat(cq.poll(out, 1, 7)).as("what was queued before the overflow").isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            assertCompletion(out[1 + i], qp, 3 + i);
        }
        assertThat(cq.poll(out)).isZero();
        assertThat(cq.poll(out, 0, 0)).isZero();
        assertThat(assertThrows(InvalidArgumentException.class, () -> cq.poll(out, 6, 3)).getMessage()).contains("do not fit");
    }

    /** Queues completion {@code i}: every field derived from it, solicited when odd, an error when a multiple of 3. */
    private static boolean queue(FirstLevelCq cq, FailoverQueuePair qp, int i) {
        return cq.deliver(qp, -1, 100 + i, status(i), CompletionOpcode.RECV, 10L * i, 0x1000 + i,
                i % 2 == 1 ? WorkCompletion.FLAG_SOLICITED : 0, i % 3 == 0 ? 40 + i : 0);
    }

    private static CompletionStatus status(int i) {
        return i % 3 == 0 ? CompletionStatus.REM_ACCESS_ERR : CompletionStatus.SUCCESS;
    }

    private static void assertCompletion(WorkCompletion wc, FailoverQueuePair qp, int i) {
        assertThat(wc.wrId()).as("completion %d's id", i).isEqualTo(100 + i);
        assertThat(wc.status()).isEqualTo(status(i));
        assertThat(wc.opcode()).isEqualTo(CompletionOpcode.RECV);
        assertThat(wc.byteLength()).isEqualTo(10L * i);
        assertThat(wc.qpNumber()).isEqualTo(qp.qpNumber());
        assertThat(wc.invalidatedStag()).isEqualTo(0x1000 + i);
        assertThat(wc.flags() & WorkCompletion.FLAG_SOLICITED).isEqualTo(i % 2 == 1 ? WorkCompletion.FLAG_SOLICITED : 0);
        assertThat(wc.vendorError()).isEqualTo(i % 3 == 0 ? 40 + i : 0);
    }

    @Test
    void aQueueMayBeAsDeepAsTheDeviceSaysAndNoDeeper() {
        FailoverDevice d = device();
        int max = d.attributes().maxCqDepth();
        int adapterMax = d.adapter(0).attributes().maxCqDepth();
        assertThat(max).as("room under it for the layer's own completions").isEqualTo(FirstLevelCq.appDepth(adapterMax));
        assertThat(max).isEqualTo((adapterMax - FirstLevelCq.EXTRA) / 2).isPositive();
        CompletionQueue deepest = d.createCompletionQueue(max);
        assertThat(deepest.depth()).isEqualTo(max);
        deepest.close();
        assertThat(assertThrows(InvalidArgumentException.class, () -> d.createCompletionQueue(max + 1)).getMessage())
                .contains(String.valueOf(max + 1));
        assertThrows(InvalidArgumentException.class, () -> d.createCompletionQueue(0));
    }

    @Test
    void aQueueHasACqOnEveryAdapterMadeAgainAfterAResetAndClosedWithIt() {
        FailoverDevice d = device();
        FirstLevelCq cq = (FirstLevelCq) d.createCompletionQueue(8);
        CompletionQueue first = cq.under(0);
        for (int k = 0; k < 2; k++) {
            assertThat(cq.under(k)).as("a CQ on adapter %d", k).isNotNull();
            assertThat(cq.under(k).depth()).as("deep enough for the application's and the layer's completions")
                    .isGreaterThanOrEqualTo(2 * 8);
            assertThat(d.ownerOf(cq.under(k))).isSameAs(cq);
        }
        AdapterControl adapter = (AdapterControl) d.adapters().get(0);
        adapter.injectFatalError("test: adapter 0");
        Opened.await("the queue's CQ on adapter 0 let go", () -> cq.under(0) == null);
        Opened.await("the failed adapter's CQ without an owner", () -> d.ownerOf(first) == null);
        Opened.await("the failed adapter's CQ closed", () -> closed(first));
        adapter.reset(Duration.ofSeconds(5));
        Opened.await("the queue's CQ on adapter 0 made again", () -> cq.under(0) != null);
        assertThat(cq.under(0)).isNotSameAs(first);
        assertThat(d.ownerOf(cq.under(0))).isSameAs(cq);

        CompletionQueue[] under = {cq.under(0), cq.under(1)};
        cq.close();
        assertThat(cq.isClosed()).isTrue();
        assertThrows(ResourceClosedException.class, () -> cq.poll(WorkCompletion.array(1)));
        for (CompletionQueue u : under) {
            assertThat(d.ownerOf(u)).isNull();
            assertThrows(ResourceClosedException.class, () -> u.poll(WorkCompletion.array(1)), "the adapter's CQ is closed too");
        }
    }

    private static boolean closed(CompletionQueue c) {
        try {
            c.poll(WorkCompletion.array(1));
            return false;
        } catch (ResourceClosedException e) {
            return true;
        } catch (RuntimeException e) {
            return false; // its adapter's failure
        }
    }

    // ---------------------------------------------------------------- waiting: every wake-up comes, none too many

    private static final long HOUR = TimeUnit.HOURS.toNanos(1);

    /** A queue with one QP on it whose waiters would look at the adapters themselves only after an hour. */
    private Waiting waiting() {
        FailoverDevice d = device();
        FirstLevelCq cq = (FirstLevelCq) opened.keep(d.createCompletionQueue(8));
        ProtectionDomain pd = opened.keep(d.allocateProtectionDomain());
        FailoverQueuePair qp = (FailoverQueuePair) opened.keep(pd.createQueuePair(QueuePairConfig.of(cq)));
        cq.lookAfterNanos = HOUR;
        return new Waiting(cq, qp);
    }

    private record Waiting(FirstLevelCq cq, FailoverQueuePair qp) {
        /** Runs {@code wait} on a thread of its own; returns once that thread waits in the queue. */
        <T> Waiter<T> start(java.util.function.Supplier<T> wait) {
            Waiter<T> w = new Waiter<>(wait);
            Opened.await("the waiter waits in the queue", () -> cq.waiters() == 1 || w.done.isDone());
            return w; // one that returned already answers for itself in result()
        }

        void queue(long wrId, CompletionStatus status, int flags) {
            assertThat(cq.deliver(qp, -1, wrId, status, CompletionOpcode.RECV, 8, 0, flags, 0)).isTrue();
        }
    }

    /** A thread that waits in the queue; {@link #result} bounds the wait for its answer, and stops it when none comes. */
    private static final class Waiter<T> {
        final java.util.concurrent.CompletableFuture<T> done = new java.util.concurrent.CompletableFuture<>();
        final Thread thread;

        Waiter(java.util.function.Supplier<T> wait) {
            thread = Thread.ofPlatform().name("first-level-cq-test-waiter").start(() -> {
                try {
                    done.complete(wait.get());
                } catch (RuntimeException e) {
                    done.completeExceptionally(e);
                }
            });
        }

        T result(String what) throws Exception {
            try {
                return done.get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError(what + ": the waiter did not wake within 10 s", e);
            } finally {
                thread.interrupt();
                thread.join(TimeUnit.SECONDS.toMillis(10));
                assertThat(thread.isAlive()).as("the waiter thread ended").isFalse();
            }
        }
    }

    /**
     * A completion the layer queues (a Send its proof released, a receive rebuilt from its header) wakes a
     * thread in {@code await} at once: its own look at the adapters is an hour away here.
     */
    @Test
    void aCompletionTheLayerQueuesWakesAWaiter() throws Exception {
        Waiting q = waiting();
        WorkCompletion[] out = WorkCompletion.array(4);
        Waiter<Integer> w = q.start(() -> q.cq().await(out, Duration.ofHours(1)));
        q.queue(7, CompletionStatus.SUCCESS, 0);
        assertThat(w.result("an unsolicited completion")).isEqualTo(1);
        assertThat(out[0].wrId()).isEqualTo(7);
        assertThat(q.cq().waiters()).as("no waiter left behind").isZero();
    }

    /** {@code awaitEvent(solicitedOnly)} wakes at a solicited completion and at any completion in error. */
    @Test
    void aSolicitedWaiterWakesAtASolicitedCompletionAndAtAnError() throws Exception {
        Waiting q = waiting();
        Waiter<Boolean> w = q.start(() -> q.cq().awaitEvent(true, Duration.ofHours(1)));
        q.queue(1, CompletionStatus.SUCCESS, WorkCompletion.FLAG_SOLICITED);
        assertThat(w.result("a solicited completion")).isTrue();
        w = q.start(() -> q.cq().awaitEvent(true, Duration.ofHours(1)));
        q.queue(2, CompletionStatus.REM_ACCESS_ERR, 0);
        assertThat(w.result("a completion in error, not solicited")).isTrue();
        w = new Waiter<>(() -> q.cq().awaitEvent(false, Duration.ofHours(1)));
        assertThat(w.result("completions queued already")).as("any event: two are queued").isTrue();
        assertThat(q.cq().poll(WorkCompletion.array(4))).isEqualTo(2);
        w = q.start(() -> q.cq().awaitEvent(false, Duration.ofHours(1)));
        q.queue(3, CompletionStatus.SUCCESS, 0);
        assertThat(w.result("any completion")).isTrue();
        assertThat(q.cq().waiters()).isZero();
    }

    /**
     * A solicited-only waiter sleeps through an unsolicited successful completion, one queued before it
     * waits included: its wait ends at its timeout, with false.
     */
    @Test
    void aSolicitedWaiterSleepsThroughAnUnsolicitedCompletion() throws Exception {
        Waiting q = waiting();
        q.queue(1, CompletionStatus.SUCCESS, 0);
        Waiter<Boolean> w = q.start(() -> q.cq().awaitEvent(true, Duration.ofSeconds(2)));
        q.queue(2, CompletionStatus.SUCCESS, 0);
        assertThat(w.result("the timeout")).as("no solicited completion came").isFalse();
        assertThat(q.cq().poll(WorkCompletion.array(4))).as("both stay queued for the poll").isEqualTo(2);
    }

    /**
     * A queue nobody polls still shows its overflow: the monitor's sweep moves what its adapters' CQs hold
     * (nobody waits, so nothing armed them) and raises CQ_ERROR, as an adapter would, without a poll.
     */
    @Test
    void aQueueNobodyPollsStillShowsItsOverflow() throws Exception {
        try (Opened o = new Opened(); java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
            FailoverDevice a = o.keep(FailoverDevice.open(FailoverConfig.of("a", List.of("iwarp://127.0.1.1", "iwarp://127.0.2.1"))));
            FailoverDevice b = o.keep(FailoverDevice.open(FailoverConfig.of("b", List.of("iwarp://127.0.1.2", "iwarp://127.0.2.2"))));
            ProtectionDomain pdA = o.keep(a.allocateProtectionDomain());
            ProtectionDomain pdB = o.keep(b.allocateProtectionDomain());
            var mrA = o.keep(pdA.registerMemory(arena.allocate(64 * 8, 64), dev.tandem.verbs.Access.LOCAL_WRITE));
            var mrB = o.keep(pdB.registerMemory(arena.allocate(64 * 8, 64), dev.tandem.verbs.Access.LOCAL_WRITE));
            CompletionQueue cqA = o.keep(a.createCompletionQueue(64));
            CompletionQueue cqB = o.keep(b.createCompletionQueue(4));
            var qa = (FailoverQueuePair) o.keep(pdA.createQueuePair(QueuePairConfig.of(cqA).withDepths(16, 4)));
            var qb = (FailoverQueuePair) o.keep(pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(4, 16)));
            AsyncEventSubscription events = o.keep(b.subscribeAsyncEvents());
            for (int i = 0; i < 8; i++) {
                qb.postReceive(new dev.tandem.verbs.ReceiveRequest(i, new dev.tandem.verbs.Sge(mrB, 64L * i, 64)));
            }
            Opened.connect(qa, b, "127.0.1.2", qb);
            for (int m = 0; m < 8; m++) {
                qa.postSend(new dev.tandem.verbs.WorkRequest.Send(m, new dev.tandem.verbs.Sge(mrA, 64L * m, 64), dev.tandem.verbs.WrFlags.SIGNALED));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            AsyncEvent overflow = null;
            while (overflow == null) {
                assertThat(System.nanoTime()).as("CQ_ERROR of b's queue (4 deep, 8 receives completed, never polled) within 10 s")
                        .isLessThan(deadline);
                AsyncEvent e = events.poll(Duration.ofMillis(100));
                if (e != null && e.type() == AsyncEventType.CQ_ERROR) {
                    overflow = e;
                }
            }
            assertThat(overflow.resource()).isSameAs(cqB);
        }
    }
}

package dev.tandem.iwarp;

import dev.tandem.provider.KitCompletionQueue;
import dev.tandem.provider.SendQueue;
import dev.tandem.ras.CounterSnapshot;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasReader;
import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The completion queue alone, filled the way the engine fills it: a queue carries any number of
 * completions through its depth as long as they are polled, overflows only past its depth, hands out
 * completions in order, frees a send-queue slot when (and only when) its completion is polled, and
 * wakes, times out, or refuses waiters as the verbs promise.
 */
class KitCompletionQueueTest {
    private static final Duration LONG = Duration.ofMinutes(1);

    private IwarpDevice device;
    private final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeEach
    void open() {
        device = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
    }

    @AfterEach
    void close() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        device.close();
    }

    private KitCompletionQueue cq(int depth) {
        KitCompletionQueue cq = (KitCompletionQueue) device.createCompletionQueue(depth);
        opened.add(cq);
        return cq;
    }

    /** Adds a successful receive completion as the engine does for an arriving Send. */
    private static boolean addReceive(KitCompletionQueue cq, long wrId, int flags) {
        return cq.add(wrId, CompletionStatus.SUCCESS, CompletionOpcode.RECV, 64, 7, 0, flags, 0, null, 0);
    }

    private List<AsyncEvent> events() {
        List<AsyncEvent> seen = new ArrayList<>();
        for (AsyncEvent e; (e = device.pollAsyncEvent(Duration.ZERO)) != null; ) {
            seen.add(e);
        }
        return seen;
    }

    private static long counter(String label) {
        try (RasReader reader = RasReader.open(ProcessRas.current().path())) {
            List<Long> values = reader.counters().stream().filter(c -> c.label().equals(label)).map(CounterSnapshot::value).toList();
            assertThat(values).as("counter '" + label + "'").hasSize(1);
            return values.getFirst();
        }
    }

    private static <T> T join(CompletableFuture<T> f, String what) throws Exception {
        try {
            return f.get(LoopbackPair.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("timed out after " + LoopbackPair.WAIT + " awaiting " + what);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            throw e;
        }
    }

    /** Waits (bounded) until {@code thread} blocks, so what follows exercises its wake-up. */
    private static void awaitBlocked(Thread thread, String what) {
        long deadline = System.nanoTime() + LoopbackPair.WAIT.toNanos();
        while (true) {
            Thread.State s = thread.getState();
            if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING || s == Thread.State.TERMINATED) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + LoopbackPair.WAIT + " awaiting " + what + " to block; it is " + s);
            }
            LockSupport.parkNanos(200_000);
        }
    }

    /** A thread that runs {@code call} once it started, recording whether it returned before {@link #cause}. */
    private static final class Waiter<T> {
        final CompletableFuture<T> result = new CompletableFuture<>();
        final AtomicBoolean causeSent = new AtomicBoolean();
        final AtomicBoolean returnedEarly = new AtomicBoolean();
        final AtomicBoolean interruptedAfter = new AtomicBoolean();
        final Thread thread;

        Waiter(String name, java.util.concurrent.Callable<T> call) {
            thread = Thread.ofPlatform().daemon().name(name).start(() -> {
                try {
                    T r = call.call();
                    returnedEarly.set(!causeSent.get());
                    interruptedAfter.set(Thread.currentThread().isInterrupted());
                    result.complete(r);
                } catch (Throwable t) {
                    returnedEarly.set(!causeSent.get());
                    result.completeExceptionally(t);
                }
            });
            awaitBlocked(thread, name);
        }

        /** Call right before causing what the waiter waits for. */
        void cause() {
            causeSent.set(true);
        }

        T awaitResult(String what) throws Exception {
            T r = join(result, what);
            assertThat(returnedEarly.get()).as(what + ": returned " + r + " before its cause").isFalse();
            return r;
        }
    }

    // ---------------------------------------------------------------- capacity, order, overflow

    @Test
    void aQueueCarriesFarMoreCompletionsThanItsDepthWhenTheyArePolled() {
        for (int depth : new int[] {4, 5}) {
            KitCompletionQueue cq = cq(depth);
            WorkCompletion[] out = WorkCompletion.array(depth);
            long wrId = 0;
            for (int lap = 0; lap < 20; lap++) {
                for (int i = 0; i < depth; i++) {
                    assertThat(addReceive(cq, wrId + i, 0)).as("depth " + depth + ", lap " + lap + ": completion " + i + " fits").isTrue();
                }
                assertThat(cq.poll(out)).isEqualTo(depth);
                for (int i = 0; i < depth; i++) {
                    assertThat(out[i].wrId()).as("depth " + depth + ", lap " + lap + ": in the order added").isEqualTo(wrId + i);
                }
                wrId += depth;
            }
            assertThat(events()).as("depth " + depth + ": no overflow while every completion was polled in time")
                    .noneMatch(e -> e.type() == AsyncEventType.CQ_ERROR);
            assertThat(cq.poll(out)).as("depth " + depth + ": drained").isZero();
        }
    }

    @Test
    void theDepthNotTheRingSizeDecidesWhenTheQueueOverflowsAndTheErrorIsReportedOnce() {
        KitCompletionQueue cq = cq(5);
        for (int i = 0; i < 5; i++) {
            assertThat(addReceive(cq, i, 0)).as("completion " + i + " of a queue of depth 5").isTrue();
        }
        assertThat(addReceive(cq, 5, 0)).as("a sixth completion in a queue of depth 5").isFalse();
        assertThat(addReceive(cq, 6, 0)).as("a seventh").isFalse();
        List<AsyncEvent> events = events();
        assertThat(events).filteredOn(e -> e.type() == AsyncEventType.CQ_ERROR).as("one CQ_ERROR for the overflow, however many completions it lost")
                .singleElement().satisfies(e -> assertThat(e.resource()).isSameAs(cq));
        WorkCompletion[] out = WorkCompletion.array(8);
        assertThatThrownBy(() -> cq.poll(out)).as("the first poll after the overflow").isInstanceOf(AsyncErrorException.class)
                .satisfies(x -> assertThat(((AsyncErrorException) x).type()).isEqualTo(AsyncEventType.CQ_ERROR));
        assertThat(cq.poll(out)).as("later polls return the completions that fitted").isEqualTo(5);
        for (int i = 0; i < 5; i++) {
            assertThat(out[i].wrId()).isEqualTo(i);
        }
    }

    @Test
    void theAdaptersLargestDepthIsAccepted() {
        int max = device.attributes().maxCqDepth();
        CompletionQueue cq = cq(max);
        assertThat(cq.depth()).isEqualTo(max);
        assertThatThrownBy(() -> device.createCompletionQueue(max + 1)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining(String.valueOf(max + 1));
    }

    @Test
    void pollFillsExactlyTheSliceItIsGiven() {
        KitCompletionQueue cq = cq(8);
        for (int i = 0; i < 3; i++) {
            addReceive(cq, 10 + i, 0);
        }
        WorkCompletion[] out = WorkCompletion.array(4);
        assertThat(cq.poll(out, 0, 0)).as("a poll for no completions (e.g. a batch array that is full)").isZero();
        assertThat(cq.poll(out, 4, 0)).as("an empty slice at the end of the array").isZero();
        assertThatThrownBy(() -> cq.poll(out, 1, 4)).as("a slice that runs past the end of the array")
                .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("offset 1").hasMessageContaining("max 4");
        assertThatThrownBy(() -> cq.poll(out, -1, 1)).isInstanceOf(InvalidArgumentException.class);
        assertThatThrownBy(() -> cq.poll(out, 0, -1)).isInstanceOf(InvalidArgumentException.class);
        out[0].set(-1, CompletionStatus.SUCCESS, CompletionOpcode.SEND, 0, 0, 0, 0, 0);
        assertThat(cq.poll(out, 1, 2)).isEqualTo(2);
        assertThat(out[0].wrId()).as("outside the slice: untouched").isEqualTo(-1);
        assertThat(out[1].wrId()).isEqualTo(10);
        assertThat(out[2].wrId()).isEqualTo(11);
        assertThat(cq.poll(out, 3, 1)).isEqualTo(1);
        assertThat(out[3].wrId()).as("the refused polls took nothing").isEqualTo(12);
    }

    @Test
    void theHighWaterCounterCountsCompletionsQueuedAtOnceNotEverAdded() {
        KitCompletionQueue cq = cq(8);
        String label = device.name() + " cq " + cq.number() + " high water";
        WorkCompletion[] out = WorkCompletion.array(8);
        for (int lap = 0; lap < 4; lap++) {
            addReceive(cq, 2L * lap, 0);
            addReceive(cq, 2L * lap + 1, 0);
            assertThat(cq.poll(out)).isEqualTo(2);
        }
        assertThat(counter(label)).as("8 completions added two at a time, each pair polled before the next").isEqualTo(2);
    }

    // ---------------------------------------------------------------- send-queue slots

    @Test
    void aSendQueueSlotIsFreeOnceItsCompletionWasPolledAndNotBefore() {
        KitCompletionQueue cq = cq(8);
        SendQueue sq = new SendQueue(1, 0);
        SendQueue.Emitter toCq = (wr, status, vendorError, position) ->
                cq.add(wr.wrId(), status, CompletionOpcode.SEND, 0, 3, 0, 0, vendorError, sq, position);
        WorkCompletion[] out = WorkCompletion.array(1);
        for (long wrId = 0; wrId < 4; wrId++) {
            long pos = sq.claim();
            assertThat(pos).as("request " + wrId + ": the slot of the request before was polled").isGreaterThanOrEqualTo(0);
            sq.publish(pos, new WorkRequest.LocalInvalidate(wrId, 0x100, 0));
            sq.finish(pos, CompletionStatus.SUCCESS, 0);
            sq.complete(toCq);
            assertThat(sq.claim()).as("request " + wrId + " completed, but its completion is still queued").isEqualTo(-1);
            assertThat(cq.poll(out)).isEqualTo(1);
            assertThat(out[0].wrId()).isEqualTo(wrId);
        }
    }

    // ---------------------------------------------------------------- events and waits

    @Test
    void aCompletionAlreadyQueuedSatisfiesAnUnfilteredWaitButNotASolicitedOnlyOne() {
        KitCompletionQueue cq = cq(4);
        assertThat(cq.awaitEvent(false, Duration.ZERO)).as("awaitEvent on an empty queue").isFalse();
        addReceive(cq, 1, 0);
        assertThat(cq.awaitEvent(false, Duration.ZERO)).as("awaitEvent(solicitedOnly=false) with a completion queued").isTrue();
        assertThat(cq.awaitEvent(true, Duration.ZERO)).as("awaitEvent(solicitedOnly=true) with only an unsolicited completion queued").isFalse();
        WorkCompletion[] out = WorkCompletion.array(2);
        assertThat(cq.poll(out)).as("the waits left the completion queued").isEqualTo(1);
        assertThat(cq.awaitEvent(false, Duration.ZERO)).as("awaitEvent once the queue was drained").isFalse();
    }

    @Test
    void anUnsolicitedCompletionThatWokeAnotherWaiterDoesNotSatisfyASolicitedOnlyWait() throws Exception {
        KitCompletionQueue cq = cq(4);
        Waiter<Boolean> any = new Waiter<>("awaitEvent-any", () -> cq.awaitEvent(false, LONG));
        any.cause();
        addReceive(cq, 1, 0);
        assertThat(any.awaitResult("awaitEvent(solicitedOnly=false) woken by an unsolicited completion")).isTrue();
        assertThat(cq.awaitEvent(true, Duration.ZERO)).as("a solicited-only wait that begins after the unsolicited completion").isFalse();

        Waiter<Boolean> solicited = new Waiter<>("awaitEvent-solicited", () -> cq.awaitEvent(true, LONG));
        solicited.cause();
        addReceive(cq, 2, WorkCompletion.FLAG_SOLICITED);
        assertThat(solicited.awaitResult("awaitEvent(solicitedOnly=true) woken by a solicited completion")).isTrue();
        assertThat(cq.poll(WorkCompletion.array(4))).isEqualTo(2);
    }

    @Test
    void awaitBlocksUntilACompletionIsAddedAndReturnsIt() throws Exception {
        KitCompletionQueue cq = cq(4);
        WorkCompletion[] out = WorkCompletion.array(4);
        Waiter<Integer> waiter = new Waiter<>("await", () -> cq.await(out, LONG));
        waiter.cause();
        addReceive(cq, 42, 0);
        assertThat(waiter.awaitResult("await woken by a completion")).isEqualTo(1);
        assertThat(out[0].wrId()).isEqualTo(42);
    }

    @Test
    void awaitOnAnIdleQueueReturnsNothingOnceItsTimeoutPassed() {
        KitCompletionQueue cq = cq(4);
        WorkCompletion[] out = WorkCompletion.array(4);
        assertThat(cq.await(out, Duration.ZERO)).isZero();
        assertThat(cq.await(out, Duration.ofMillis(20))).isZero();
        addReceive(cq, 9, 0);
        assertThat(cq.await(out, Duration.ZERO)).as("await with no time to wait still takes what is queued").isEqualTo(1);
        assertThat(out[0].wrId()).isEqualTo(9);
    }

    @Test
    void aCompletionAddedJustAsAThreadStartsToWaitIsNeverMissed() throws Exception {
        KitCompletionQueue cq = cq(4);
        AtomicInteger aboutToWait = new AtomicInteger(-1);
        AtomicInteger added = new AtomicInteger(-1);
        int rounds = 1_000;
        Thread producer = Thread.ofPlatform().daemon().name("cq-producer").start(() -> {
            for (int r = 0; r < rounds; r++) {
                long deadline = System.nanoTime() + LoopbackPair.WAIT.toNanos();
                while (aboutToWait.get() < r) {
                    if (System.nanoTime() - deadline > 0) {
                        return;
                    }
                    Thread.onSpinWait();
                }
                for (int i = r % 8; i > 0; i--) {
                    Thread.onSpinWait();
                }
                addReceive(cq, r, 0);
                added.set(r);
            }
        });
        try {
            WorkCompletion[] out = WorkCompletion.array(1);
            for (int r = 0; r < rounds; r++) {
                aboutToWait.set(r);
                // the completion lands before, during or after the start of the wait: never lost
                assertThat(cq.awaitEvent(false, LONG)).as("round " + r + ": awaitEvent with a completion added as it began").isTrue();
                long deadline = System.nanoTime() + LoopbackPair.WAIT.toNanos();
                while (added.get() < r) {
                    assertThat(System.nanoTime() - deadline).as("round " + r + ": the producer added its completion").isNegative();
                    Thread.onSpinWait();
                }
                assertThat(cq.poll(out)).as("round " + r).isEqualTo(1);
                assertThat(out[0].wrId()).isEqualTo(r);
            }
        } finally {
            aboutToWait.set(Integer.MAX_VALUE);
            producer.join(LoopbackPair.WAIT.toMillis());
        }
    }

    @Test
    void closingTheQueueWakesItsWaiters() throws Exception {
        KitCompletionQueue cq = cq(4);
        WorkCompletion[] out = WorkCompletion.array(4);
        Waiter<Integer> await = new Waiter<>("await", () -> cq.await(out, LONG));
        Waiter<Boolean> event = new Waiter<>("awaitEvent", () -> cq.awaitEvent(true, LONG));
        await.cause();
        event.cause();
        cq.close();
        assertThatThrownBy(() -> await.awaitResult("await on a queue closed under it"))
                .as("await on a queue closed under it").isInstanceOf(ResourceClosedException.class);
        assertThat(event.awaitResult("awaitEvent on a queue closed under it")).as("no event: the queue closed").isFalse();
        assertThatThrownBy(() -> cq.awaitEvent(false, LONG)).as("a wait that begins after the close").isInstanceOf(ResourceClosedException.class);
    }

    @Test
    void anInterruptedWaitReturnsEmptyHandedAndKeepsTheInterrupt() throws Exception {
        KitCompletionQueue cq = cq(4);
        Waiter<Boolean> event = new Waiter<>("awaitEvent", () -> cq.awaitEvent(false, LONG));
        event.cause();
        event.thread.interrupt();
        assertThat(event.awaitResult("awaitEvent interrupted")).isFalse();
        assertThat(event.interruptedAfter.get()).as("the waiting thread's interrupt status after awaitEvent returned").isTrue();

        WorkCompletion[] out = WorkCompletion.array(4);
        Waiter<Integer> await = new Waiter<>("await", () -> cq.await(out, LONG));
        await.cause();
        await.thread.interrupt();
        assertThat(await.awaitResult("await interrupted")).isZero();
        assertThat(await.interruptedAfter.get()).as("the waiting thread's interrupt status after await returned").isTrue();
    }
}

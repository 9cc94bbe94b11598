package dev.tandem.iwarp;

import dev.tandem.provider.KitCompletionQueue;
import dev.tandem.ras.CounterSnapshot;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasReader;
import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The completion queue with several threads at it, as in a running adapter: the engine thread and
 * application threads (a flush on a move to ERROR, a local operation run by the posting thread) add
 * completions to one queue while others poll it. No completion is lost or duplicated, and every one
 * the queue could not take is counted as an overflow.
 */
class CompletionQueueConcurrencyTest {
    private IwarpDevice device;
    private KitCompletionQueue cq;

    @BeforeEach
    void open() {
        device = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
    }

    @AfterEach
    void close() {
        if (cq != null) {
            cq.close();
        }
        device.close();
    }

    private KitCompletionQueue cq(int depth) {
        cq = (KitCompletionQueue) device.createCompletionQueue(depth);
        return cq;
    }

    private static boolean add(KitCompletionQueue cq, long wrId) {
        return cq.add(wrId, CompletionStatus.SUCCESS, CompletionOpcode.RECV, 8, 5, 0, 0, 0, null, 0);
    }

    private static long counter(String label) {
        try (RasReader reader = RasReader.open(ProcessRas.current().path())) {
            List<Long> values = reader.counters().stream().filter(c -> c.label().equals(label)).map(CounterSnapshot::value).toList();
            assertThat(values).as("counter '" + label + "'").hasSize(1);
            return values.getFirst();
        }
    }

    private List<AsyncEventType> cqEvents() {
        List<AsyncEventType> seen = new ArrayList<>();
        for (AsyncEvent e; (e = device.pollAsyncEvent(Duration.ZERO)) != null; ) {
            if (e.resource() == cq) {
                seen.add(e.type());
            }
        }
        return seen;
    }

    private static <T> T join(CompletableFuture<T> f, String what) throws Exception {
        try {
            return f.get(LoopbackPair.WAIT.toMillis() * 4, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("timed out awaiting " + what);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error x) {
                throw x;
            }
            throw new AssertionError(what + " failed", e.getCause());
        }
    }

    /** Runs {@code work} on a platform thread that starts once {@code start} is at least its number. */
    private static <T> CompletableFuture<T> onThread(String name, AtomicInteger start, int number, IntFunction<T> work) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name(name).start(() -> {
            try {
                long deadline = System.nanoTime() + LoopbackPair.WAIT.toNanos();
                while (start.get() < number) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new AssertionError(name + " was never started");
                    }
                    Thread.onSpinWait();
                }
                f.complete(work.apply(number));
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    @Test
    void twoThreadsAddingAtOnceToAQueueWithRoomLoseNothing() throws Exception {
        int depth = 1024;
        KitCompletionQueue cq = cq(depth);
        WorkCompletion[] out = WorkCompletion.array(depth);
        AtomicInteger start = new AtomicInteger(-1);
        for (int round = 0; round < 100; round++) {
            long base = (long) round * depth;
            CompletableFuture<Integer> other = onThread("cq-adder", start, round, r -> {
                int refused = 0;
                for (int i = 1; i < depth; i += 2) {
                    refused += add(cq, base + i) ? 0 : 1;
                }
                return refused;
            });
            start.set(round);
            int refused = 0;
            for (int i = 0; i < depth; i += 2) {
                refused += add(cq, base + i) ? 0 : 1;
            }
            refused += join(other, "the second adder of round " + round);
            assertThat(refused).as("round %d: completions refused by a queue of depth %d holding at most %d", round, depth, depth).isZero();
            assertThat(cq.poll(out)).as("round " + round).isEqualTo(depth);
            BitSet seen = new BitSet(depth);
            for (WorkCompletion wc : out) {
                seen.set((int) (wc.wrId() - base));
            }
            assertThat(seen.cardinality()).as("round %d: distinct completions polled", round).isEqualTo(depth);
        }
        assertThat(cqEvents()).as("events about a queue that never overflowed").isEmpty();
    }

    @Test
    void awaitWithNoTimeLeftTakesNothingItDoesNotReturn() throws Exception {
        int total = 20_000;
        KitCompletionQueue cq = cq(64);
        AtomicLong taken = new AtomicLong();
        AtomicInteger start = new AtomicInteger(-1);
        // the producer keeps the queue far from full, adding at a pace the consumer can follow
        CompletableFuture<Integer> producer = onThread("cq-producer", start, 0, r -> {
            int refused = 0;
            long deadline = System.nanoTime() + 4 * LoopbackPair.WAIT.toNanos();
            for (int i = 0; i < total; i++) {
                while (i - taken.get() >= 16 && System.nanoTime() - deadline < 0) {
                    Thread.onSpinWait();
                }
                for (int spin = i % 7; spin > 0; spin--) {
                    Thread.onSpinWait();
                }
                refused += add(cq, i) ? 0 : 1;
            }
            return refused;
        });
        start.set(0);
        WorkCompletion[] out = WorkCompletion.array(4);
        long next = 0;
        long deadline = System.nanoTime() + 4 * LoopbackPair.WAIT.toNanos();
        while (next < total && !(producer.isDone() && cq.isEmpty()) && System.nanoTime() - deadline < 0) {
            int n = cq.await(out, Duration.ZERO);
            for (int i = 0; i < n; i++) {
                assertThat(out[i].wrId()).as("the completion after wrId %d", next - 1).isEqualTo(next);
                next++;
            }
            taken.set(next);
        }
        assertThat(join(producer, "the producer")).as("completions refused by a queue kept below a quarter full").isZero();
        assertThat(next).as("completions returned by await(ZERO) in a loop, of %d added", total).isEqualTo(total);
    }

    private record Produced(int attempts, BitSet accepted) {
    }

    @Test
    void everyCompletionTheQueueRefusedIsCountedAndEveryOneItTookIsPolledOnce() throws Exception {
        int limit = 1 << 22;
        int enough = 5_000;
        KitCompletionQueue cq = cq(4);
        String overflows = device.name() + " cq " + cq.number() + " overflows";
        AtomicInteger start = new AtomicInteger(-1);
        AtomicInteger polledSoFar = new AtomicInteger();
        // the producer outruns the poller, so the queue is full most of the time, until the poller
        // has taken enough completions out of a full queue (or the bound ran out)
        long deadline = System.nanoTime() + 2 * LoopbackPair.WAIT.toNanos();
        CompletableFuture<Produced> producer = onThread("cq-producer", start, 0, r -> {
            BitSet accepted = new BitSet();
            int i = 0;
            for (; i < limit && polledSoFar.get() < enough && System.nanoTime() - deadline < 0; i++) {
                if (add(cq, i)) {
                    accepted.set(i);
                }
            }
            return new Produced(i, accepted);
        });
        start.set(0);
        BitSet polled = new BitSet();
        WorkCompletion[] out = WorkCompletion.array(2);
        int overflowReports = 0;
        while (true) {
            boolean done = producer.isDone();
            int n;
            try {
                n = cq.poll(out);
            } catch (AsyncErrorException e) {
                assertThat(e.type()).isEqualTo(AsyncEventType.CQ_ERROR);
                overflowReports++;
                continue;
            }
            for (int i = 0; i < n; i++) {
                int wrId = (int) out[i].wrId();
                assertThat(polled.get(wrId)).as("wrId %d polled twice", wrId).isFalse();
                polled.set(wrId);
            }
            polledSoFar.addAndGet(n);
            if (done && n == 0) {
                break;
            }
        }
        Produced produced = join(producer, "the producer");
        BitSet accepted = produced.accepted();
        int refused = produced.attempts() - accepted.cardinality();
        BitSet takenButNotPolled = (BitSet) accepted.clone();
        takenButNotPolled.andNot(polled);
        assertThat(takenButNotPolled.stream().limit(10).boxed().toList()).as("completions the queue accepted that no poll returned").isEmpty();
        assertThat(polled).as("every polled completion was accepted").isEqualTo(accepted);
        assertThat(refused).as("completions refused by a queue of depth 4 that a slower thread polls").isPositive();
        assertThat(counter(overflows)).as("the overflow counter, against %d completions refused", refused).isEqualTo(refused);
        assertThat(overflowReports).as("polls that reported the overflow").isEqualTo(1);
        assertThat(cqEvents()).as("events about the queue").containsExactly(AsyncEventType.CQ_ERROR);
    }
}

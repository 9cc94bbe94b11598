package dev.tandem.provider;

import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.WorkRequest;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The send queue alone: the order completions leave in, what a late second finish may not change
 * (status or vendor error), when a slot is free again, and the same over many laps of its ring and
 * with two threads at it: a request in a slot that an
 * earlier request used is outstanding until it finishes itself, a finish that comes after its
 * completion left changes nothing, and no completion or slot is lost when two threads finish or
 * release at the same time (the transmitter and a failing QP's flush finish slots; several threads
 * may poll the CQ that releases them).
 */
class SendQueueTest {
    private static final long BOUND_NANOS = TimeUnit.SECONDS.toNanos(20);

    private record Emitted(long wrId, CompletionStatus status, int vendorError, long position) {
    }

    private final List<Emitted> emitted = new ArrayList<>();
    private final SendQueue.Emitter emitter = (wr, status, vendorError, position) ->
            emitted.add(new Emitted(wr.wrId(), status, vendorError, position));

    private static WorkRequest request(long wrId) {
        return new WorkRequest.LocalInvalidate(wrId, 0x100, 0);
    }

    private static long post(SendQueue sq, long wrId) {
        long pos = sq.claim();
        assertThat(pos).as("a free slot for wrId " + wrId).isGreaterThanOrEqualTo(0);
        sq.publish(pos, request(wrId));
        return pos;
    }

    @Test
    void aRequestInAReusedSlotStaysOutstandingUntilItFinishesItself() {
        SendQueue sq = new SendQueue(2, 0);
        for (int lap = 0; lap < 8; lap++) {
            long a = post(sq, 2L * lap);
            long b = post(sq, 2L * lap + 1);
            assertThat(sq.finish(b, CompletionStatus.SUCCESS, 0)).as("lap " + lap + ": the first finish of the second request").isTrue();
            sq.complete(emitter);
            assertThat(emitted).as("lap " + lap + ": the first request (in a slot where an earlier request finished) has not finished").isEmpty();
            assertThat(sq.finish(a, CompletionStatus.REM_ACCESS_ERR, 0x0203)).as("lap " + lap + ": the first finish of the first request").isTrue();
            sq.complete(emitter);
            assertThat(emitted).as("lap " + lap).containsExactly(
                    new Emitted(2L * lap, CompletionStatus.REM_ACCESS_ERR, 0x0203, a),
                    new Emitted(2L * lap + 1, CompletionStatus.SUCCESS, 0, b));
            emitted.clear();
            sq.release(b + 1);
        }
    }

    @Test
    void aFinishThatComesAfterTheCompletionLeftChangesNothing() {
        SendQueue sq = new SendQueue(2, 0);
        for (long wrId = 0; wrId < 16; wrId++) {
            long pos = post(sq, wrId);
            sq.finish(pos, CompletionStatus.SUCCESS, 0);
            sq.complete(emitter);
            sq.release(pos + 1);
        }
        emitted.clear();
        long current = post(sq, 16);
        // a flush racing the transmitter may name a position whose completion left long ago: every
        // earlier position shares its slot with some later request, the current one included
        for (long old = 0; old < current; old++) {
            assertThat(sq.finish(old, CompletionStatus.WR_FLUSH_ERR, 0)).as("a late finish of position " + old).isFalse();
        }
        sq.complete(emitter);
        assertThat(emitted).as("the request at position " + current + " has not finished").isEmpty();
        assertThat(sq.finish(current, CompletionStatus.SUCCESS, 0)).as("the current request's own finish").isTrue();
        sq.complete(emitter);
        assertThat(emitted).containsExactly(new Emitted(16, CompletionStatus.SUCCESS, 0, current));
    }

    @Test
    void headAndTailCountWhatIsOutstanding() {
        // what the adapter dump lists as posted, and the send-queue high-water counter, are tail - head
        SendQueue sq = new SendQueue(4, 0);
        long a = post(sq, 1);
        long b = post(sq, 2);
        post(sq, 3);
        assertThat(sq.isEmpty()).as("three requests outstanding").isFalse();
        assertThat(sq.tail() - sq.head()).isEqualTo(3);
        sq.finish(b, CompletionStatus.SUCCESS, 0);
        sq.complete(emitter);
        assertThat(sq.tail() - sq.head()).as("the second finished, but the first still holds the head").isEqualTo(3);
        sq.finish(a, CompletionStatus.SUCCESS, 0);
        sq.complete(emitter);
        assertThat(sq.head()).as("two completions left").isEqualTo(b + 1);
        assertThat(sq.tail() - sq.head()).isEqualTo(1);
        assertThat(sq.isEmpty()).isFalse();
    }

    @Test
    void twoThreadsFinishingNeighbourSlotsAtOnceNeverStrandACompletion() throws Exception {
        // many queues per round: the two threads meet on each at a slightly different moment
        int queues = 32;
        SendQueue[] sq = new SendQueue[queues];
        long[] first = new long[queues];
        AtomicLongArray emittedPerQueue = new AtomicLongArray(queues);
        AtomicReference<String> disorder = new AtomicReference<>();
        SendQueue.Emitter[] polling = new SendQueue.Emitter[queues];
        AtomicInteger started = new AtomicInteger(-1);
        for (int q = 0; q < queues; q++) {
            int k = q;
            sq[k] = new SendQueue(2, 0);
            // a fast poller: each completion's slot is released as it is emitted
            polling[k] = (wr, status, vendorError, position) -> {
                long due = emittedPerQueue.getAndIncrement(k);
                if (wr.wrId() != due) {
                    disorder.compareAndSet(null, "queue " + k + ": wrId " + wr.wrId() + " emitted when " + due + " was due");
                }
                sq[k].release(position + 1);
            };
        }
        race(4_000,
                round -> {
                    for (int q = 0; q < queues; q++) {
                        first[q] = post(sq[q], 2L * round);
                        post(sq[q], 2L * round + 1);
                    }
                },
                round -> {
                    for (int q = 0; q < queues; q++) {
                        started.set(round * queues + q);
                        sq[q].finish(first[q], CompletionStatus.SUCCESS, 0);
                        sq[q].complete(polling[q]);
                    }
                },
                round -> {
                    for (int q = 0; q < queues; q++) {
                        // follow the first thread queue by queue, a little earlier or later each time
                        awaitValue(started, round * queues + q, System.nanoTime() + BOUND_NANOS, "queue " + q + " of round " + round);
                        for (int i = (q + round) % 5; i > 0; i--) {
                            Thread.onSpinWait();
                        }
                        sq[q].finish(first[q] + 1, CompletionStatus.SUCCESS, 0);
                        sq[q].complete(polling[q]);
                    }
                },
                round -> {
                    assertThat(disorder.get()).isNull();
                    for (int q = 0; q < queues; q++) {
                        assertThat(emittedPerQueue.get(q)).as("queue " + q + ": completions emitted after round " + round
                                + " (both of its requests finished, each finisher called complete)").isEqualTo(2L * round + 2);
                    }
                });
    }

    @Test
    void twoThreadsReleasingAtOnceFreeEverySlotUpToTheLaterPosition() throws Exception {
        SendQueue sq = new SendQueue(2, 0);
        long[] first = new long[1];
        race(5_000,
                round -> {
                    long a = sq.claim();
                    long b = sq.claim();
                    assertThat(b).as("round " + round + ": both slots were released in the round before").isGreaterThanOrEqualTo(0);
                    sq.publish(a, request(2L * round));
                    sq.publish(b, request(2L * round + 1));
                    sq.finish(a, CompletionStatus.SUCCESS, 0);
                    sq.finish(b, CompletionStatus.SUCCESS, 0);
                    sq.complete((wr, status, vendorError, position) -> {
                    });
                    first[0] = a;
                },
                round -> sq.release(first[0] + 1),
                round -> sq.release(first[0] + 2),
                round -> {
                });
        assertThat(sq.claim()).as("after the last round").isGreaterThanOrEqualTo(0);
    }

    @Test
    void twoThreadsPostingAtOnceEachGetTheirOwnSlotsUntilTheQueueIsFull() throws Exception {
        int depth = 1024;
        SendQueue[] sq = new SendQueue[1];
        long[][] got = new long[2][depth / 2];
        race(500,
                round -> sq[0] = new SendQueue(depth, 0),
                round -> postAll(sq[0], got[0], round),
                round -> postAll(sq[0], got[1], round),
                round -> {
                    java.util.BitSet seen = new java.util.BitSet(depth);
                    for (long[] positions : got) {
                        for (long pos : positions) {
                            assertThat(pos).as("round " + round + ": a claim on a queue with free slots").isBetween(0L, depth - 1L);
                            assertThat(seen.get((int) pos)).as("round " + round + ": position " + pos + " handed out twice").isFalse();
                            seen.set((int) pos);
                        }
                    }
                    assertThat(sq[0].claim()).as("round " + round + ": the queue of depth " + depth + " is full").isEqualTo(-1);
                });
    }

    private static void postAll(SendQueue sq, long[] positions, int round) {
        for (int i = 0; i < positions.length; i++) {
            long pos = sq.claim();
            positions[i] = pos;
            if (pos >= 0) {
                sq.publish(pos, request(pos));
            }
        }
    }

    /**
     * Runs {@code rounds} rounds: {@code setup} on this thread, then {@code mine} here and {@code theirs}
     * on a second thread as near the same instant as two threads can start, then {@code check} once both
     * returned. The second thread starts a little later or earlier from round to round.
     */
    private static void race(int rounds, IntConsumer setup, IntConsumer mine, IntConsumer theirs, IntConsumer check) throws Exception {
        AtomicInteger go = new AtomicInteger(-1);
        AtomicInteger done = new AtomicInteger(-1);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        long deadline = System.nanoTime() + BOUND_NANOS;
        Thread partner = Thread.ofPlatform().daemon().name("send-queue-partner").start(() -> {
            try {
                for (int r = 0; r < rounds; r++) {
                    awaitValue(go, r, deadline, "round " + r + " to start");
                    if (go.get() == Integer.MAX_VALUE) {
                        return;
                    }
                    for (int i = r % 7; i > 0; i--) {
                        Thread.onSpinWait();
                    }
                    theirs.accept(r);
                    done.set(r);
                }
            } catch (Throwable t) {
                failed.set(t);
                done.set(Integer.MAX_VALUE);
            }
        });
        try {
            for (int r = 0; r < rounds; r++) {
                setup.accept(r);
                go.set(r);
                for (int i = (r / 7) % 5; i > 0; i--) {
                    Thread.onSpinWait();
                }
                mine.accept(r);
                awaitValue(done, r, deadline, "the second thread to finish round " + r);
                if (failed.get() != null) {
                    throw new AssertionError("the second thread failed in round " + r, failed.get());
                }
                check.accept(r);
            }
        } finally {
            go.set(Integer.MAX_VALUE);
            partner.join(TimeUnit.NANOSECONDS.toMillis(BOUND_NANOS));
        }
        assertThat(partner.isAlive()).as("the second thread ended").isFalse();
    }

    private static void awaitValue(AtomicInteger value, int atLeast, long deadline, String what) {
        for (int spins = 0; value.get() < atLeast; spins++) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out awaiting " + what);
            }
            if (spins < 1_000) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    @Test
    void aSlotFinishedSuccessfullyKeepsItsStatusAndVendorErrorWhenAFlushComesLate() {
        SendQueue sq = new SendQueue(4, 0);
        long pos = post(sq, 7);
        assertThat(sq.finish(pos, CompletionStatus.SUCCESS, 0)).isTrue();
        // the flush of a failing QP races the transmitter: it must change neither the status nor the vendor error
        assertThat(sq.finish(pos, CompletionStatus.REM_ACCESS_ERR, 0x1100)).as("a second finish of the same slot").isFalse();
        sq.complete(emitter);
        assertThat(emitted).containsExactly(new Emitted(7, CompletionStatus.SUCCESS, 0, pos));
    }

    @Test
    void aFailedSlotCarriesItsOwnVendorError() {
        SendQueue sq = new SendQueue(4, 0);
        long pos = post(sq, 8);
        assertThat(sq.finish(pos, CompletionStatus.REM_ACCESS_ERR, 0x1100)).isTrue();
        assertThat(sq.finish(pos, CompletionStatus.WR_FLUSH_ERR, 0)).isFalse();
        sq.complete(emitter);
        assertThat(emitted).containsExactly(new Emitted(8, CompletionStatus.REM_ACCESS_ERR, 0x1100, pos));
    }

    @Test
    void completionsLeaveInPostingOrderEvenWhenLaterSlotsFinishFirst() {
        SendQueue sq = new SendQueue(4, 0);
        long a = post(sq, 1);
        long b = post(sq, 2);
        long c = post(sq, 3);
        sq.finish(c, CompletionStatus.WR_FLUSH_ERR, 0);
        sq.finish(b, CompletionStatus.SUCCESS, 0);
        sq.complete(emitter);
        assertThat(emitted).as("nothing leaves before the oldest request finished").isEmpty();
        sq.finish(a, CompletionStatus.LOC_PROT_ERR, 0);
        sq.complete(emitter);
        assertThat(emitted).extracting(Emitted::wrId).containsExactly(1L, 2L, 3L);
        assertThat(emitted).extracting(Emitted::status)
                .containsExactly(CompletionStatus.LOC_PROT_ERR, CompletionStatus.SUCCESS, CompletionStatus.WR_FLUSH_ERR);
        assertThat(sq.isEmpty()).isTrue();
    }

    @Test
    void aSlotIsReusedOnlyAfterItsCompletionWasReleased() {
        SendQueue sq = new SendQueue(2, 0);
        long a = post(sq, 1);
        post(sq, 2);
        assertThat(sq.claim()).as("a third request on a queue of depth 2").isEqualTo(-1);
        sq.finish(a, CompletionStatus.SUCCESS, 0);
        sq.complete(emitter);
        assertThat(sq.claim()).as("completed but not yet polled: the slot is still the application's").isEqualTo(-1);
        sq.release(a + 1);
        assertThat(sq.claim()).as("after the completion was polled").isEqualTo(2);
    }

    @Test
    void aCompletionPolledBeforeTheCompleterMovedItsHeadFreesItsSlotForTheNextPost() throws Exception {
        SendQueue sq = new SendQueue(2, 0);
        long a = post(sq, 1);
        post(sq, 2);
        sq.finish(a, CompletionStatus.SUCCESS, 0);
        AtomicLong claimed = new AtomicLong(Long.MIN_VALUE);
        Thread[] poster = new Thread[1];
        sq.complete((wr, status, vendorError, position) -> {
            // the application polls this completion and posts again while the completer is still in emit
            sq.release(position + 1);
            poster[0] = Thread.ofPlatform().name("test-poster").start(() -> claimed.set(sq.claim()));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            while (claimed.get() == Long.MIN_VALUE && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // a claim that answers before the head moved may only answer -1
            }
        });
        poster[0].join(TimeUnit.NANOSECONDS.toMillis(BOUND_NANOS));
        assertThat(poster[0].isAlive()).as("the poster still waits for the head").isFalse();
        assertThat(claimed.get()).as("the slot the polled completion freed, not QueueFull").isEqualTo(2);
    }

    @Test
    void inlineBytesOfEachSlotHaveTheirOwnPlace() {
        SendQueue sq = new SendQueue(4, 64);
        long a = post(sq, 1);
        long b = post(sq, 2);
        assertThat(sq.inlineOffset(b) - sq.inlineOffset(a)).isEqualTo(64);
        assertThat(sq.inlineSegment().byteSize()).isGreaterThanOrEqualTo(sq.inlineOffset(b) + 64L);
    }
}

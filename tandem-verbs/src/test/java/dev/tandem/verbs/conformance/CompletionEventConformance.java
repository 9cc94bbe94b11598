package dev.tandem.verbs.conformance;

import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.ResourceInUseException;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static dev.tandem.verbs.CompletionOpcode.SEND;
import static dev.tandem.verbs.CompletionStatus.SUCCESS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Completion events: solicited and unsolicited waits, their timeouts, and CQ overflow. */
public abstract class CompletionEventConformance extends ConformanceBase {

    /**
     * What a waiter thread's {@code awaitEvent} returned, after how long, and whether the event it
     * must wait for had been caused by then (see {@link Waiter#expectWakeNow}).
     */
    private record Outcome(boolean result, long tookMs, boolean afterCause) {
    }

    /** A platform thread blocked in {@code cq.awaitEvent(solicitedOnly, 1 min)}. */
    private final class Waiter {
        final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        /** Set just before the test causes the event the waiter waits for. */
        private final java.util.concurrent.atomic.AtomicBoolean causeSent = new java.util.concurrent.atomic.AtomicBoolean();
        final Thread thread;
        final String call;

        Waiter(CompletionQueue cq, boolean solicitedOnly) {
            call = "awaitEvent(solicitedOnly=" + solicitedOnly + ", 1 min)";
            thread = Thread.ofPlatform().daemon().name("awaitEvent-" + solicitedOnly).start(() -> {
                long start = System.nanoTime();
                try {
                    boolean r = cq.awaitEvent(solicitedOnly, Duration.ofMinutes(1));
                    outcome.complete(new Outcome(r, (System.nanoTime() - start) / 1_000_000, causeSent.get()));
                } catch (Throwable t) {
                    outcome.completeExceptionally(t);
                }
            });
            awaitBlocked(thread, "a thread in CompletionQueue." + call);
        }

        /** Asserts that the waiter is still waiting {@link #QUIET} after what must not wake it. */
        void assertStillWaiting(String after) {
            try {
                if (thread.join(QUIET)) {
                    Outcome o = outcome.getNow(null);
                    throw new AssertionError(call + " returned " + (o == null ? "by throwing " + outcome : o.result() + " after " + o.tookMs() + " ms")
                            + " although only " + after + " had happened");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }

        /** Call right before causing the event the waiter must wake for. */
        void expectWakeNow() {
            causeSent.set(true);
        }

        boolean awaitWoken(String by) {
            Outcome o = join(outcome, call + " to wake for " + by);
            if (!o.afterCause()) {
                throw new AssertionError(call + " returned " + o.result() + " after " + o.tookMs() + " ms, before " + by + " was sent");
            }
            return o.result();
        }
    }

    /** Polls (never blocks, never arms the CQ) until one completion is there. */
    private WorkCompletion pollOne(CompletionQueue cq, String what) {
        WorkCompletion[] out = WorkCompletion.array(1);
        awaitCondition(what, () -> cq.poll(out) == 1);
        return out[0];
    }

    @Test
    void solicitedSendWakesASolicitedOnlyWaiterAndAnUnsolicitedSendDoesNot() {
        ConnectedPair pair = connectedPair();
        CompletionQueue cq = pair.passive().cq;
        postReceive(pair.passive(), 1, 0, 64);
        postReceive(pair.passive(), 2, 64, 64);
        Waiter waiter = new Waiter(cq, true);

        postSend(pair.active(), 10, 0, 64, SIGNALED);
        WorkCompletion plain = pollOne(cq, "the unsolicited Send's receive completion");
        assertReceived(plain, 1, 64, pair.passive().qp, "unsolicited receive");
        assertFalse(plain.isSolicited(), "a Send without SOLICITED reports isSolicited() false: " + plain);
        waiter.assertStillWaiting("an unsolicited Send");

        waiter.expectWakeNow();
        postSend(pair.active(), 11, 0, 64, SIGNALED | WrFlags.SOLICITED);
        assertTrue(waiter.awaitWoken("a Send with SOLICITED"), "awaitEvent's result");
        WorkCompletion solicited = pollOne(cq, "the solicited Send's receive completion (still queued after the event)");
        assertReceived(solicited, 2, 64, pair.passive().qp, "solicited receive");
        assertTrue(solicited.isSolicited(), "a Send with SOLICITED reports isSolicited(): " + solicited);
        assertNotEquals(0, solicited.flags() & WorkCompletion.FLAG_SOLICITED, "FLAG_SOLICITED: " + solicited);
        for (WorkCompletion wc : awaitCompletions(pair.active().cq, 2, "the two Sends' completions")) {
            assertEquals(SUCCESS, wc.status(), wc.toString());
            assertEquals(SEND, wc.opcode(), wc.toString());
            assertFalse(wc.isSolicited(), "the sender's own completion is not marked solicited: " + wc);
        }
    }

    @Test
    void anotherThreadsAwaitDoesNotTurnASolicitedOnlyWaitIntoAnUnfilteredOne() {
        ConnectedPair pair = connectedPair();
        CompletionQueue cq = pair.passive().cq;
        postReceive(pair.passive(), 1, 0, 64);
        postReceive(pair.passive(), 2, 64, 64);
        Waiter waiter = new Waiter(cq, true);
        CompletableFuture<WorkCompletion> polled = new CompletableFuture<>();
        Thread other = Thread.ofPlatform().daemon().name("cq-await").start(() -> {
            WorkCompletion[] out = WorkCompletion.array(1);
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (System.nanoTime() < deadline) {
                if (cq.await(out, Duration.ofMinutes(1)) == 1) {
                    polled.complete(out[0]);
                    return;
                }
            }
            polled.complete(null);
        });
        awaitBlocked(other, "a second thread in CompletionQueue.await");
        postSend(pair.active(), 10, 0, 64, SIGNALED);
        WorkCompletion plain = join(polled, "the second thread's await to return the unsolicited receive");
        assertReceived(plain, 1, 64, pair.passive().qp, "unsolicited receive");
        waiter.assertStillWaiting("an unsolicited Send (taken by another thread's await)");
        waiter.expectWakeNow();
        postSend(pair.active(), 11, 0, 64, SIGNALED | WrFlags.SOLICITED);
        assertTrue(waiter.awaitWoken("a Send with SOLICITED"), "awaitEvent's result");
    }

    @Test
    void anyCompletionWakesAnUnfilteredWaiterAndStaysQueued() {
        ConnectedPair pair = connectedPair();
        CompletionQueue cq = pair.passive().cq;
        postReceive(pair.passive(), 1, 0, 64);
        Waiter waiter = new Waiter(cq, false);
        waiter.expectWakeNow();
        postSend(pair.active(), 10, 0, 64, SIGNALED);
        assertTrue(waiter.awaitWoken("an unsolicited Send"), "awaitEvent's result");
        WorkCompletion[] out = WorkCompletion.array(2);
        assertEquals(1, cq.poll(out), "the completion that woke the waiter stays queued for poll");
        assertReceived(out[0], 1, 64, pair.passive().qp, "receive");
    }

    @Test
    void awaitEventTimesOutWithFalse() {
        ConnectedPair pair = connectedPair();
        Duration timeout = Duration.ofMillis(150);
        for (boolean solicitedOnly : new boolean[] {false, true}) {
            long start = System.nanoTime();
            assertFalse(pair.passive().cq.awaitEvent(solicitedOnly, timeout), "awaitEvent(" + solicitedOnly + ") on an idle CQ");
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(tookMs >= timeout.toMillis() - 15, "awaitEvent returned after " + tookMs + " ms, before its timeout of " + timeout);
        }
    }

    @Test
    void anErrorCompletionWakesASolicitedOnlyWaiter() {
        ConnectedPair pair = connectedPair();
        CompletionQueue cq = pair.passive().cq;
        postReceive(pair.passive(), 1, 0, 64);
        Waiter waiter = new Waiter(cq, true);
        waiter.expectWakeNow();
        pair.passive().qp.modify(QpState.ERROR);
        assertTrue(waiter.awaitWoken("a flushed receive"), "awaitEvent's result");
        assertFlushed(awaitCompletion(cq, "the flushed receive"), 1, "receive flushed by the move to ERROR");
    }

    @Test
    void overflowingACompletionQueueRaisesCqErrorAndFailsItsQp() {
        CompletionQueue small = closeAtEnd(adapter(0).createCompletionQueue(4));
        int depth = small.depth();
        assertTrue(depth >= 4, "a CQ created with depth 4 reports depth " + depth);
        int maxDepth = adapter(0).attributes().maxQueuePairDepth();
        assumeTrue(depth + 8 <= maxDepth, "CQ depth " + depth + " leaves no room to overflow it within QP depth " + maxDepth);
        ConnectedPair pair = connectedPair(
                EndpointSpec.defaults().withCq(small).withQp(c -> c.withDepths(depth + 8, 4)),
                EndpointSpec.defaults().withQp(c -> c.withDepths(4, depth + 8)));
        for (int i = 0; i <= depth; i++) {
            postReceive(pair.passive(), 100 + i, 0, 64);
        }
        for (int i = 0; i <= depth; i++) {
            postSend(pair.active(), i, 0, 64, SIGNALED); // never polled: one more than the CQ holds
        }
        AsyncEvent e = awaitAsyncEvent(pair.active().device, AsyncEventType.CQ_ERROR, small);
        assertTrue(e.detail() != null && !e.detail().isBlank(), "CQ_ERROR explains itself: " + e);
        awaitState(pair.active().qp, QpState.ERROR, "the QP whose completion did not fit in its CQ");
        // The next poll reports the overflow once; later polls return the completions that fitted.
        WorkCompletion[] out = WorkCompletion.array(depth + 8);
        AsyncErrorException x = assertThrows(AsyncErrorException.class, () -> small.poll(out), "the first poll of a CQ that overflowed");
        assertEquals(AsyncEventType.CQ_ERROR, x.type(), "the error the first poll of an overflowed CQ reports: " + x.getMessage());
        int n = small.poll(out);
        assertTrue(n >= 1 && n <= depth, "a poll after the overflow returns the completions that fitted: " + n + " of depth " + depth);
        for (int i = 0; i < n; i++) {
            assertEquals(i, out[i].wrId(), "the completions that fitted, in posting order: " + out[i]);
        }
    }

    @Test
    void closingACqThatAQpStillUsesIsRefusedAndTheCqKeepsWorking() {
        ConnectedPair pair = connectedPair();
        CompletionQueue cq = pair.passive().cq;
        ResourceInUseException x = assertThrows(ResourceInUseException.class, cq::close, "closing the CQ of a connected QP");
        assertTrue(x.getMessage().contains("queue pair"), "the refusal says what still uses the CQ: " + x.getMessage());
        postReceive(pair.passive(), 1, 0, 64);
        postSend(pair.active(), 2, 0, 64, SIGNALED);
        assertReceived(awaitCompletion(cq, "a receive on the CQ whose close was refused"), 1, 64, pair.passive().qp, "receive");
        // a QP in ERROR still flushes into its CQ: the CQ stays in use until the QP is closed
        postReceive(pair.passive(), 3, 0, 64);
        pair.passive().qp.modify(QpState.ERROR);
        assertThrows(ResourceInUseException.class, cq::close, "closing the CQ of a QP in ERROR");
        assertFlushed(awaitCompletion(cq, "the receive flushed by the move to ERROR"), 3, "receive of the QP in ERROR");
        pair.passive().qp.close();
        cq.close();
        assertThrows(ResourceClosedException.class, () -> cq.poll(WorkCompletion.array(1)), "poll after the CQ was closed");
    }
}

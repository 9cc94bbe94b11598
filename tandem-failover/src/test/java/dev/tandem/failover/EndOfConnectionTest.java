package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When a connection ends, what was outstanding completes as on an adapter: each request once, in
 * posting order (a request posted after the end too, flushed after the ones before it); and a receive
 * whose message the sender was told had arrived completes with it, even when no path was left to ask.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EndOfConnectionTest {
    private static final int SIZE = 64;
    private final Opened opened = new Opened();
    private FailoverDevice a;
    private FailoverDevice b;
    private FailoverQueuePair qa;
    private FailoverQueuePair qb;
    private CompletionQueue cqA;
    private CompletionQueue cqB;
    private MemoryRegion mrA;
    private MemorySegment memB;

    @AfterEach
    void close() {
        opened.close();
    }

    /** a and b connected; a's proofs as {@code config} says; b has {@code receives} receives posted. */
    private void connect(FailoverConfig configA, int receives) throws Exception {
        a = opened.keep(FailoverDevice.open(configA));
        b = opened.keep(FailoverDevice.open(FailoverConfig.of("b", List.of("iwarp://127.0.1.2", "iwarp://127.0.2.2"))));
        Arena arena = opened.keep(Arena.ofShared());
        ProtectionDomain pdA = opened.keep(a.allocateProtectionDomain());
        ProtectionDomain pdB = opened.keep(b.allocateProtectionDomain());
        mrA = opened.keep(pdA.registerMemory(arena.allocate(SIZE * 32L, 64), Access.LOCAL_WRITE));
        memB = arena.allocate(SIZE * 32L, 64);
        MemoryRegion mrB = opened.keep(pdB.registerMemory(memB, Access.LOCAL_WRITE));
        cqA = opened.keep(a.createCompletionQueue(64));
        cqB = opened.keep(b.createCompletionQueue(64));
        qa = (FailoverQueuePair) opened.keep(pdA.createQueuePair(QueuePairConfig.of(cqA).withDepths(32, 4)));
        qb = (FailoverQueuePair) opened.keep(pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(4, 32)));
        for (int i = 0; i < receives; i++) {
            qb.postReceive(new ReceiveRequest(i, new Sge(mrB, (long) i * SIZE, SIZE)));
        }
        Opened.connect(qa, b, "127.0.1.2", qb);
    }

    /**
     * The consumer ends the connection with Sends outstanding (no proof went yet), then posts one more:
     * the earlier ones complete first, each once, then the one posted in ERROR, flushed.
     */
    @Test
    void aPostAfterTheConnectionEndedCompletesAfterEveryRequestPostedBeforeIt() throws Exception {
        connect(FailoverConfig.of("a", List.of("iwarp://127.0.1.1", "iwarp://127.0.2.1")).withProofEvery(1000)
                .withProofAfter(Duration.ofSeconds(10)), 16);
        for (int i = 0; i < 8; i++) {
            qa.postSend(new WorkRequest.Send(i, new Sge(mrA, (long) i * SIZE, SIZE), WrFlags.SIGNALED));
        }
        qa.modify(QpState.ERROR);
        qa.postSend(new WorkRequest.Send(100, new Sge(mrA, 0, SIZE), WrFlags.SIGNALED));

        List<WorkCompletion> got = drain(cqA, 9);
        assertThat(got).extracting(WorkCompletion::wrId).as("completions in posting order").containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 100L);
        assertThat(got.getLast().status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
        assertThat(cqA.poll(WorkCompletion.array(4))).as("nothing completes twice").isZero();
    }

    /**
     * b's application received a's Sends and ended the connection before any proof went: a's Sends complete
     * SUCCESS, in posting order, as on a plain adapter (the peer took them), not flushed: an application that
     * resent what was flushed would deliver these twice.
     */
    @RepeatedTest(5) // the peer's close and its BYE race with this side's proofs: each run draws one order
    void sendsThePeerReceivedBeforeItEndedTheConnectionCompleteSuccessfully() throws Exception {
        connect(FailoverConfig.of("a", List.of("iwarp://127.0.1.1", "iwarp://127.0.2.1")).withProofEvery(1000)
                .withProofAfter(Duration.ofSeconds(30)), 16);
        for (int i = 0; i < 8; i++) {
            mrA.segment().set(ValueLayout.JAVA_INT, (long) i * SIZE, 7000 + i);
            qa.postSend(new WorkRequest.Send(i, new Sge(mrA, (long) i * SIZE, SIZE), WrFlags.SIGNALED));
        }
        List<WorkCompletion> received = drain(cqB, 8);
        for (int i = 0; i < 8; i++) {
            assertThat(received.get(i).status()).as("b's receive %d: %s", i, received.get(i)).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(memB.get(ValueLayout.JAVA_INT, (long) i * SIZE)).isEqualTo(7000 + i);
        }
        qb.disconnect();
        long deadline = System.nanoTime() + Opened.WAIT.toNanos();
        while (qa.state() != QpState.ERROR) {
            assertThat(System.nanoTime()).as("waiting for a's QP to end after b's disconnect (%s)", qa.state()).isLessThan(deadline);
            Thread.onSpinWait();
        }
        List<WorkCompletion> sent = drain(cqA, 8);
        assertThat(sent).extracting(WorkCompletion::wrId).as("completions in posting order").containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L);
        assertThat(sent).extracting(WorkCompletion::status).as("Sends b received").containsOnly(CompletionStatus.SUCCESS);
        assertThat(cqA.poll(WorkCompletion.array(4))).as("nothing completes twice").isZero();
    }

    /**
     * As above, with the order fixed: a's application polls only after a's connection ended on b's BYE (its
     * DISCONNECTED came), so no proof of its own went before the end: the end itself settles what left the
     * adapter, and the Sends b received complete SUCCESS, in posting order, each once.
     */
    @Test
    void sendsThePeerReceivedCompleteSuccessfullyWhenTheApplicationPollsOnlyAfterTheEnd() throws Exception {
        connect(FailoverConfig.of("a", List.of("iwarp://127.0.1.1", "iwarp://127.0.2.1")).withProofEvery(1000)
                .withProofAfter(Duration.ofSeconds(30)), 16);
        for (int i = 0; i < 8; i++) {
            qa.postSend(new WorkRequest.Send(i, new Sge(mrA, (long) i * SIZE, SIZE), WrFlags.SIGNALED));
        }
        List<WorkCompletion> received = drain(cqB, 8);
        assertThat(received).extracting(WorkCompletion::status).as("b's receives").containsOnly(CompletionStatus.SUCCESS);
        qb.disconnect();
        Opened.await("a's DISCONNECTED after b's disconnect", () -> {
            AsyncEvent e = a.pollAsyncEvent(Duration.ofMillis(10));
            return e != null && e.resource() == qa && e.type() == AsyncEventType.DISCONNECTED;
        });
        List<WorkCompletion> sent = drain(cqA, 8);
        assertThat(sent).extracting(WorkCompletion::wrId).as("completions in posting order").containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L);
        assertThat(sent).extracting(WorkCompletion::status).as("Sends b received").containsOnly(CompletionStatus.SUCCESS);
        assertThat(cqA.poll(WorkCompletion.array(4))).as("nothing completes twice").isZero();
    }

    /**
     * a saw every Send complete (the peer was shown to hold them); b had not polled when both of its
     * adapters failed: no path is left, yet each of those receives completes SUCCESS with its message, in
     * posting order, and only the receives no message reached are flushed.
     */
    @Test
    void whenNoPathIsLeftTheReceivesTheSenderWasToldHadArrivedCompleteWithTheirMessages() throws Exception {
        connect(FailoverConfig.of("a", List.of("iwarp://127.0.1.1", "iwarp://127.0.2.1")), 20);
        WorkCompletion[] wcs = WorkCompletion.array(16);
        for (int i = 0; i < 16; i++) {
            mrA.segment().set(ValueLayout.JAVA_INT, (long) i * SIZE, 5000 + i);
            qa.postSend(new WorkRequest.Send(i, new Sge(mrA, (long) i * SIZE, SIZE), WrFlags.SIGNALED));
        }
        List<WorkCompletion> sent = drain(cqA, 16);
        assertThat(sent).allMatch(wc -> wc.status() == CompletionStatus.SUCCESS, "every Send shown held by b");

        // b's layer is busy while both its adapters fail and are reset at once (as a PCI error handler does): their
        // CQs are gone before the layer could read them
        try (var _ = Busy.hold(b)) {
            for (var adapter : b.adapters()) {
                ((AdapterControl) adapter).injectFatalError("test: both of b's adapters, before b polled");
            }
            for (var adapter : b.adapters()) {
                ((AdapterControl) adapter).reset(Duration.ofMillis(50));
            }
        }
        List<WorkCompletion> got = drain(cqB, 20);
        for (int i = 0; i < 16; i++) {
            WorkCompletion r = got.get(i);
            assertThat(r.wrId()).as("receives complete in posting order").isEqualTo(i);
            assertThat(r.status()).as("receive %d, whose message a was told arrived: %s", i, r).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(r.opcode()).isEqualTo(CompletionOpcode.RECV);
            assertThat(r.byteLength()).isEqualTo(SIZE);
            assertThat(memB.get(ValueLayout.JAVA_INT, (long) i * SIZE)).isEqualTo(5000 + i);
        }
        for (int i = 16; i < 20; i++) {
            assertThat(got.get(i).wrId()).isEqualTo(i);
            assertThat(got.get(i).status()).as("a receive no message reached").isEqualTo(CompletionStatus.WR_FLUSH_ERR);
        }
        assertThat(qb.state()).isEqualTo(QpState.ERROR);
    }

    /** Polls {@code n} completions (bounded wait). */
    private static List<WorkCompletion> drain(CompletionQueue cq, int n) {
        List<WorkCompletion> got = new ArrayList<>();
        WorkCompletion[] wcs = WorkCompletion.array(16);
        long deadline = System.nanoTime() + Opened.WAIT.toNanos();
        while (got.size() < n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("got " + got.size() + " of " + n + " completions: " + got);
            }
            int k = cq.poll(wcs);
            for (int i = 0; i < k; i++) {
                got.add(new WorkCompletion().copyFrom(wcs[i]));
            }
        }
        return got;
    }
}

package dev.tandem.failover;

import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The receiver checks every message before the application sees it (the header's session, the peer's
 * incarnation, the next message id): a message it had already delivered is dropped and counted and its
 * buffer goes back; a message that skips ids (messages were lost) ends the connection loudly.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReceiverCheckTest {
    private TwoNodes nodes;

    @AfterEach
    void close() {
        if (nodes != null) {
            nodes.close();
        }
    }

    /**
     * The sender posts its Sends again (as after a move whose MIGRATED said less than the receiver had): the
     * receiver delivered them already, so it drops each and counts it, and its buffer goes back; the
     * application sees every message once, in order, and later messages arrive as ever.
     */
    @Test
    void sendsPostedAgainAreDroppedAsDuplicatesAndLaterOnesArriveAsEver() throws Exception {
        duplicatesDropped(false, 4);
    }

    /**
     * As above over a shared receive queue: each duplicate took a buffer of the queue, which goes back to it.
     * 16 buffers, 6 delivered, 6 taken by duplicates: the next 10 messages need those 6 again.
     */
    @Test
    void aDuplicatesBufferGoesBackToTheSharedReceiveQueue() throws Exception {
        duplicatesDropped(true, 10);
    }

    private void duplicatesDropped(boolean shared, int later) throws Exception {
        try (Opened opened = new Opened(); java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
            // no proof and no reply: the Sends stay unproven, so the layer may post them again
            FailoverDevice a = opened.keep(FailoverDevice.open(FailoverConfig.of("a", List.of("iwarp://127.0.1.1", "iwarp://127.0.2.1"))
                    .withProofEvery(1000).withProofAfter(Duration.ofSeconds(10))));
            FailoverDevice b = opened.keep(FailoverDevice.open(FailoverConfig.of("b", List.of("iwarp://127.0.1.2", "iwarp://127.0.2.2"))));
            var pdA = opened.keep(a.allocateProtectionDomain());
            var pdB = opened.keep(b.allocateProtectionDomain());
            var mrA = opened.keep(pdA.registerMemory(arena.allocate(64 * 16, 64), dev.tandem.verbs.Access.LOCAL_WRITE));
            var memB = arena.allocate(64 * 16, 64);
            var mrB = opened.keep(pdB.registerMemory(memB, dev.tandem.verbs.Access.LOCAL_WRITE));
            var cqA = opened.keep(a.createCompletionQueue(64));
            var cqB = opened.keep(b.createCompletionQueue(64));
            var qa = (FailoverQueuePair) opened.keep(pdA.createQueuePair(dev.tandem.verbs.QueuePairConfig.of(cqA).withDepths(16, 4)));
            var srq = shared ? opened.keep(pdB.createSharedReceiveQueue(16, 1)) : null;
            var configB = dev.tandem.verbs.QueuePairConfig.of(cqB).withDepths(4, 16);
            var qb = (FailoverQueuePair) opened.keep(pdB.createQueuePair(shared ? configB.withSrq(srq) : configB));
            for (int i = 0; i < 16; i++) {
                var r = new dev.tandem.verbs.ReceiveRequest(i, new dev.tandem.verbs.Sge(mrB, 64L * i, 64));
                if (shared) {
                    srq.postReceive(r);
                } else {
                    qb.postReceive(r);
                }
            }
            Opened.connect(qa, b, "127.0.1.2", qb);
            for (int m = 0; m < 6; m++) {
                mrA.segment().set(java.lang.foreign.ValueLayout.JAVA_INT, 64L * m, m);
                qa.postSend(new dev.tandem.verbs.WorkRequest.Send(m, new dev.tandem.verbs.Sge(mrA, 64L * m, 64), dev.tandem.verbs.WrFlags.SIGNALED));
            }
            for (int m = 0; m < 6; m++) {
                WorkCompletion r = TwoNodes.awaitOne(cqB, "message " + m);
                assertThat(r.wrId()).isEqualTo(m);
                assertThat(memB.get(java.lang.foreign.ValueLayout.JAVA_INT, 64L * m)).isEqualTo(m);
            }
            qa.lock.lock();
            try {
                qa.sendLog.offWireAfter(qa.sendLog.released() - 1); // every unproven Send goes again
                qa.sending().postPending();
            } finally {
                qa.lock.unlock();
            }
            long deadline = System.nanoTime() + Opened.WAIT.toNanos();
            while (qb.receiving.duplicates() < 6) {
                assertThat(System.nanoTime()).as("%d duplicates dropped of 6 posted again", qb.receiving.duplicates()).isLessThan(deadline);
                assertThat(cqB.poll(WorkCompletion.array(1))).as("a duplicate reaches the application").isZero();
            }
            for (int m = 6; m < 6 + later; m++) {
                mrA.segment().set(java.lang.foreign.ValueLayout.JAVA_INT, 64L * m, m);
                qa.postSend(new dev.tandem.verbs.WorkRequest.Send(m, new dev.tandem.verbs.Sge(mrA, 64L * m, 64), dev.tandem.verbs.WrFlags.SIGNALED));
            }
            for (int m = 6; m < 6 + later; m++) {
                WorkCompletion r = TwoNodes.awaitOne(cqB, "message " + m);
                assertThat(r.status()).isEqualTo(CompletionStatus.SUCCESS);
                int got = memB.get(java.lang.foreign.ValueLayout.JAVA_INT, 64L * r.wrId());
                assertThat(got).as("message %d, in order after the duplicates", m).isEqualTo(m);
            }
            assertThat(qb.receiving.duplicates()).isEqualTo(6);
            assertThat(qb.state()).isEqualTo(QpState.RTS);
        }
    }

    /**
     * A message whose id skips the next one (messages between were lost: this never happens unless the layer
     * is wrong) ends the connection, with a failure and an error log entry that say so; it does not pass.
     */
    @Test
    void aMessageThatSkipsIdsEndsTheConnectionLoudly() throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED);
        FailoverQueuePair qb = nodes.sb.failover();
        nodes.stream(10, 10, () -> { });
        FailoverWatch wb = nodes.b.watch();
        ReceiveLog log = qb.receiving.log();
        int slot = log.inOrder().getFirst();
        int next = qb.receiving.received() + 1;
        // a message lands in the oldest posted buffer: its header says next + 3
        FailoverHeader.write(log.segment(), ReceiveLog.offset(slot), FailoverHeader.TYPE_SEND, 0, next + 3, 0, qb.session(),
                TwoNodes.SIZE, 0, qb.peer.incarnation());
        WorkCompletion wc = new WorkCompletion().set(log.wireId(slot), CompletionStatus.SUCCESS, CompletionOpcode.RECV,
                FailoverHeader.LENGTH + TwoNodes.SIZE, 0, 0, 0, 0);
        Receiving.Outcome[] outcome = new Receiving.Outcome[1];
        qb.receiveCq.locked(() -> outcome[0] = qb.receiving.success(wc, qb.receiveCq));
        assertThat(outcome[0]).isEqualTo(Receiving.Outcome.GAP);

        long deadline = System.nanoTime() + Opened.WAIT.toNanos();
        while (qb.state() != QpState.ERROR) {
            assertThat(System.nanoTime()).as("b's QP to end over the gap").isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(qb.failure()).hasValueSatisfying(f -> {
            assertThat(f.kind()).isEqualTo(QpFailure.Kind.LOCAL_ERROR);
            assertThat(f.detail()).contains("message " + (next + 3) + " arrived where message " + next + " was due");
        });
        WorkCompletion[] wcs = WorkCompletion.array(64);
        int n = nodes.sb.cq().poll(wcs);
        assertThat(List.of(wcs).subList(0, n)).as("no receive completes SUCCESS past the gap")
                .noneMatch(c -> c.status() == CompletionStatus.SUCCESS);
        assertThat(nodes.sb.qp().state()).isEqualTo(QpState.ERROR);
        assertThat(TwoNodes.events(wb)).as("the end is not a fail-over").noneMatch(e -> e instanceof FailoverEvent.Holding);
    }
}

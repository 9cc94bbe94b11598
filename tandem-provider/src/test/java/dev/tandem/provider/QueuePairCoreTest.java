package dev.tandem.provider;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.LocalProtectionException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueueFullException;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResourceInUseException;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A QP's transport-neutral half on a device with no wire: configuration checked against the adapter,
 * posts checked and queued, and a flush that completes everything in posting order.
 */
class QueuePairCoreTest {
    private static final DeviceAttributes ATTRIBUTES = new DeviceAttributes(4, 128, 4, 16, 16, 1 << 20, 64, 16, 16, 64, 4, 2, 2);

    @Test
    void theConfigurationIsCheckedAgainstTheAdapterAndTheQueuesCannotCloseUnderTheQp() {
        try (CoreOnlyDevice d = new CoreOnlyDevice("qpcore-a", ATTRIBUTES, LeakMode.STRICT, new ScriptedTransport())) {
            KitProtectionDomain pd = (KitProtectionDomain) d.allocateProtectionDomain();
            CompletionQueue cq = d.createCompletionQueue(16);
            assertThatThrownBy(() -> new QueuePairCore(pd, QueuePairConfig.of(cq).withDepths(129, 1), 1))
                    .isInstanceOf(InvalidArgumentException.class).hasMessage("queue depths 129/1 exceed the adapter's maximum of 128");
            assertThatThrownBy(() -> new QueuePairCore(pd, QueuePairConfig.of(cq).withMaxInline(65), 1))
                    .isInstanceOf(InvalidArgumentException.class).hasMessage("maxInlineData 65 exceeds the adapter's maximum of 64");
            QueuePairCore qp = new QueuePairCore(pd, QueuePairConfig.of(cq).withDepths(2, 2), 1);
            assertThatThrownBy(cq::close).isInstanceOf(ResourceInUseException.class)
                    .hasMessage("completion queue 1 of qpcore-a is the send or receive CQ of open queue pairs (2 uses);"
                            + " close those queue pairs before the CQ (it stays open)");
            qp.detachQueues();
            qp.detachQueues(); // once only
            cq.close();
            pd.close();
        }
    }

    @Test
    void theStateMovesOnlyAsTheVerbsAllowAndErrorIsEnteredOnce() {
        try (CoreOnlyDevice d = new CoreOnlyDevice("qpcore-c", ATTRIBUTES, LeakMode.STRICT, new ScriptedTransport())) {
            KitProtectionDomain pd = (KitProtectionDomain) d.allocateProtectionDomain();
            CompletionQueue cq = d.createCompletionQueue(16);
            QueuePairCore qp = new QueuePairCore(pd, QueuePairConfig.of(cq), 5);
            assertThat(qp.state()).isEqualTo(QpState.INIT);
            assertThatThrownBy(qp::checkSendState).isInstanceOf(InvalidStateException.class)
                    .hasMessageStartingWith("postSend on QP 5 in state INIT");
            assertThatThrownBy(() -> qp.checkModify(QpState.SQD)).isInstanceOf(InvalidStateException.class)
                    .hasMessageStartingWith("QP 5 cannot move from INIT to SQD; allowed from INIT: [");
            assertThat(qp.established()).as("INIT to RTS once connected").isTrue();
            qp.checkSendState();
            assertThat(qp.established()).as("connected twice").isFalse();
            assertThat(qp.enterError()).isEqualTo(QpState.RTS);
            assertThat(qp.enterError()).as("the second move finds ERROR: nothing more to flush").isEqualTo(QpState.ERROR);
            assertThat(qp.inError()).isTrue();
            qp.checkSendState(); // posts to a QP in ERROR complete flushed
            qp.detachQueues();
            cq.close();
            pd.close();
        }
    }

    @Test
    void postsAreCheckedQueuedAndFlushedInPostingOrder() {
        try (CoreOnlyDevice d = new CoreOnlyDevice("qpcore-b", ATTRIBUTES, LeakMode.STRICT, new ScriptedTransport());
             Arena arena = Arena.ofConfined()) {
            ProtectionDomain pd = d.allocateProtectionDomain();
            CompletionQueue cq = d.createCompletionQueue(16);
            MemoryRegion mr = pd.registerMemory(arena.allocate(64), Access.LOCAL_WRITE);
            QueuePairCore qp = new QueuePairCore((KitProtectionDomain) pd, QueuePairConfig.of(cq).withDepths(2, 2).withMaxInline(8), 3);

            WorkRequest.Send outside = new WorkRequest.Send(1, List.of(new Sge(mr, 60, 8)), WrFlags.SIGNALED);
            assertThatThrownBy(() -> qp.checkSend(outside, -1)).isInstanceOf(LocalProtectionException.class)
                    .hasMessageContaining("QP 3 Send wrId 1 SGE 0").hasMessageContaining("outside the region of 64 bytes");
            WorkRequest.Send tooBigInline = new WorkRequest.Send(2, List.of(new Sge(mr, 0, 9)), WrFlags.INLINE);
            assertThatThrownBy(() -> qp.checkSend(tooBigInline, -1)).isInstanceOf(InvalidArgumentException.class)
                    .hasMessageContaining("INLINE payload of 9 bytes exceeds maxInlineData 8");

            WorkRequest.Send first = new WorkRequest.Send(10, List.of(new Sge(mr, 0, 8)), WrFlags.SIGNALED);
            WorkRequest.Send second = new WorkRequest.Send(11, List.of(new Sge(mr, 8, 8)), 0);
            qp.checkSend(first, -1);
            assertThat(qp.enqueueSend(first)).isZero();
            assertThat(qp.enqueueSend(second)).isOne();
            assertThatThrownBy(() -> qp.enqueueSend(first)).isInstanceOf(QueueFullException.class).hasMessageContaining("send queue of QP 3 is full");
            assertThat(qp.enqueueReceive(new ReceiveRequest(20, List.of(Sge.of(mr))))).isOne();

            qp.flushSends(null, 0, qp::completeSend);
            assertThat(qp.flushReceives()).isTrue();
            WorkCompletion[] out = WorkCompletion.array(4);
            assertThat(cq.poll(out, 0, 4)).as("an unsignalled request completes too when it is flushed").isEqualTo(3);
            assertThat(List.of(out[0].wrId(), out[1].wrId(), out[2].wrId())).containsExactly(10L, 11L, 20L);
            assertThat(List.of(out[0].status(), out[1].status(), out[2].status())).containsOnly(CompletionStatus.WR_FLUSH_ERR);
            assertThat(out[2].opcode()).isEqualTo(CompletionOpcode.RECV);
            assertThat(qp.sendQueue().isEmpty()).as("polling released the flushed requests").isTrue();

            qp.detachQueues();
            mr.close();
            cq.close();
            pd.close();
        }
    }
}

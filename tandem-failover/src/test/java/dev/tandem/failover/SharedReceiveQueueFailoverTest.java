package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.LinkControl;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevices;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.SharedReceiveQueue;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shared receive queue's buffers are never posted on two adapters at once (two messages could land
 * in one buffer). Its receives leave an adapter that works only when no other connection receives
 * through it there; an adapter they left alive is made anew when its link comes back, so that fail,
 * heal and fail back works over an SRQ with nothing lost or twice.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SharedReceiveQueueFailoverTest {
    private static final int MESSAGES = 200;
    private static final int SIZE = 64;
    private final Opened opened = new Opened();
    private TwoNodes nodes;

    @AfterEach
    void close() {
        if (nodes != null) {
            nodes.close();
        }
        opened.close();
    }

    @Test
    void failHealAndFailBackOverAnSrqWhoseAdapterLostOnlyItsLink() throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED, true);
        FailoverSharedReceiveQueue srq = (FailoverSharedReceiveQueue) nodes.sb.srq();
        int first = srq.adapter();
        int other = 1 - first;
        LinkControl link = (LinkControl) nodes.b.adapters().get(first);
        nodes.stream(MESSAGES, MESSAGES / 2, link::linkDown);
        assertThat(srq.adapter()).as("the SRQ's receives moved off the dark link").isEqualTo(other);

        link.linkUp(); // the SRQ there still holds the receives posted before: it is made anew
        nodes.awaitAllPaths();
        nodes.stream(MESSAGES, MESSAGES / 2, () -> ((AdapterControl) nodes.b.adapters().get(other))
                .injectFatalError("test: the adapter the SRQ moved to"));
        assertThat(srq.adapter()).as("the SRQ's receives are back on the adapter whose link came back").isEqualTo(first);
    }

    @Test
    void aConnectionWhosePathBreaksKeepsItsReceivesOnTheQueuesAdapterOverACrossPathAndTheOtherIsUntouched() throws Exception {
        FailoverDevice a = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.1+127.0.2.1?node=a"));
        FailoverDevice b = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.2+127.0.2.2?node=b"));
        Arena arena = opened.keep(Arena.ofShared());
        ProtectionDomain pdA = opened.keep(a.allocateProtectionDomain());
        ProtectionDomain pdB = opened.keep(b.allocateProtectionDomain());
        MemorySegment memA = arena.allocate(SIZE * 64L, 64);
        MemorySegment memB = arena.allocate(SIZE * 64L, 64);
        MemoryRegion mrA = opened.keep(pdA.registerMemory(memA, Access.LOCAL_WRITE));
        MemoryRegion mrB = opened.keep(pdB.registerMemory(memB, Access.LOCAL_WRITE));
        SharedReceiveQueue srq = opened.keep(pdB.createSharedReceiveQueue(32, 1));
        CompletionQueue cqA1 = opened.keep(a.createCompletionQueue(64));
        CompletionQueue cqA2 = opened.keep(a.createCompletionQueue(64));
        CompletionQueue cqB1 = opened.keep(b.createCompletionQueue(64));
        CompletionQueue cqB2 = opened.keep(b.createCompletionQueue(64));
        FailoverQueuePair qa1 = (FailoverQueuePair) opened.keep(pdA.createQueuePair(QueuePairConfig.of(cqA1).withDepths(16, 4)));
        FailoverQueuePair qa2 = (FailoverQueuePair) opened.keep(pdA.createQueuePair(QueuePairConfig.of(cqA2).withDepths(16, 4)));
        FailoverQueuePair qb1 = (FailoverQueuePair) opened.keep(pdB.createQueuePair(QueuePairConfig.of(cqB1).withDepths(4, 4).withSrq(srq)));
        FailoverQueuePair qb2 = (FailoverQueuePair) opened.keep(pdB.createQueuePair(QueuePairConfig.of(cqB2).withDepths(4, 4).withSrq(srq)));
        for (int i = 0; i < 32; i++) {
            srq.postReceive(new ReceiveRequest(i, new Sge(mrB, (long) i * SIZE, SIZE)));
        }
        Opened.connect(qa1, b, "127.0.1.2", qb1);
        Opened.connect(qa2, b, "127.0.1.2", qb2);
        int shared = ((FailoverSharedReceiveQueue) srq).adapter();
        assertThat(qb1.receivePathAdapter()).isEqualTo(shared);
        assertThat(qb2.receivePathAdapter()).isEqualTo(shared);
        Path broken = qb1.paths.receivePath();
        Path other = qb2.paths.receivePath();

        // one connection's path breaks (its own transport, not the adapter): it moves to its cross path to the same adapter
        qa1.moves().failover(qa1.paths.sendPath(), null, "test: this connection's path broke");
        long deadline = System.nanoTime() + Opened.WAIT.toNanos();
        while (qb1.paths.receive == broken.id || qa1.migrating() || qb1.migrating()) {
            assertThat(System.nanoTime()).as("b's first connection to receive over another path").isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(qb1.receivePathAdapter()).as("its receives stayed on the queue's adapter").isEqualTo(shared);
        assertThat(((FailoverSharedReceiveQueue) srq).adapter()).as("the SRQ's receives stayed").isEqualTo(shared);
        assertThat(qb2.paths.receive).as("the other connection kept its path").isEqualTo(other.id);
        assertThat(other.up).isTrue();

        // both connections go on through the SRQ, each message once, with its bytes
        WorkCompletion[] wcs = WorkCompletion.array(8);
        for (int m = 0; m < 40; m++) {
            FailoverQueuePair sender = m % 2 == 0 ? qa1 : qa2;
            CompletionQueue senderCq = m % 2 == 0 ? cqA1 : cqA2;
            CompletionQueue receiverCq = m % 2 == 0 ? cqB1 : cqB2;
            memA.set(ValueLayout.JAVA_INT, 0, 1000 + m);
            sender.postSend(new WorkRequest.Send(m, new Sge(mrA, 0, SIZE), WrFlags.SIGNALED));
            WorkCompletion r = awaitOne(receiverCq, wcs, "message " + m);
            assertThat(r.status()).as("%s", r).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(r.opcode()).isEqualTo(CompletionOpcode.RECV);
            int slot = (int) r.wrId();
            assertThat(memB.get(ValueLayout.JAVA_INT, (long) slot * SIZE)).as("message %d's bytes", m).isEqualTo(1000 + m);
            srq.postReceive(new ReceiveRequest(slot, new Sge(mrB, (long) slot * SIZE, SIZE)));
            assertThat(awaitOne(senderCq, wcs, "the Send's completion").status()).isEqualTo(CompletionStatus.SUCCESS);
        }
        assertThat(qb1.state()).isEqualTo(QpState.RTS);
        assertThat(qb2.state()).isEqualTo(QpState.RTS);
        assertThat(cqB1.poll(wcs)).as("nothing arrived twice").isZero();
        assertThat(cqB2.poll(wcs)).as("nothing arrived twice").isZero();
    }

    private static WorkCompletion awaitOne(CompletionQueue cq, WorkCompletion[] wcs, String what) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (cq.poll(wcs, 0, 1) == 0) {
            assertThat(System.nanoTime()).as("waiting for %s", what).isLessThan(deadline);
            Thread.onSpinWait();
        }
        return wcs[0];
    }
}

package dev.tandem.verbs.conformance;

import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueueFullException;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.ResourceInUseException;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.SharedReceiveQueue;
import dev.tandem.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.tandem.verbs.CompletionOpcode.SEND;
import static dev.tandem.verbs.CompletionStatus.SUCCESS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Shared receive queues: several QPs receiving from one queue, its limit event, and its misuse. */
public abstract class SharedReceiveQueueConformance extends ConformanceBase {
    private static final int BUFFER = 256;

    /** The passive side's PD, CQ, region and SRQ, shared by every passive QP of a test. */
    private record Shared(ProtectionDomain pd, CompletionQueue cq, MemoryRegion region, SharedReceiveQueue srq) {
        EndpointSpec spec() {
            return EndpointSpec.defaults().withPd(pd).withCq(cq).withQp(c -> c.withSrq(srq));
        }
    }

    private Shared shared(int maxWr) {
        ProtectionDomain pd = closeAtEnd(adapter(1).allocateProtectionDomain());
        CompletionQueue cq = closeAtEnd(adapter(1).createCompletionQueue(256));
        MemoryRegion region = register(pd, 64 * 1024, EndpointSpec.FULL_ACCESS);
        SharedReceiveQueue srq = closeAtEnd(pd.createSharedReceiveQueue(maxWr, 2));
        assertSame(pd, srq.pd());
        assertTrue(srq.maxWr() >= maxWr, "SRQ maxWr " + srq.maxWr() + " is at least the " + maxWr + " asked for");
        assertTrue(srq.maxSge() >= 2, "SRQ maxSge " + srq.maxSge() + " is at least the 2 asked for");
        return new Shared(pd, cq, region, srq);
    }

    /** Posts buffer {@code i} (wrId 100 + i, at offset i * BUFFER) to the SRQ. */
    private static void postShared(Shared s, int i) {
        s.srq.postReceive(new ReceiveRequest(100 + i, sge(s.region, (long) i * BUFFER, BUFFER)));
    }

    private void sendFrom(Endpoint active, long wrId, int length, int seed) {
        Bytes.fill(active.mem(), 0, length, seed);
        postSend(active, wrId, 0, length, SIGNALED);
        assertCompletion(awaitCompletion(active.cq, "Send " + wrId), wrId, SUCCESS, SEND, "Send " + wrId);
    }

    @Test
    void twoQpsReceiveFromOneSharedQueue() {
        Shared s = shared(16);
        ConnectedPair a = connect(endpoint(0), endpoint(1, s.spec()));
        ConnectedPair b = connect(endpoint(0), endpoint(1, s.spec()));
        for (int i = 0; i < 4; i++) {
            postShared(s, i);
        }
        assertEquals(4, s.srq.posted(), "buffers posted to the SRQ");
        sendFrom(a.active(), 1, 100, 61);
        sendFrom(b.active(), 2, 200, 62);
        List<WorkCompletion> got = awaitCompletions(s.cq, 2, "a receive for each QP from the shared queue");
        Map<Integer, WorkCompletion> byQp = new HashMap<>();
        for (WorkCompletion wc : got) {
            assertEquals(SUCCESS, wc.status(), wc.toString());
            byQp.put(wc.qpNumber(), wc);
        }
        WorkCompletion fromA = byQp.get(a.passive().qp.qpNumber());
        WorkCompletion fromB = byQp.get(b.passive().qp.qpNumber());
        assertTrue(fromA != null && fromB != null, "each receive names the QP it arrived on: " + got);
        assertEquals(100, fromA.byteLength(), fromA.toString());
        assertEquals(200, fromB.byteLength(), fromB.toString());
        assertTrue(fromA.wrId() >= 100 && fromA.wrId() < 104 && fromB.wrId() >= 100 && fromB.wrId() < 104 && fromA.wrId() != fromB.wrId(),
                "two distinct SRQ buffers were used: " + got);
        Bytes.assertPattern(s.region.segment(), (fromA.wrId() - 100) * BUFFER, 100, 61, "A's message in the buffer its completion names");
        Bytes.assertPattern(s.region.segment(), (fromB.wrId() - 100) * BUFFER, 200, 62, "B's message in the buffer its completion names");
        assertEquals(2, s.srq.posted(), "buffers left in the SRQ");
    }

    @Test
    void theArmedLimitFiresOnceWhenPostedBuffersDropBelowIt() {
        Shared s = shared(16);
        ConnectedPair pair = connect(endpoint(0), endpoint(1, s.spec()));
        for (int i = 0; i < 4; i++) {
            postShared(s, i);
        }
        s.srq.armLimit(3);
        sendFrom(pair.active(), 1, 10, 1);
        awaitCompletion(s.cq, "the first receive");
        assertEquals(3, s.srq.posted());
        assertNoAsyncEvent(pair.passive().device, AsyncEventType.SRQ_LIMIT_REACHED, s.srq, "3 posted is not below the limit 3");
        sendFrom(pair.active(), 2, 10, 2);
        awaitCompletion(s.cq, "the second receive");
        assertEquals(2, s.srq.posted());
        AsyncEvent e = awaitAsyncEvent(pair.passive().device, AsyncEventType.SRQ_LIMIT_REACHED, s.srq);
        assertSame(s.srq, e.resource(), "SRQ_LIMIT_REACHED names the SRQ");
        sendFrom(pair.active(), 3, 10, 3);
        awaitCompletion(s.cq, "the third receive");
        assertNoAsyncEvent(pair.passive().device, AsyncEventType.SRQ_LIMIT_REACHED, s.srq, "the limit is one-shot");
    }

    @Test
    void aFailedQpLeavesTheSharedBuffersToTheOthersAndReportsLastWqeReached() {
        Shared s = shared(16);
        ConnectedPair a = connect(endpoint(0), endpoint(1, s.spec()));
        ConnectedPair b = connect(endpoint(0), endpoint(1, s.spec()));
        for (int i = 0; i < 3; i++) {
            postShared(s, i);
        }
        a.passive().qp.modify(QpState.ERROR);
        awaitAsyncEvent(a.passive().device, AsyncEventType.LAST_WQE_REACHED, a.passive().qp);
        assertEquals(3, s.srq.posted(), "a QP's move to ERROR does not flush the shared buffers");
        sendFrom(b.active(), 5, 50, 9);
        WorkCompletion wc = awaitCompletion(s.cq, "a receive on the surviving QP");
        assertEquals(SUCCESS, wc.status(), "the first completion on the shared CQ is the surviving QP's receive: " + wc);
        assertEquals(b.passive().qp.qpNumber(), wc.qpNumber(), wc.toString());
        Bytes.assertPattern(s.region.segment(), (wc.wrId() - 100) * BUFFER, 50, 9, "the surviving QP's message");
    }

    @Test
    void postReceiveOnAQpWithASharedQueueIsRefused() {
        Shared s = shared(4);
        Endpoint e = endpoint(1, s.spec());
        InvalidStateException x = assertThrows(InvalidStateException.class, () -> postReceive(e, 1, 0, 64),
                "postReceive on a QP that takes its receives from an SRQ");
        assertTrue(x.getMessage().contains("SRQ") || x.getMessage().toLowerCase().contains("shared receive"),
                "message names the SRQ: " + x.getMessage());
    }

    @Test
    void aFullSharedQueueRefusesMoreBuffers() {
        Shared s = shared(4);
        int max = s.srq.maxWr();
        for (int i = 0; i < max; i++) {
            s.srq.postReceive(new ReceiveRequest(i, sge(s.region, 0, 64)));
        }
        QueueFullException x = assertThrows(QueueFullException.class, () -> s.srq.postReceive(new ReceiveRequest(-1, sge(s.region, 0, 64))));
        assertTrue(x.getMessage().contains(String.valueOf(max)), "message names the depth " + max + ": " + x.getMessage());
        assertEquals(max, s.srq.posted());
    }

    @Test
    void tooManyEntriesForTheSharedQueueIsInvalidArgument() {
        Shared s = shared(4);
        int n = s.srq.maxSge() + 1;
        List<Sge> sgl = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            sgl.add(sge(s.region, i * 64L, 64));
        }
        InvalidArgumentException x = assertThrows(InvalidArgumentException.class, () -> s.srq.postReceive(new ReceiveRequest(1, sgl)));
        assertTrue(x.getMessage().contains(String.valueOf(n)), "message names the " + n + " entries: " + x.getMessage());
        assertEquals(0, s.srq.posted());
    }

    @Test
    void anSrqOfAnotherProtectionDomainIsInvalidArgument() {
        Shared s = shared(4);
        ProtectionDomain other = closeAtEnd(adapter(1).allocateProtectionDomain());
        QueuePairConfig config = QueuePairConfig.of(s.cq).withSrq(s.srq);
        assertThrows(InvalidArgumentException.class, () -> other.createQueuePair(config),
                "a QP whose SRQ belongs to another protection domain");
    }

    @Test
    void closingAnSrqThatAQpStillUsesIsRefusedAndTheSrqKeepsWorking() {
        Shared s = shared(4);
        ConnectedPair pair = connect(endpoint(0), endpoint(1, s.spec()));
        ResourceInUseException x = assertThrows(ResourceInUseException.class, s.srq::close, "closing the SRQ of a connected QP");
        assertTrue(x.getMessage().contains("queue pair"), "the refusal says what still uses the SRQ: " + x.getMessage());
        postShared(s, 0);
        sendFrom(pair.active(), 1, 64, 5);
        WorkCompletion wc = awaitCompletion(s.cq, "a receive from the SRQ whose close was refused");
        assertReceived(wc, 100, 64, pair.passive().qp, "receive from the SRQ");
        pair.passive().qp.close();
        s.srq.close();
        assertThrows(ResourceClosedException.class, () -> postShared(s, 1), "posting to the SRQ once it is closed");
    }
}

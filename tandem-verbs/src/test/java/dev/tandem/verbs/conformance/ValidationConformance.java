package dev.tandem.verbs.conformance;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
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
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.SharedReceiveQueue;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.tandem.verbs.CompletionOpcode.SEND;
import static dev.tandem.verbs.CompletionStatus.SUCCESS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every entry point checks its arguments and the object's state and throws the specific
 * exception, with a message that names the bad value; a refused call has no effect.
 */
public abstract class ValidationConformance extends ConformanceBase {

    private static <T extends Throwable> T assertThrowsNaming(Class<T> type, Executable call, String what, String... mustName) {
        T x = assertThrows(type, call, what);
        String m = x.getMessage();
        assertTrue(m != null && !m.isBlank(), what + ": " + type.getSimpleName() + " without a message");
        for (String s : mustName) {
            assertTrue(m.contains(s), what + ": the message should name " + s + ": " + m);
        }
        return x;
    }

    /**
     * An attribute is a limit the adapter enforces: Integer.MAX_VALUE would claim what no adapter
     * can hold (and would leave its one-past-the-limit check nothing to try), so it fails the suite
     * instead of skipping the check.
     */
    private static void assertFiniteLimit(String attribute, int value) {
        assertTrue(value > 0 && value < Integer.MAX_VALUE, attribute + " must be a real, enforced limit, not " + value);
    }

    private static List<Sge> entries(MemoryRegion r, int n) {
        List<Sge> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(sge(r, i * 64L, 64));
        }
        return l;
    }

    /** One Send from the active to the passive side: proves a refused call left the QP working. */
    private void stillWorks(ConnectedPair pair, long wrId) {
        assertEquals(QpState.RTS, pair.active().qp.state(), "a refused post leaves the QP in RTS");
        postReceive(pair.passive(), wrId, 0, 64);
        postSend(pair.active(), wrId, 0, 64, SIGNALED);
        assertCompletion(awaitCompletion(pair.active().cq, "a Send after the refused call"), wrId, SUCCESS, SEND, "Send after a refused call");
        assertReceived(awaitCompletion(pair.passive().cq, "the receive after the refused call"), wrId, 64, pair.passive().qp, "receive");
    }

    // ---------------------------------------------------------------- state

    @Test
    void postingSendsInInitIsInvalidState() {
        Endpoint e = endpoint(0);
        assertThrowsNaming(InvalidStateException.class, () -> postSend(e, 1, 0, 64, SIGNALED), "Send in INIT", "INIT");
        assertThrowsNaming(InvalidStateException.class, () -> postWrite(e, 2, 0, 64, 0, 0x100, SIGNALED), "Write in INIT", "INIT");
        assertEquals(QpState.INIT, e.qp.state());
        assertEquals(0, e.cq.poll(WorkCompletion.array(4)), "a refused post makes no completion");
    }

    @Test
    void postingReceivesInResetIsInvalidState() {
        Endpoint e = endpoint(0);
        e.qp.modify(QpState.RESET);
        assertThrowsNaming(InvalidStateException.class, () -> postReceive(e, 1, 0, 64), "receive in RESET", "RESET");
    }

    // ---------------------------------------------------------------- scatter/gather entries

    @Test
    void aSendEntryOutsideItsRegionIsLocalProtection() {
        ConnectedPair pair = connectedPair();
        long offset = pair.active().region.length() - 100;
        assertThrowsNaming(LocalProtectionException.class, () -> postSend(pair.active(), 1, offset, 200, SIGNALED),
                "Send entry straddling the region's end", String.valueOf(offset));
        assertThrowsNaming(LocalProtectionException.class,
                () -> postWrite(pair.active(), 2, offset, 200, 0, pair.active().peerRkey(), SIGNALED),
                "Write entry straddling the region's end", String.valueOf(offset));
        stillWorks(pair, 3);
    }

    @Test
    void aReceiveEntryOutsideItsRegionIsLocalProtection() {
        Endpoint e = endpoint(1);
        long offset = e.region.length() - 100;
        assertThrowsNaming(LocalProtectionException.class, () -> postReceive(e, 1, offset, 200),
                "receive entry straddling the region's end", String.valueOf(offset));
        e.qp.modify(QpState.ERROR);
        assertNoCompletion(e.cq, "a refused receive was never posted, so nothing is flushed");
    }

    @Test
    void anEntryInARegionOfAnotherProtectionDomainIsLocalProtection() {
        ConnectedPair pair = connectedPair();
        MemoryRegion foreign = register(closeAtEnd(pair.active().device.allocateProtectionDomain()), 4096, EndpointSpec.FULL_ACCESS);
        assertThrowsNaming(LocalProtectionException.class,
                () -> pair.active().qp.postSend(new WorkRequest.Send(1, sge(foreign, 0, 64), SIGNALED)), "Send from another PD's region");
        assertThrowsNaming(LocalProtectionException.class,
                () -> pair.active().qp.postReceive(new ReceiveRequest(2, sge(foreign, 0, 64))), "receive into another PD's region");
        MemoryRegion otherAdapter = register(pair.passive().pd, 4096, EndpointSpec.FULL_ACCESS);
        assertThrowsNaming(LocalProtectionException.class,
                () -> pair.active().qp.postSend(new WorkRequest.Send(3, sge(otherAdapter, 0, 64), SIGNALED)),
                "Send from a region of another adapter");
        stillWorks(pair, 4);
    }

    @Test
    void receivingOrReadingIntoARegionWithoutLocalWriteIsLocalProtection() {
        ConnectedPair pair = connectedPair();
        MemoryRegion readOnly = register(pair.active().pd, 4096, Access.REMOTE_READ);
        assertThrowsNaming(LocalProtectionException.class,
                () -> pair.active().qp.postReceive(new ReceiveRequest(1, sge(readOnly, 0, 64))), "receive into a region without LOCAL_WRITE",
                "LOCAL_WRITE");
        assertThrowsNaming(LocalProtectionException.class,
                () -> pair.active().qp.postSend(new WorkRequest.RdmaRead(2, sge(readOnly, 0, 64), 0, pair.active().peerRkey(), SIGNALED)),
                "RDMA Read into a region without LOCAL_WRITE", "WRITE");
        stillWorks(pair, 3);
    }

    @Test
    void moreEntriesThanConfiguredIsInvalidArgument() {
        ConnectedPair pair = connectedPair(EndpointSpec.defaults().withQp(c -> c.withSge(2, 2)),
                EndpointSpec.defaults().withQp(c -> c.withSge(2, 2)));
        List<Sge> five = entries(pair.active().region, 5);
        assertThrowsNaming(InvalidArgumentException.class, () -> pair.active().qp.postSend(new WorkRequest.Send(1, five, SIGNALED)),
                "Send with 5 entries on a QP of maxSendSge 2", "5");
        assertThrowsNaming(InvalidArgumentException.class,
                () -> pair.active().qp.postSend(new WorkRequest.RdmaWrite(2, five, 0, pair.active().peerRkey(), SIGNALED)),
                "Write with 5 entries on a QP of maxSendSge 2", "5");
        assertThrowsNaming(InvalidArgumentException.class,
                () -> pair.passive().qp.postReceive(new ReceiveRequest(3, entries(pair.passive().region, 5))),
                "receive with 5 entries on a QP of maxReceiveSge 2", "5");
        stillWorks(pair, 4);
    }

    // ---------------------------------------------------------------- queues

    @Test
    void aFullSendQueueIsQueueFull() {
        ConnectedPair pair = connectedPair(EndpointSpec.defaults().withQp(c -> c.withDepths(4, 16)), EndpointSpec.defaults());
        for (int i = 0; i < 8; i++) {
            postReceive(pair.passive(), 100 + i, i * 64L, 64);
        }
        for (int i = 0; i < 4; i++) {
            postSend(pair.active(), i, 0, 64, SIGNALED);
        }
        // Until their completions are polled, the four requests hold the four slots (verbs standard).
        assertThrowsNaming(QueueFullException.class, () -> postSend(pair.active(), 4, 0, 64, SIGNALED),
                "a fifth request on a send queue of depth 4 whose completions were not polled", "4");
        assertCompletion(awaitCompletion(pair.active().cq, "the first Send"), 0, SUCCESS, SEND, "first Send");
        postSend(pair.active(), 5, 0, 64, SIGNALED); // polling one completion frees one slot
        List<WorkCompletion> rest = awaitCompletions(pair.active().cq, 4, "the other Sends");
        assertEquals(List.of(1L, 2L, 3L, 5L), rest.stream().map(WorkCompletion::wrId).toList(),
                "the refused request was never posted");
    }

    @Test
    void aFullReceiveQueueIsQueueFull() {
        Endpoint e = endpoint(1, EndpointSpec.defaults().withQp(c -> c.withDepths(16, 4)));
        for (int i = 0; i < 4; i++) {
            postReceive(e, i, i * 64L, 64);
        }
        assertThrowsNaming(QueueFullException.class, () -> postReceive(e, 4, 0, 64), "a fifth receive on a receive queue of depth 4", "4");
        e.qp.modify(QpState.ERROR);
        List<WorkCompletion> flushed = awaitCompletions(e.cq, 4, "the four posted receives, flushed");
        assertEquals(List.of(0L, 1L, 2L, 3L), flushed.stream().map(WorkCompletion::wrId).toList(),
                "the refused receive was never posted");
        assertNoCompletion(e.cq, "the refused fifth receive was never posted");
    }

    // ---------------------------------------------------------------- request contents

    @Test
    void inlineDataOverTheLimitIsInvalidArgument() {
        ConnectedPair pair = connectedPair(EndpointSpec.defaults().withQp(c -> c.withMaxInline(32)), EndpointSpec.defaults());
        assertThrowsNaming(InvalidArgumentException.class, () -> postSend(pair.active(), 1, 0, 33, SIGNALED | WrFlags.INLINE),
                "33 bytes inline on a QP of maxInlineData 32", "33");
        stillWorks(pair, 2);
    }

    @Test
    void unknownRequestFlagsAreInvalidArgument() {
        ConnectedPair pair = connectedPair();
        InvalidArgumentException x = assertThrows(InvalidArgumentException.class, () -> postSend(pair.active(), 1, 0, 64, 1 << 10),
                "Send with an unknown flag bit 0x400");
        assertTrue(x.getMessage().contains("400") || x.getMessage().contains("1024"), "message names the flag 0x400: " + x.getMessage());
        stillWorks(pair, 2);
    }

    @Test
    void aSendLargerThanTheMaximumMessageSizeIsInvalidArgument() {
        DeviceAttributes attrs = adapter(0).attributes();
        long tooLong = attrs.maxMessageSize() + 1;
        int k = Math.min(attrs.maxSge(), 16);
        long perEntry = (tooLong + k - 1) / k;
        assumeTrue(perEntry <= Integer.MAX_VALUE && perEntry <= (1L << 30),
                "maxMessageSize " + attrs.maxMessageSize() + " cannot be exceeded with " + k + " entries of at most 1 GiB");
        ConnectedPair pair = connectedPair(EndpointSpec.defaults().withQp(c -> c.withSge(k, 4)), EndpointSpec.defaults());
        MemoryRegion big = closeAtEnd(pair.active().pd.registerMemory(mapSparse(perEntry), Access.LOCAL_WRITE));
        List<Sge> sgl = new ArrayList<>();
        long left = tooLong;
        while (left > 0) {
            int n = (int) Math.min(left, perEntry);
            sgl.add(sge(big, 0, n));
            left -= n;
        }
        InvalidArgumentException x = assertThrows(InvalidArgumentException.class,
                () -> pair.active().qp.postSend(new WorkRequest.Send(1, sgl, SIGNALED)), "a Send of maxMessageSize + 1 bytes");
        assertTrue(x.getMessage().contains(String.valueOf(tooLong)) || x.getMessage().contains(String.valueOf(attrs.maxMessageSize())),
                "message names the size " + tooLong + " or the limit: " + x.getMessage());
        stillWorks(pair, 2);
    }

    // ---------------------------------------------------------------- creating resources

    @Test
    void registeringBadRightsIsInvalidArgument() {
        ProtectionDomain pd = closeAtEnd(adapter(0).allocateProtectionDomain());
        assertThrowsNaming(InvalidArgumentException.class, () -> pd.registerMemory(allocate(64), Access.REMOTE_WRITE),
                "REMOTE_WRITE without LOCAL_WRITE", "REMOTE_WRITE");
        assertThrowsNaming(InvalidArgumentException.class, () -> pd.registerMemory(allocate(64), Access.REMOTE_ATOMIC),
                "REMOTE_ATOMIC without LOCAL_WRITE", "REMOTE_ATOMIC");
        assertThrowsNaming(InvalidArgumentException.class, () -> pd.registerMemory(allocate(64), Access.LOCAL_WRITE | (1 << 7)),
                "an unknown access bit", "0x80");
        MemoryRegion r = closeAtEnd(pd.registerMemory(allocate(64), Access.LOCAL_WRITE));
        assertThrowsNaming(InvalidArgumentException.class, () -> r.reregister(Access.REMOTE_WRITE), "reregister with REMOTE_WRITE only",
                "REMOTE_WRITE");
        assertEquals(Access.LOCAL_WRITE, r.access(), "a refused reregister leaves the rights alone");
    }

    @Test
    void completionQueueDepthOutOfRangeIsInvalidArgument() {
        int max = adapter(0).attributes().maxCqDepth();
        assertThrows(InvalidArgumentException.class, () -> adapter(0).createCompletionQueue(0), "CQ depth 0");
        assertThrowsNaming(InvalidArgumentException.class, () -> adapter(0).createCompletionQueue(-3), "CQ depth -3", "-3");
        assertFiniteLimit("maxCqDepth", max);
        assertThrowsNaming(InvalidArgumentException.class, () -> adapter(0).createCompletionQueue(max + 1),
                "CQ depth above maxCqDepth", String.valueOf(max + 1));
    }

    @Test
    void queuePairLimitsAboveTheAdaptersAreInvalidArgument() {
        DeviceAttributes a = adapter(0).attributes();
        ProtectionDomain pd = closeAtEnd(adapter(0).allocateProtectionDomain());
        CompletionQueue cq = closeAtEnd(adapter(0).createCompletionQueue(64));
        QueuePairConfig base = QueuePairConfig.of(cq);
        assertFiniteLimit("maxQueuePairDepth", a.maxQueuePairDepth());
        int d = a.maxQueuePairDepth() + 1;
        assertThrowsNaming(InvalidArgumentException.class, () -> pd.createQueuePair(base.withDepths(d, 4)), "send depth " + d, String.valueOf(d));
        assertThrowsNaming(InvalidArgumentException.class, () -> pd.createQueuePair(base.withDepths(4, d)), "receive depth " + d, String.valueOf(d));
        assertFiniteLimit("maxSge", a.maxSge());
        int s = a.maxSge() + 1;
        assertThrowsNaming(InvalidArgumentException.class, () -> pd.createQueuePair(base.withSge(s, 1)), "maxSendSge " + s, String.valueOf(s));
        assertThrowsNaming(InvalidArgumentException.class, () -> pd.createQueuePair(base.withSge(1, s)), "maxReceiveSge " + s, String.valueOf(s));
        assertFiniteLimit("maxInlineData", a.maxInlineData());
        int i = a.maxInlineData() + 1;
        assertThrowsNaming(InvalidArgumentException.class, () -> pd.createQueuePair(base.withMaxInline(i)), "maxInlineData " + i, String.valueOf(i));
        assertFiniteLimit("maxIrd", a.maxIrd());
        assertFiniteLimit("maxOrd", a.maxOrd());
        int ird = a.maxIrd() + 1;
        int ord = a.maxOrd() + 1;
        assertThrowsNaming(InvalidArgumentException.class, () -> pd.createQueuePair(base.withReadDepths(ird, 1)), "ird " + ird, String.valueOf(ird));
        assertThrowsNaming(InvalidArgumentException.class, () -> pd.createQueuePair(base.withReadDepths(1, ord)), "ord " + ord, String.valueOf(ord));
    }

    @Test
    void aQueuePairWithACompletionQueueOfAnotherAdapterIsInvalidArgument() {
        ProtectionDomain pd = closeAtEnd(adapter(0).allocateProtectionDomain());
        CompletionQueue foreign = closeAtEnd(adapter(1).createCompletionQueue(64));
        assertThrows(InvalidArgumentException.class, () -> pd.createQueuePair(QueuePairConfig.of(foreign)), "a QP on adapter 0 with adapter 1's CQ");
    }

    // ---------------------------------------------------------------- closed resources

    @Test
    void aClosedQueuePairIsResourceClosed() {
        Endpoint e = endpoint(0);
        e.qp.close();
        assertThrows(ResourceClosedException.class, () -> postReceive(e, 1, 0, 64), "postReceive on a closed QP");
        assertThrows(ResourceClosedException.class, () -> postSend(e, 2, 0, 64, SIGNALED), "postSend on a closed QP");
        assertThrows(ResourceClosedException.class, () -> e.qp.modify(QpState.ERROR), "modify on a closed QP");
        assertThrows(ResourceClosedException.class, () -> e.qp.connect(listener().localAddress(), new byte[0], bound()), "connect on a closed QP");
        e.qp.close(); // closing twice is harmless
    }

    @Test
    void aClosedCompletionQueueIsResourceClosed() {
        CompletionQueue cq = closeAtEnd(adapter(0).createCompletionQueue(8));
        cq.close();
        WorkCompletion[] out = WorkCompletion.array(1);
        assertThrows(ResourceClosedException.class, () -> cq.poll(out), "poll on a closed CQ");
        assertThrows(ResourceClosedException.class, () -> cq.await(out, Duration.ofMillis(10)), "await on a closed CQ");
        assertThrows(ResourceClosedException.class, () -> cq.awaitEvent(false, Duration.ofMillis(10)), "awaitEvent on a closed CQ");
        ProtectionDomain pd = closeAtEnd(adapter(0).allocateProtectionDomain());
        assertThrows(ResourceClosedException.class, () -> pd.createQueuePair(QueuePairConfig.of(cq)), "a QP on a closed CQ");
    }

    @Test
    void aClosedProtectionDomainIsResourceClosed() {
        ProtectionDomain pd = closeAtEnd(adapter(0).allocateProtectionDomain());
        CompletionQueue cq = closeAtEnd(adapter(0).createCompletionQueue(8));
        pd.close();
        assertThrows(ResourceClosedException.class, () -> pd.registerMemory(allocate(64), Access.LOCAL_WRITE), "registerMemory in a closed PD");
        assertThrows(ResourceClosedException.class, () -> pd.createQueuePair(QueuePairConfig.of(cq)), "createQueuePair in a closed PD");
        assertThrows(ResourceClosedException.class, pd::allocateMemoryWindow, "allocateMemoryWindow in a closed PD");
        assertThrows(ResourceClosedException.class, () -> pd.createSharedReceiveQueue(4, 1), "createSharedReceiveQueue in a closed PD");
    }

    @Test
    void aClosedRegionIsResourceClosedAndItsKeyNoLongerValid() {
        Endpoint e = endpoint(0);
        MemoryRegion r = register(e.pd, 4096, EndpointSpec.FULL_ACCESS);
        int lkey = r.lkey();
        r.close();
        assertFalse(r.isValid());
        assertThrows(ResourceClosedException.class, () -> r.reregister(Access.LOCAL_WRITE), "reregister of a closed region");
        // An entry naming a deregistered region carries an invalid lkey: a local protection error in the verbs.
        assertThrowsNaming(LocalProtectionException.class, () -> e.qp.postReceive(new ReceiveRequest(1, sge(r, 0, 64))),
                "a receive into a closed region", Integer.toHexString(lkey));
        r.close(); // closing twice is harmless
    }

    @Test
    void aClosedSharedReceiveQueueIsResourceClosed() {
        ProtectionDomain pd = closeAtEnd(adapter(0).allocateProtectionDomain());
        MemoryRegion r = register(pd, 4096, EndpointSpec.FULL_ACCESS);
        SharedReceiveQueue srq = closeAtEnd(pd.createSharedReceiveQueue(4, 1));
        srq.close();
        assertThrows(ResourceClosedException.class, () -> srq.postReceive(new ReceiveRequest(1, sge(r, 0, 64))), "postReceive on a closed SRQ");
    }

    // ---------------------------------------------------------------- flags per opcode and inline payloads

    @Test
    void anInlineReadIsInvalidArgumentAndLeavesTheSendQueueIntact() {
        ConnectedPair pair = connectedPair(EndpointSpec.defaults().withQp(c -> c.withDepths(4, 16).withMaxInline(64)), EndpointSpec.defaults());
        for (int i = 0; i < 3; i++) {
            postReceive(pair.passive(), 100 + i, i * 64L, 64);
            Bytes.fill(pair.active().mem(), i * 64L, 64, 10 + i);
            postSend(pair.active(), i, i * 64L, 64, SIGNALED | WrFlags.INLINE);
        }
        // the Read would take the queue's last slot
        assertThrowsNaming(InvalidArgumentException.class,
                () -> postRead(pair.active(), 9, 4096, 64, 0, pair.active().peerRkey(), SIGNALED | WrFlags.INLINE),
                "an RDMA Read with INLINE", "INLINE");
        postReceive(pair.passive(), 103, 192, 64);
        Bytes.fill(pair.active().mem(), 192, 64, 13);
        postSend(pair.active(), 3, 192, 64, SIGNALED | WrFlags.INLINE);
        List<WorkCompletion> sent = awaitCompletions(pair.active().cq, 4, "the four inline Sends around the refused Read");
        for (int i = 0; i < 4; i++) {
            assertCompletion(sent.get(i), i, SUCCESS, SEND, "inline Send " + i);
        }
        List<WorkCompletion> received = awaitCompletions(pair.passive().cq, 4, "the four receives");
        for (int i = 0; i < 4; i++) {
            assertReceived(received.get(i), 100 + i, 64, pair.passive().qp, "receive " + i);
            Bytes.assertPattern(pair.passive().mem(), i * 64L, 64, 10 + i, "inline Send " + i + "'s own payload");
        }
        postRead(pair.active(), 10, 4096, 64, 0, pair.active().peerRkey(), SIGNALED);
        assertCompletion(awaitCompletion(pair.active().cq, "a plain Read after the refused one"), 10, SUCCESS, CompletionOpcode.RDMA_READ, "Read");
    }

    @Test
    void inlineSendsThatGoOutTogetherEachCarryTheirOwnPayloadCopiedAtPostTime() {
        ConnectedPair pair = connectedPair(EndpointSpec.defaults().withQp(c -> c.withMaxInline(64)), EndpointSpec.defaults());
        int n = 8;
        for (int i = 0; i < n; i++) {
            postReceive(pair.passive(), 100 + i, i * 64L, 64);
        }
        // SQD holds them, so that they leave together when the QP returns to RTS
        pair.active().qp.modify(QpState.SQD);
        awaitAsyncEvent(pair.active().device, AsyncEventType.SQ_DRAINED, pair.active().qp);
        for (int i = 0; i < n; i++) {
            Bytes.fill(pair.active().mem(), 0, 64, 20 + i); // one buffer, reused as soon as the post returns
            postSend(pair.active(), i, 0, 64, SIGNALED | WrFlags.INLINE);
        }
        Bytes.fill(pair.active().mem(), 0, 64, 99);
        pair.active().qp.modify(QpState.RTS);
        List<WorkCompletion> sent = awaitCompletions(pair.active().cq, n, n + " inline Sends");
        for (int i = 0; i < n; i++) {
            assertCompletion(sent.get(i), i, SUCCESS, SEND, "inline Send " + i);
        }
        List<WorkCompletion> received = awaitCompletions(pair.passive().cq, n, n + " receives");
        for (int i = 0; i < n; i++) {
            assertReceived(received.get(i), 100 + i, 64, pair.passive().qp, "receive " + i);
            Bytes.assertPattern(pair.passive().mem(), i * 64L, 64, 20 + i, "inline Send " + i + ": the bytes the buffer held when it was posted");
        }
    }
}

package dev.tandem.verbs.conformance;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ResourceInUseException;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.SharedReceiveQueue;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

import static dev.tandem.verbs.CompletionOpcode.RDMA_READ;
import static dev.tandem.verbs.CompletionOpcode.RDMA_WRITE;
import static dev.tandem.verbs.CompletionOpcode.SEND;
import static dev.tandem.verbs.CompletionStatus.SUCCESS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every data-moving work request on a healthy connection, checked byte for byte. */
public abstract class DataTransferConformance extends ConformanceBase {
    private static final int MIB = 1 << 20;

    private static EndpointSpec big() {
        return EndpointSpec.defaults().withRegion(2L * MIB + 64 * 1024, EndpointSpec.FULL_ACCESS);
    }

    @Test
    void sendDeliversItsBytesAndCompletesOnBothSides() {
        ConnectedPair pair = connectedPair();
        postReceive(pair.passive(), 11, 0, 4096);
        Bytes.fill(pair.active().mem(), 100, 1000, 5);
        postSend(pair.active(), 21, 100, 1000, SIGNALED);

        assertCompletion(awaitCompletion(pair.active().cq, "the Send's completion"), 21, SUCCESS, SEND, "sender");
        WorkCompletion wc = awaitCompletion(pair.passive().cq, "the receive completion");
        assertReceived(wc, 11, 1000, pair.passive().qp, "receiver");
        assertFalse(wc.isSolicited(), "a plain Send is not solicited: " + wc);
        assertEquals(0, wc.flags() & WorkCompletion.FLAG_INVALIDATED, "a plain Send invalidates nothing: " + wc);
        Bytes.assertPattern(pair.passive().mem(), 0, 1000, 5, "received bytes");
        Bytes.assertFilled(pair.passive().mem(), 1000, 3096, (byte) 0, "receive buffer beyond the message");
    }

    @Test
    void sendsArriveInOrderAndConsumeReceivesInPostingOrder() {
        ConnectedPair pair = connectedPair();
        int n = 50;
        for (int i = 0; i < n; i++) {
            postReceive(pair.passive(), 1000 + i, i * 256L, 256);
        }
        for (int i = 0; i < n; i++) {
            Bytes.fill(pair.active().mem(), i * 256L, 100 + i, 100 + i);
            postSend(pair.active(), 2000 + i, i * 256L, 100 + i, SIGNALED);
        }
        List<WorkCompletion> sent = awaitCompletions(pair.active().cq, n, n + " Send completions");
        List<WorkCompletion> got = awaitCompletions(pair.passive().cq, n, n + " receive completions");
        for (int i = 0; i < n; i++) {
            assertCompletion(sent.get(i), 2000 + i, SUCCESS, SEND, "send completion " + i);
            assertReceived(got.get(i), 1000 + i, 100 + i, pair.passive().qp, "receive completion " + i);
            Bytes.assertPattern(pair.passive().mem(), i * 256L, 100 + i, 100 + i, "message " + i);
        }
    }

    @Test
    void zeroLengthSendCompletesAReceiveWithZeroBytes() {
        ConnectedPair pair = connectedPair();
        postReceive(pair.passive(), 1, 0, 64);
        pair.active().qp.postSend(new WorkRequest.Send(2, List.of(), SIGNALED));
        assertCompletion(awaitCompletion(pair.active().cq, "the zero-length Send's completion"), 2, SUCCESS, SEND, "sender");
        assertReceived(awaitCompletion(pair.passive().cq, "the zero-length receive"), 1, 0, pair.passive().qp, "receiver");
    }

    @Test
    void oneMebibyteSendSpansManyFramesAndArrivesIntact() {
        ConnectedPair pair = connectedPair(big(), big());
        postReceive(pair.passive(), 1, 4096, MIB);
        Bytes.fill(pair.active().mem(), 12345, MIB, 9);
        postSend(pair.active(), 2, 12345, MIB, SIGNALED);
        assertCompletion(awaitCompletion(pair.active().cq, "the 1 MiB Send's completion"), 2, SUCCESS, SEND, "sender");
        assertReceived(awaitCompletion(pair.passive().cq, "the 1 MiB receive"), 1, MIB, pair.passive().qp, "receiver");
        Bytes.assertPattern(pair.passive().mem(), 4096, MIB, 9, "1 MiB received");
        Bytes.assertFilled(pair.passive().mem(), 0, 4096, (byte) 0, "bytes before the receive buffer");
        Bytes.assertFilled(pair.passive().mem(), 4096 + MIB, 4096, (byte) 0, "bytes after the receive buffer");
    }

    @Test
    void sendGathersSeveralEntriesAndReceiveScattersIntoSeveral() {
        ConnectedPair pair = connectedPair();
        MemoryRegion second = register(pair.active().pd, 4096, EndpointSpec.FULL_ACCESS);
        Bytes.fill(pair.active().mem(), 0, 4096, 31);
        Bytes.fill(second.segment(), 0, 4096, 32);
        List<Sge> gather = List.of(sge(pair.active().region, 0, 100), sge(second, 500, 1000), sge(pair.active().region, 3000, 37));
        int total = 1137;
        byte[] expected = new byte[total];
        MemorySegment.copy(pair.active().mem(), ValueLayout.JAVA_BYTE, 0, expected, 0, 100);
        MemorySegment.copy(second.segment(), ValueLayout.JAVA_BYTE, 500, expected, 100, 1000);
        MemorySegment.copy(pair.active().mem(), ValueLayout.JAVA_BYTE, 3000, expected, 1100, 37);

        MemoryRegion r = pair.passive().region;
        pair.passive().qp.postReceive(new ReceiveRequest(7, List.of(sge(r, 0, 500), sge(r, 1000, 10), sge(r, 2000, 2000))));
        pair.active().qp.postSend(new WorkRequest.Send(8, gather, SIGNALED));

        assertCompletion(awaitCompletion(pair.active().cq, "the gathered Send's completion"), 8, SUCCESS, SEND, "sender");
        assertReceived(awaitCompletion(pair.passive().cq, "the scattered receive"), 7, total, pair.passive().qp, "receiver");
        MemorySegment m = pair.passive().mem();
        assertSegment(m, 0, expected, 0, 500, "first scatter entry");
        Bytes.assertFilled(m, 500, 500, (byte) 0, "gap between scatter entries 1 and 2");
        assertSegment(m, 1000, expected, 500, 10, "second scatter entry");
        Bytes.assertFilled(m, 1010, 990, (byte) 0, "gap between scatter entries 2 and 3");
        assertSegment(m, 2000, expected, 510, total - 510, "third scatter entry");
        Bytes.assertFilled(m, 2000 + total - 510, 1000, (byte) 0, "rest of the third scatter entry");
    }

    @Test
    void oneMebibyteRdmaWriteLandsExactlyAndConsumesNoReceive() {
        ConnectedPair pair = connectedPair(big(), big());
        Bytes.fill(pair.active().mem(), 0, MIB, 17);
        postReceive(pair.passive(), 40, 2L * MIB, 64);
        postWrite(pair.active(), 41, 0, MIB, 4096, pair.active().peerRkey(), SIGNALED);
        postSend(pair.active(), 42, 0, 8, SIGNALED); // tells the passive side the Write has been placed

        List<WorkCompletion> sent = awaitCompletions(pair.active().cq, 2, "the Write's and the Send's completions");
        assertCompletion(sent.get(0), 41, SUCCESS, RDMA_WRITE, "RDMA Write");
        assertCompletion(sent.get(1), 42, SUCCESS, SEND, "notifying Send");
        assertReceived(awaitCompletion(pair.passive().cq, "the notifying Send"), 40, 8, pair.passive().qp,
                "the passive side's first completion (an RDMA Write makes none at the target)");
        Bytes.assertPattern(pair.passive().mem(), 4096, MIB, 17, "1 MiB written");
        Bytes.assertFilled(pair.passive().mem(), 0, 4096, (byte) 0, "bytes before the written range");
        Bytes.assertFilled(pair.passive().mem(), 4096 + MIB, 4096, (byte) 0, "bytes after the written range");
    }

    @Test
    void rdmaWriteGathersSeveralEntries() {
        ConnectedPair pair = connectedPair();
        Bytes.fill(pair.active().mem(), 0, 8192, 3);
        List<Sge> gather = List.of(sge(pair.active().region, 1000, 300), sge(pair.active().region, 5000, 700));
        pair.active().qp.postSend(new WorkRequest.RdmaWrite(1, gather, 100, pair.active().peerRkey(), SIGNALED));
        postReceive(pair.passive(), 2, 60000, 16);
        postSend(pair.active(), 3, 0, 1, SIGNALED);
        List<WorkCompletion> sent = awaitCompletions(pair.active().cq, 2, "Write and Send completions");
        assertCompletion(sent.get(0), 1, SUCCESS, RDMA_WRITE, "gathered Write");
        assertReceived(awaitCompletion(pair.passive().cq, "the notifying Send"), 2, 1, pair.passive().qp, "notification");
        Bytes.assertPattern(pair.passive().mem(), 100, 300, 3, 1000, "first gathered entry");
        Bytes.assertPattern(pair.passive().mem(), 400, 700, 3, 5000, "second gathered entry");
        Bytes.assertFilled(pair.passive().mem(), 1100, 100, (byte) 0, "after the gathered Write");
    }

    @Test
    void oneMebibyteRdmaReadFetchesExactly() {
        ConnectedPair pair = connectedPair(big(), big());
        Bytes.fill(pair.passive().mem(), 8192, MIB, 23);
        postRead(pair.active(), 5, 4096, MIB, 8192, pair.active().peerRkey(), SIGNALED);
        WorkCompletion wc = awaitCompletion(pair.active().cq, "the 1 MiB Read's completion");
        assertCompletion(wc, 5, SUCCESS, RDMA_READ, "RDMA Read");
        assertEquals(MIB, wc.byteLength(), "byteLength of an RDMA Read is the bytes read: " + wc);
        Bytes.assertPattern(pair.active().mem(), 4096, MIB, 23, "1 MiB read");
        Bytes.assertFilled(pair.active().mem(), 0, 4096, (byte) 0, "bytes before the Read's sink");
        Bytes.assertFilled(pair.active().mem(), 4096 + MIB, 4096, (byte) 0, "bytes after the Read's sink");
        WorkCompletion[] none = WorkCompletion.array(1);
        assertEquals(0, pair.passive().cq.poll(none), "an RDMA Read makes no completion at the responder");
    }

    @Test
    void readAfterWriteOnTheSameQpSeesTheWrittenBytes() {
        ConnectedPair pair = connectedPair();
        Bytes.fill(pair.active().mem(), 0, 20000, 44);
        postWrite(pair.active(), 1, 0, 20000, 30000, pair.active().peerRkey(), WrFlags.NONE);
        postRead(pair.active(), 2, 40000, 20000, 30000, pair.active().peerRkey(), SIGNALED);
        assertCompletion(awaitCompletion(pair.active().cq, "the Read's completion"), 2, SUCCESS, RDMA_READ, "Read after Write");
        Bytes.assertPattern(pair.active().mem(), 40000, 20000, 44, "bytes read back");
    }

    @Test
    void fencedSendCarriesTheDataOfAnEarlierRead() {
        ConnectedPair pair = connectedPair();
        int len = 32 * 1024;
        Bytes.fill(pair.passive().mem(), 0, len, 55);
        postReceive(pair.passive(), 1, len, len);
        postRead(pair.active(), 2, 0, len, 0, pair.active().peerRkey(), SIGNALED);
        postSend(pair.active(), 3, 0, len, SIGNALED | WrFlags.FENCE);
        List<WorkCompletion> sent = awaitCompletions(pair.active().cq, 2, "the Read's and the fenced Send's completions");
        assertCompletion(sent.get(0), 2, SUCCESS, RDMA_READ, "Read");
        assertCompletion(sent.get(1), 3, SUCCESS, SEND, "fenced Send");
        assertReceived(awaitCompletion(pair.passive().cq, "the fenced Send"), 1, len, pair.passive().qp, "receiver");
        Bytes.assertPattern(pair.passive().mem(), len, len, 55, "the fenced Send carries what the Read fetched");
    }

    @Test
    void sendQueueCompletionsComeInPostingOrder() {
        ConnectedPair pair = connectedPair();
        postReceive(pair.passive(), 100, 0, 64);
        int rkey = pair.active().peerRkey();
        postWrite(pair.active(), 1, 0, 5000, 1000, rkey, SIGNALED);
        postRead(pair.active(), 2, 20000, 5000, 8000, rkey, SIGNALED);
        postSend(pair.active(), 3, 0, 64, SIGNALED);
        postWrite(pair.active(), 4, 0, 10, 0, rkey, SIGNALED);
        List<WorkCompletion> wcs = awaitCompletions(pair.active().cq, 4, "four completions");
        assertCompletion(wcs.get(0), 1, SUCCESS, RDMA_WRITE, "1st");
        assertCompletion(wcs.get(1), 2, SUCCESS, RDMA_READ, "2nd");
        assertCompletion(wcs.get(2), 3, SUCCESS, SEND, "3rd");
        assertCompletion(wcs.get(3), 4, SUCCESS, RDMA_WRITE, "4th");
    }

    @Test
    void unsignalledRequestsMakeNoCompletion() {
        ConnectedPair pair = connectedPair();
        postReceive(pair.passive(), 10, 0, 64);
        postReceive(pair.passive(), 11, 64, 64);
        postSend(pair.active(), 1, 0, 64, WrFlags.NONE);
        postWrite(pair.active(), 2, 0, 64, 1000, pair.active().peerRkey(), WrFlags.NONE);
        postSend(pair.active(), 3, 0, 64, SIGNALED);
        assertCompletion(awaitCompletion(pair.active().cq, "the signalled Send's completion"), 3, SUCCESS, SEND,
                "the only completion (the unsignalled Send and Write come before it and make none)");
        WorkCompletion[] more = WorkCompletion.array(4);
        assertEquals(0, pair.active().cq.poll(more), "no completion after the signalled one");
        List<WorkCompletion> got = awaitCompletions(pair.passive().cq, 2, "both receives");
        assertReceived(got.get(0), 10, 64, pair.passive().qp, "receive of the unsignalled Send");
        assertReceived(got.get(1), 11, 64, pair.passive().qp, "receive of the signalled Send");
    }

    @Test
    void signalAllReportsEveryRequest() {
        ConnectedPair pair = connectedPair(EndpointSpec.defaults().withQp(c -> c.withSignalAll(true)), EndpointSpec.defaults());
        postReceive(pair.passive(), 10, 0, 64);
        postSend(pair.active(), 1, 0, 64, WrFlags.NONE);
        postWrite(pair.active(), 2, 0, 64, 1000, pair.active().peerRkey(), WrFlags.NONE);
        postRead(pair.active(), 3, 5000, 64, 1000, pair.active().peerRkey(), WrFlags.NONE);
        List<WorkCompletion> wcs = awaitCompletions(pair.active().cq, 3, "completions of three unsignalled requests on a signal-all QP");
        assertCompletion(wcs.get(0), 1, SUCCESS, SEND, "Send");
        assertCompletion(wcs.get(1), 2, SUCCESS, RDMA_WRITE, "Write");
        assertCompletion(wcs.get(2), 3, SUCCESS, RDMA_READ, "Read");
    }

    @Test
    void inlineSendLetsTheSourceBeReusedAtOnce() {
        ConnectedPair pair = connectedPair(EndpointSpec.defaults().withQp(c -> c.withMaxInline(64)), EndpointSpec.defaults());
        postReceive(pair.passive(), 1, 0, 64);
        Bytes.fill(pair.active().mem(), 0, 48, 71);
        postSend(pair.active(), 2, 0, 48, SIGNALED | WrFlags.INLINE);
        Bytes.fill(pair.active().mem(), 0, 48, 72); // allowed at once after an inline post
        assertCompletion(awaitCompletion(pair.active().cq, "the inline Send's completion"), 2, SUCCESS, SEND, "inline Send");
        assertReceived(awaitCompletion(pair.passive().cq, "the inline Send"), 1, 48, pair.passive().qp, "receiver");
        Bytes.assertPattern(pair.passive().mem(), 0, 48, 71, "inline payload as it was at post time");
    }

    @Test
    void bothSidesSendAtOnce() {
        ConnectedPair pair = connectedPair();
        int n = 20;
        for (int i = 0; i < n; i++) {
            postReceive(pair.active(), 100 + i, 32768 + i * 512L, 512);
            postReceive(pair.passive(), 200 + i, 32768 + i * 512L, 512);
        }
        Bytes.fill(pair.active().mem(), 0, 512, 1);
        Bytes.fill(pair.passive().mem(), 0, 512, 2);
        for (int i = 0; i < n; i++) {
            postSend(pair.active(), 300 + i, 0, 512, SIGNALED);
            postSend(pair.passive(), 400 + i, 0, 512, SIGNALED);
        }
        int activeSends = 0;
        int activeRecvs = 0;
        for (WorkCompletion wc : awaitCompletions(pair.active().cq, 2 * n, "active side's sends and receives")) {
            assertEquals(SUCCESS, wc.status(), wc.toString());
            if (wc.opcode() == CompletionOpcode.RECV) {
                assertEquals(100 + activeRecvs++, wc.wrId(), "receives complete in posting order");
            } else {
                assertEquals(300 + activeSends++, wc.wrId(), "sends complete in posting order");
            }
        }
        assertEquals(n, activeRecvs);
        for (WorkCompletion wc : awaitCompletions(pair.passive().cq, 2 * n, "passive side's sends and receives")) {
            assertEquals(SUCCESS, wc.status(), wc.toString());
        }
        for (int i = 0; i < n; i++) {
            Bytes.assertPattern(pair.active().mem(), 32768 + i * 512L, 512, 2, "message " + i + " at the active side");
            Bytes.assertPattern(pair.passive().mem(), 32768 + i * 512L, 512, 1, "message " + i + " at the passive side");
        }
    }

    @Test
    void awaitOnAnIdleQueueTimesOutWithZero() {
        ConnectedPair pair = connectedPair();
        WorkCompletion[] out = WorkCompletion.array(4);
        assertEquals(0, pair.active().cq.poll(out), "poll of an empty CQ");
        Duration timeout = Duration.ofMillis(150);
        long start = System.nanoTime();
        assertEquals(0, pair.active().cq.await(out, timeout), "await of an idle CQ");
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMs >= timeout.toMillis() - 15, "await returned 0 after " + tookMs + " ms, before its timeout of " + timeout);
    }

    @Test
    void pollFillsTheGivenSliceOfTheArray() {
        ConnectedPair pair = connectedPair();
        for (int i = 0; i < 3; i++) {
            postReceive(pair.passive(), 50 + i, i * 64L, 64);
            postSend(pair.active(), 60 + i, 0, 64, SIGNALED);
        }
        awaitCompletions(pair.active().cq, 3, "three Send completions");
        WorkCompletion[] out = WorkCompletion.array(4);
        out[0].set(-1, CompletionStatus.GENERAL_ERR, CompletionOpcode.SEND, 0, 0, 0, 0, 0);
        out[3].set(-3, CompletionStatus.GENERAL_ERR, CompletionOpcode.SEND, 0, 0, 0, 0, 0);
        long deadline = System.nanoTime() + bound().toNanos();
        int got = 0;
        while (got < 2 && System.nanoTime() < deadline) {
            got += pair.passive().cq.poll(out, 1 + got, 2 - got);
            LockSupport.parkNanos(100_000);
        }
        assertEquals(2, got, "poll(out, 1, 2) delivers at most 2 completions");
        assertEquals(-1, out[0].wrId(), "poll(out, 1, 2) leaves out[0] alone");
        assertEquals(-3, out[3].wrId(), "poll(out, 1, 2) leaves out[3] alone");
        assertReceived(out[1], 50, 64, pair.passive().qp, "first polled");
        assertReceived(out[2], 51, 64, pair.passive().qp, "second polled");
        assertReceived(awaitCompletion(pair.passive().cq, "the third receive"), 52, 64, pair.passive().qp, "third");
    }

    private static void assertSegment(MemorySegment m, long offset, byte[] expected, int from, int length, String what) {
        for (int i = 0; i < length; i++) {
            byte actual = m.get(ValueLayout.JAVA_BYTE, offset + i);
            if (actual != expected[from + i]) {
                throw new AssertionError(what + ": byte " + i + " (offset " + (offset + i) + ") is 0x" + Integer.toHexString(actual & 0xFF)
                        + ", expected 0x" + Integer.toHexString(expected[from + i] & 0xFF));
            }
        }
    }

    // ---------------------------------------------------------------- issue 12: memory given back, zero-length transfers

    /**
     * Issue 12, row 2: a region deregistered while a posted Receive still points into it. The verbs
     * let a provider refuse the deregistration while the Receive references it, or check the
     * Receive's entries when a Send arrives for it (as siw does, at placement): then the Receive
     * completes LOC_PROT_ERR with nothing written into the memory given back, and both QPs fail as
     * on any protection fault. Never SUCCESS with the bytes written there.
     */
    @Test
    void aReceiveIntoADeregisteredRegionCompletesInErrorAndPlacesNothing() {
        ConnectedPair pair = connectedPair();
        MemoryRegion given = register(pair.passive().pd, 4096, EndpointSpec.FULL_ACCESS);
        pair.passive().qp.postReceive(new ReceiveRequest(5, sge(given, 0, 4096)));
        assertReceiveIntoGivenBackMemoryRefused(pair, pair.passive().cq, given, 5, "a QP's Receive");
    }

    /** Issue 12, row 2, for a Receive taken from a shared receive queue. */
    @Test
    void aSharedReceiveIntoADeregisteredRegionCompletesInErrorAndPlacesNothing() {
        ProtectionDomain pd = closeAtEnd(adapter(1).allocateProtectionDomain());
        SharedReceiveQueue srq = closeAtEnd(pd.createSharedReceiveQueue(4, 1));
        ConnectedPair pair = connect(endpoint(0), endpoint(1, EndpointSpec.defaults().withPd(pd).withQp(c -> c.withSrq(srq))));
        MemoryRegion given = register(pd, 4096, EndpointSpec.FULL_ACCESS);
        srq.postReceive(new ReceiveRequest(6, sge(given, 0, 4096)));
        assertReceiveIntoGivenBackMemoryRefused(pair, pair.passive().cq, given, 6, "an SRQ's Receive");
    }

    /** Deregisters {@code given} (which the Receive {@code wrId} points into), sends 1000 bytes, and checks the outcome. */
    private void assertReceiveIntoGivenBackMemoryRefused(ConnectedPair pair, CompletionQueue receiveCq, MemoryRegion given, long wrId,
                                                         String what) {
        try {
            given.close();
        } catch (ResourceInUseException refused) {
            // the other behaviour the verbs allow: the region stays registered and the Receive works
            postSend(pair.active(), 7, 0, 1000, SIGNALED);
            assertReceived(awaitCompletion(receiveCq, what + " into a region whose deregistration was refused"), wrId, 1000,
                    pair.passive().qp, what);
            return;
        }
        assertFalse(given.isValid(), "a deregistered region is not valid");
        assertReceiveRefused(pair, receiveCq, given, wrId, what + " into a deregistered region");
    }

    /**
     * Issue 12, row 2: a region reregistered without LOCAL_WRITE after a Receive was posted into it
     * may no longer take that Receive's bytes (siw checks the rights at placement too).
     */
    @Test
    void aReceiveIntoARegionReregisteredWithoutLocalWriteCompletesInError() {
        ConnectedPair pair = connectedPair();
        MemoryRegion given = register(pair.passive().pd, 4096, EndpointSpec.FULL_ACCESS);
        pair.passive().qp.postReceive(new ReceiveRequest(5, sge(given, 0, 4096)));
        given.reregister(Access.REMOTE_READ);
        assertReceiveRefused(pair, pair.passive().cq, given, 5, "a Receive into a region reregistered without LOCAL_WRITE");
    }

    /**
     * Issue 12, row 2: a region the peer invalidated with a Send with Invalidate is invalid for the
     * Receives already posted into it as well (its lkey and rkey are one STag).
     */
    @Test
    void aReceiveIntoARegionThePeerInvalidatedCompletesInError() {
        ConnectedPair pair = connectedPair();
        MemoryRegion given = register(pair.passive().pd, 4096, EndpointSpec.FULL_ACCESS);
        postReceive(pair.passive(), 4, 60000, 64);
        pair.passive().qp.postReceive(new ReceiveRequest(5, sge(given, 0, 4096)));
        pair.active().qp.postSend(new WorkRequest.SendWithInvalidate(8, List.of(sge(pair.active().region, 0, 16)), given.rkey(), SIGNALED));
        WorkCompletion invalidating = awaitCompletion(pair.passive().cq, "the Receive of the Send with Invalidate");
        assertReceived(invalidating, 4, 16, pair.passive().qp, "the Send with Invalidate");
        assertTrue((invalidating.flags() & WorkCompletion.FLAG_INVALIDATED) != 0, "FLAG_INVALIDATED: " + invalidating);
        assertCompletion(awaitCompletion(pair.active().cq, "the Send with Invalidate's completion"), 8, SUCCESS, SEND, "Send with Invalidate");
        assertFalse(given.isValid(), "a region the peer invalidated is not valid");
        assertReceiveRefused(pair, pair.passive().cq, given, 5, "a Receive into a region the peer invalidated");
    }

    /**
     * Sends 1000 bytes for the Receive {@code wrId}, which points into {@code given}, a region that
     * may no longer take them: the Receive completes LOC_PROT_ERR, nothing is placed in
     * {@code given}, both QPs fail, and the receiving side raises QP_ACCESS_ERROR.
     */
    private void assertReceiveRefused(ConnectedPair pair, CompletionQueue receiveCq, MemoryRegion given, long wrId, String what) {
        Bytes.fill(pair.active().mem(), 0, 1000, 41);
        postSend(pair.active(), 7, 0, 1000, SIGNALED);
        WorkCompletion wc = awaitCompletion(receiveCq, what);
        assertCompletion(wc, wrId, CompletionStatus.LOC_PROT_ERR, CompletionOpcode.RECV, what);
        assertEquals(0, wc.flags() & WorkCompletion.FLAG_INVALIDATED, "nothing invalidated: " + wc);
        Bytes.assertFilled(given.segment(), 0, 4096, (byte) 0, "memory of " + what + " (nothing placed there)");
        awaitState(pair.passive().qp, QpState.ERROR, "the QP whose Receive failed its protection check");
        awaitState(pair.active().qp, QpState.ERROR, "the sending QP (its peer terminated the connection)");
        awaitAsyncEvent(pair.passive().device, AsyncEventType.QP_ACCESS_ERROR, pair.passive().qp);
        WorkCompletion send = awaitCompletion(pair.active().cq, "the Send's completion");
        assertEquals(7, send.wrId(), send.toString());
        // iWARP completes a Send locally; the Terminate may arrive after it (SUCCESS) or be reported on it.
        assertTrue(Set.of(SUCCESS, CompletionStatus.REM_OP_ERR, CompletionStatus.WR_FLUSH_ERR).contains(send.status()),
                "status of a Send whose Receive was refused: " + send);
    }

    /**
     * Issue 12, row 9: a zero-length RDMA Write (no SGE, or one of length 0) carries no data, so the
     * responder checks no STag for it (IBA C9-88, siw): any rkey and offset complete SUCCESS, nothing
     * is written, and the connection goes on.
     */
    @Test
    void zeroLengthRdmaWritesNeedNoValidRkey() {
        ConnectedPair pair = connectedPair();
        int neverIssued = 0; // index 0 is never a live STag
        int wrongKey = STag.of(STag.index(pair.active().peerRkey()), (STag.key(pair.active().peerRkey()) + 1) & 0xFF);
        pair.active().qp.postSend(new WorkRequest.RdmaWrite(1, List.of(), 0, neverIssued, SIGNALED));
        pair.active().qp.postSend(new WorkRequest.RdmaWrite(2, sge(pair.active().region, 100, 0), 1L << 40, wrongKey, SIGNALED));
        pair.active().qp.postSend(new WorkRequest.RdmaWrite(3, List.of(), pair.active().peerLength() + 4096, pair.active().peerRkey(),
                SIGNALED));
        assertConnectionCarriesOn(pair, 3, "three zero-length RDMA Writes with an rkey or offset no Write of data could use");
    }

    /**
     * A zero-length RDMA Read is answered with a zero-length Read Response without checking the
     * source STag either (IBA C9-88; siw builds the response with no SGE to check).
     */
    @Test
    void zeroLengthRdmaReadNeedsNoValidRkey() {
        ConnectedPair pair = connectedPair();
        Bytes.fill(pair.active().mem(), 0, 64, 19);
        pair.active().qp.postSend(new WorkRequest.RdmaRead(1, sge(pair.active().region, 0, 0), 1L << 40, 0, SIGNALED));
        WorkCompletion read = awaitCompletion(pair.active().cq, "the zero-length Read");
        assertCompletion(read, 1, SUCCESS, RDMA_READ, "zero-length RDMA Read of STag 0");
        assertEquals(0, read.byteLength(), "byteLength of a zero-length Read: " + read);
        Bytes.assertPattern(pair.active().mem(), 0, 64, 19, "the zero-length Read's sink is untouched");
        assertConnectionCarriesOn(pair, 0, "a zero-length RDMA Read of STag 0");
    }

    /**
     * Awaits {@code writes} successful RDMA Write completions (wrIds 1..writes), then proves the
     * connection healthy with a Send both ways; the passive region stays zero where nothing was sent.
     */
    private void assertConnectionCarriesOn(ConnectedPair pair, int writes, String after) {
        for (WorkCompletion wc : awaitCompletions(pair.active().cq, writes, "completions of " + after)) {
            assertEquals(SUCCESS, wc.status(), after + ": " + wc);
            assertEquals(RDMA_WRITE, wc.opcode(), after + ": " + wc);
        }
        postReceive(pair.passive(), 50, 60000, 64);
        postReceive(pair.active(), 51, 60000, 64);
        Bytes.fill(pair.active().mem(), 8192, 16, 7);
        Bytes.fill(pair.passive().mem(), 8192, 16, 8);
        postSend(pair.active(), 52, 8192, 16, SIGNALED);
        postSend(pair.passive(), 53, 8192, 16, SIGNALED);
        Map<Long, WorkCompletion> active = byWrId(awaitCompletions(pair.active().cq, 2, "the active side's Send and Receive after " + after));
        assertCompletion(active.get(52L), 52, SUCCESS, SEND, "active Send after " + after);
        assertReceived(active.get(51L), 51, 16, pair.active().qp, "active receive after " + after);
        Map<Long, WorkCompletion> passive = byWrId(awaitCompletions(pair.passive().cq, 2, "the passive side's Send and Receive after " + after));
        assertReceived(passive.get(50L), 50, 16, pair.passive().qp, "passive receive after " + after);
        assertCompletion(passive.get(53L), 53, SUCCESS, SEND, "passive Send after " + after);
        Bytes.assertPattern(pair.active().mem(), 60000, 16, 8, "the peer's Send after " + after);
        Bytes.assertPattern(pair.passive().mem(), 60000, 16, 7, "the Send after " + after);
        Bytes.assertFilled(pair.passive().mem(), 0, 8192, (byte) 0, "passive region where nothing was written");
        assertEquals(QpState.RTS, pair.active().qp.state(), "the requester after " + after);
        assertEquals(QpState.RTS, pair.passive().qp.state(), "the responder after " + after);
    }
}

package dev.tandem.verbs.conformance;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.tandem.verbs.CompletionOpcode.RDMA_READ;
import static dev.tandem.verbs.CompletionOpcode.SEND;
import static dev.tandem.verbs.CompletionStatus.REM_ACCESS_ERR;
import static dev.tandem.verbs.CompletionStatus.REM_OP_ERR;
import static dev.tandem.verbs.CompletionStatus.SUCCESS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Remote protection: every bad STag, key, bound, right or PD is refused, nothing outside the
 * permitted range is read or written, and both QPs go to ERROR with their work flushed.
 * Also the receive-side length errors and a Send that finds no receive.
 */
public abstract class ProtectionConformance extends ConformanceBase {
    // ---------------------------------------------------------------- RDMA Read refusals

    @Test
    void readWithAWrongKeyIsRefused() {
        ConnectedPair pair = connectedPair();
        int rkey = pair.active().peerRkey();
        int wrongKey = STag.of(STag.index(rkey), (STag.key(rkey) + 1) & 0xFF);
        assertReadRefused(pair, 0, 1024, wrongKey, "a wrong key " + STag.format(wrongKey));
    }

    @Test
    void readWithTheStagOfADeregisteredRegionIsRefused() {
        ConnectedPair pair = connectedPair();
        MemoryRegion gone = register(pair.passive().pd, 4096, EndpointSpec.FULL_ACCESS);
        int stale = gone.rkey();
        gone.close();
        assertFalse(gone.isValid(), "a closed region is not valid");
        assertReadRefused(pair, 0, 1024, stale, "the STag of a deregistered region");
    }

    @Test
    void readWithTheOldKeyAfterReregisterIsRefusedAndTheNewKeyWorks() {
        ConnectedPair pair = connectedPair();
        MemoryRegion r = pair.passive().region;
        int old = r.rkey();
        int fresh = r.reregister(EndpointSpec.FULL_ACCESS);
        assertEquals(fresh, r.rkey(), "rkey() after reregister is the STag it returned");
        assertNotEquals(old, fresh, "reregister issues a new STag");
        Bytes.fill(r.segment(), 0, 1024, 12);
        postRead(pair.active(), 1, 2048, 1024, 0, fresh, SIGNALED);
        assertCompletion(awaitCompletion(pair.active().cq, "a Read with the new key"), 1, SUCCESS, RDMA_READ, "Read with the new key");
        Bytes.assertPattern(pair.active().mem(), 2048, 1024, 12, "bytes read with the new key");
        assertReadRefused(pair, 0, 1024, old, "the key from before reregister");
    }

    @Test
    void readBeyondTheEndOfTheRegionIsRefused() {
        ConnectedPair pair = connectedPair();
        long len = pair.active().peerLength();
        assertReadRefused(pair, len - 100, 200, pair.active().peerRkey(), "a range straddling the region's end");
    }

    @Test
    void readWhollyOutsideTheRegionIsRefused() {
        ConnectedPair pair = connectedPair();
        long len = pair.active().peerLength();
        assertReadRefused(pair, len + 4096, 16, pair.active().peerRkey(), "a range past the region's end");
    }

    @Test
    void readWithoutTheRemoteReadRightIsRefused() {
        ConnectedPair pair = connectedPair(EndpointSpec.defaults(),
                EndpointSpec.defaults().withRegion(EndpointSpec.DEFAULT_REGION, Access.LOCAL_WRITE | Access.REMOTE_WRITE));
        assertReadRefused(pair, 0, 1024, pair.active().peerRkey(), "a region without REMOTE_READ");
    }

    @Test
    void readOfARegionInAnotherProtectionDomainIsRefused() {
        ConnectedPair pair = connectedPair();
        ProtectionDomain other = closeAtEnd(pair.passive().device.allocateProtectionDomain());
        MemoryRegion foreign = register(other, 4096, EndpointSpec.FULL_ACCESS);
        Bytes.fill(foreign.segment(), 0, 4096, 66);
        assertReadRefused(pair, 0, 1024, foreign.rkey(), "a region of another protection domain");
    }

    // ---------------------------------------------------------------- RDMA Write refusals

    @Test
    void writeWithAWrongKeyChangesNothing() {
        ConnectedPair pair = connectedPair();
        int rkey = pair.active().peerRkey();
        assertWriteRefused(pair, pair.passive().region, 0, STag.of(STag.index(rkey), (STag.key(rkey) + 7) & 0xFF), "a wrong key");
    }

    @Test
    void writeWithoutTheRemoteWriteRightChangesNothing() {
        ConnectedPair pair = connectedPair(EndpointSpec.defaults(),
                EndpointSpec.defaults().withRegion(EndpointSpec.DEFAULT_REGION, Access.LOCAL_WRITE | Access.REMOTE_READ));
        assertWriteRefused(pair, pair.passive().region, 0, pair.active().peerRkey(), "a region without REMOTE_WRITE");
    }

    @Test
    void writeStraddlingTheEndOfTheRegionChangesNothing() {
        ConnectedPair pair = connectedPair();
        MemoryRegion small = register(pair.passive().pd, 8192, EndpointSpec.FULL_ACCESS);
        assertWriteRefused(pair, small, 8192 - 16, small.rkey(), "a range straddling the region's end");
    }

    @Test
    void writeIntoARegionOfAnotherProtectionDomainChangesNothing() {
        ConnectedPair pair = connectedPair();
        MemoryRegion foreign = register(closeAtEnd(pair.passive().device.allocateProtectionDomain()), 8192, EndpointSpec.FULL_ACCESS);
        assertWriteRefused(pair, foreign, 0, foreign.rkey(), "a region of another protection domain");
    }

    // ---------------------------------------------------------------- untagged (Send) errors

    @Test
    void sendLongerThanTheReceiveBufferFailsTheReceiveWithLocLenErr() {
        ConnectedPair pair = connectedPair();
        postReceive(pair.passive(), 5, 0, 16); // the region beyond byte 16 must stay untouched
        Bytes.fill(pair.active().mem(), 0, 64, 3);
        postSend(pair.active(), 6, 0, 64, SIGNALED);
        WorkCompletion recv = awaitCompletion(pair.passive().cq, "the too-small receive's completion");
        assertCompletion(recv, 5, CompletionStatus.LOC_LEN_ERR, null, "receive of a 64-byte Send into 16 bytes");
        Bytes.assertFilled(pair.passive().mem(), 16, 4096, (byte) 0, "memory beyond the 16-byte receive buffer");
        WorkCompletion send = awaitCompletion(pair.active().cq, "the too-long Send's completion");
        assertEquals(6, send.wrId(), send.toString());
        // REM_INV_REQ_ERR is what the IB verbs report for it (the responder found the message too long):
        // a device that completes Sends only once the peer is shown to hold them (fail-over) reports that
        assertTrue(Set.of(SUCCESS, REM_OP_ERR, CompletionStatus.REM_INV_REQ_ERR).contains(send.status()),
                "a Send the peer could not take completes locally (SUCCESS), with REM_OP_ERR or REM_INV_REQ_ERR: " + send);
        awaitState(pair.passive().qp, QpState.ERROR, "the receiver's QP after a too-long Send");
        awaitState(pair.active().qp, QpState.ERROR, "the sender's QP after its Send was too long for the peer");
    }

    @Test
    void sendWithNoPostedReceiveFailsBothQps() {
        ConnectedPair pair = connectedPair();
        postReceive(pair.active(), ACTIVE_RECV, 60000, 64);
        Bytes.fill(pair.active().mem(), 0, 64, 4);
        postSend(pair.active(), 9, 0, 64, SIGNALED);
        Map<Long, WorkCompletion> active = byWrId(awaitCompletions(pair.active().cq, 2, "the Send and the flushed receive"));
        WorkCompletion send = active.get(9L);
        assertNotNull(send, "completion of the Send that found no receive: " + active);
        assertTrue(Set.of(SUCCESS, REM_OP_ERR).contains(send.status()),
                "a Send that finds no receive completes locally (SUCCESS) or with REM_OP_ERR: " + send);
        if (send.status() == SUCCESS) {
            assertEquals(SEND, send.opcode(), send.toString());
        }
        assertFlushed(active.get(ACTIVE_RECV), ACTIVE_RECV, "sender's receive after the peer failed the connection");
        awaitState(pair.passive().qp, QpState.ERROR, "the receiver's QP after a Send with no receive posted");
        awaitState(pair.active().qp, QpState.ERROR, "the sender's QP after its Send found no receive");
        awaitAnyAsyncEvent(pair.passive().device, pair.passive().qp, AsyncEventType.QP_REQUEST_ERROR, AsyncEventType.QP_FATAL);
        Bytes.assertFilled(pair.passive().mem(), 0, pair.passive().region.length(), (byte) 0, "receiver's memory");
        // The engine failed the sender's QP (the peer's Terminate): its next post reports that once ...
        AsyncErrorException x = assertThrows(AsyncErrorException.class, () -> postSend(pair.active(), 10, 0, 64, SIGNALED),
                "the first post on a QP the engine moved to ERROR");
        assertTrue(Set.of(AsyncEventType.QP_FATAL, AsyncEventType.QP_REQUEST_ERROR).contains(x.type()),
                "the error a Send that found no receive raises at the sender: " + x.type() + " (" + x.getMessage() + ")");
        // ... and later posts are accepted and flushed.
        postSend(pair.active(), 10, 0, 64, SIGNALED);
        assertFlushed(awaitCompletion(pair.active().cq, "a Send posted after the QP failed"), 10, "Send posted in ERROR");
    }

    // ---------------------------------------------------------------- regions

    @Test
    void aRegionReportsItsSegmentRightsAndKeys() {
        ProtectionDomain pd = closeAtEnd(adapter(0).allocateProtectionDomain());
        int access = Access.LOCAL_WRITE | Access.REMOTE_READ;
        MemoryRegion a = closeAtEnd(pd.registerMemory(allocate(4096), access));
        MemoryRegion b = closeAtEnd(pd.registerMemory(allocate(100), Access.REMOTE_READ));
        assertSame(pd, a.pd());
        assertEquals(4096, a.length());
        assertEquals(100, b.length());
        assertEquals(access, a.access());
        assertEquals(a.lkey(), a.rkey(), "lkey and rkey are the same STag");
        assertNotEquals(STag.index(a.rkey()), STag.index(b.rkey()), "two live regions have distinct indices");
        assertTrue(a.isValid());
        Set<Integer> seen = new HashSet<>(List.of(a.rkey(), b.rkey()));
        for (int i = 1; i <= 256; i++) { // a key byte alone would come round again at 256
            int next = a.reregister(Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            assertTrue(seen.add(next), "STag " + STag.format(next) + " after " + i + " reregisters was issued before");
            assertEquals(next, a.lkey());
        }
        assertEquals(Access.LOCAL_WRITE | Access.REMOTE_WRITE, a.access(), "rights after reregister");
        a.close();
        assertFalse(a.isValid(), "a deregistered region is not valid");
        assertTrue(b.isValid(), "deregistering one region leaves the others alone");
    }

    /**
     * More registrations than the old round-robin table had indices (65,535): the rkey of the
     * first, deregistered region must not name any later one, and no STag is issued twice.
     * Any region that did get the stale STag stays registered, so that a wrap shows up as a
     * Write or Read that reaches it.
     */
    @Test
    void theRkeyOfARegionDeregisteredManyRegistrationsAgoReachesNoNewerRegion() {
        int registrations = (1 << 16) + 1;
        ProtectionDomain pd = closeAtEnd(adapter(1).allocateProtectionDomain());
        MemorySegment scratch = allocate(4096);
        MemoryRegion first = pd.registerMemory(scratch, EndpointSpec.FULL_ACCESS);
        int stale = first.rkey();
        first.close();
        int[] issued = new int[registrations + 1];
        issued[0] = stale;
        MemoryRegion newest = null;
        for (int i = 1; i <= registrations; i++) {
            MemoryRegion r = pd.registerMemory(scratch, EndpointSpec.FULL_ACCESS);
            issued[i] = r.rkey();
            if (i == registrations || r.rkey() == stale) {
                newest = closeAtEnd(r);
            } else {
                r.close();
            }
        }
        String what = "the rkey " + STag.format(stale) + " of a region deregistered " + registrations + " registrations ago";
        ConnectedPair writePair = connectedPair(EndpointSpec.defaults(), EndpointSpec.defaults().withPd(pd));
        assertWriteRefused(writePair, newest, 0, stale, what);
        ConnectedPair readPair = connectedPair(EndpointSpec.defaults(), EndpointSpec.defaults().withPd(pd));
        assertReadRefused(readPair, 0, 1024, stale, what);
        Bytes.assertFilled(scratch, 0, scratch.byteSize(), (byte) 0, "memory of the regions registered after the stale one");
        int[] sorted = issued.clone();
        Arrays.sort(sorted);
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i - 1] == sorted[i]) {
                fail("STag " + STag.format(sorted[i]) + " was issued twice in " + issued.length + " registrations");
            }
        }
    }
}

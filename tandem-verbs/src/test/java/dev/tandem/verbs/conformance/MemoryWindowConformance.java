package dev.tandem.verbs.conformance;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.MemoryWindow;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.tandem.verbs.CompletionOpcode.RDMA_READ;
import static dev.tandem.verbs.CompletionStatus.SUCCESS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Type-2 memory windows: bind, zero-based access through the window, its bounds and rights, the
 * QP it is bound to, local invalidate, Send with Invalidate, and bind errors.
 */
public abstract class MemoryWindowConformance extends ConformanceBase {
    /** A window's rights are remote rights (LOCAL_WRITE belongs to the region beneath). */
    private static final int RW = Access.REMOTE_READ | Access.REMOTE_WRITE;
    /** Rights every interpretation accepts on a window: most tests use these, so that they test one thing. */
    private static final int READ = Access.REMOTE_READ;
    private static final long WINDOW_OFFSET = 4096;
    private static final long WINDOW_LENGTH = 8192;

    /** Binds {@code w} through {@code e}'s QP and waits for the successful completion. */
    private void bind(Endpoint e, MemoryWindow w, MemoryRegion r, long offset, long length, int access, int key) {
        e.qp.postSend(new WorkRequest.BindWindow(7000 + key, w, r, offset, length, access, key, SIGNALED));
        assertCompletion(awaitCompletion(e.cq, "the bind of a window to [" + offset + ", +" + length + ")"),
                7000 + key, SUCCESS, CompletionOpcode.BIND_WINDOW, "bind");
        assertTrue(w.isBound(), "a window is bound after its bind completed");
        assertEquals(key, STag.key(w.rkey()), "the window's key is the bind's newKey: " + STag.format(w.rkey()));
    }

    /** Reads {@code length} bytes at window offset {@code remoteOffset} into the active region at {@code localOffset}. */
    private void readOk(Endpoint from, int rkey, long remoteOffset, int length, long localOffset, String what) {
        postRead(from, 701, localOffset, length, remoteOffset, rkey, SIGNALED);
        assertCompletion(awaitCompletion(from.cq, what), 701, SUCCESS, RDMA_READ, what);
    }

    private MemoryWindow boundWindow(ConnectedPair pair, int access, int key) {
        MemoryWindow w = closeAtEnd(pair.passive().pd.allocateMemoryWindow());
        bind(pair.passive(), w, pair.passive().region, WINDOW_OFFSET, WINDOW_LENGTH, access, key);
        return w;
    }

    @Test
    void aNewWindowIsUnbound() {
        ProtectionDomain pd = closeAtEnd(adapter(1).allocateProtectionDomain());
        MemoryWindow w = closeAtEnd(pd.allocateMemoryWindow());
        assertSame(pd, w.pd());
        assertFalse(w.isBound(), "a new window is not bound");
    }

    @Test
    void aBoundWindowExposesItsSliceAtZeroBasedOffsets() {
        ConnectedPair pair = connectedPair();
        MemoryWindow w = boundWindow(pair, READ, 0x42);
        assertNotEquals(pair.passive().region.rkey(), w.rkey(), "a window has its own STag");
        Bytes.fill(pair.passive().mem(), 0, pair.passive().region.length(), 6);
        readOk(pair.active(), w.rkey(), 0, (int) WINDOW_LENGTH, 16384, "a Read of the whole window");
        Bytes.assertPattern(pair.active().mem(), 16384, WINDOW_LENGTH, 6, WINDOW_OFFSET, "the window read from its offset 0");
        readOk(pair.active(), w.rkey(), 100, 1000, 0, "a Read at window offset 100");
        Bytes.assertPattern(pair.active().mem(), 0, 1000, 6, WINDOW_OFFSET + 100, "bytes at window offset 100");
    }

    @Test
    void aWindowWithRemoteWriteTakesWritesAtZeroBasedOffsets() {
        ConnectedPair pair = connectedPair();
        MemoryWindow w = closeAtEnd(pair.passive().pd.allocateMemoryWindow());
        // REMOTE_WRITE on a window needs LOCAL_WRITE on the region beneath (it has it), not on the window.
        bind(pair.passive(), w, pair.passive().region, WINDOW_OFFSET, WINDOW_LENGTH, RW, 9);
        Bytes.fill(pair.active().mem(), 0, 1000, 5);
        postWrite(pair.active(), 1, 0, 1000, 100, w.rkey(), SIGNALED);
        postReceive(pair.passive(), 2, 60000, 8);
        postSend(pair.active(), 3, 0, 8, SIGNALED);
        for (WorkCompletion wc : awaitCompletions(pair.active().cq, 2, "the Write through the window and the notifying Send")) {
            assertEquals(SUCCESS, wc.status(), wc.toString());
        }
        assertReceived(awaitCompletion(pair.passive().cq, "the notifying Send"), 2, 8, pair.passive().qp, "notification");
        Bytes.assertPattern(pair.passive().mem(), WINDOW_OFFSET + 100, 1000, 5, "bytes written at window offset 100");
        Bytes.assertFilled(pair.passive().mem(), 0, WINDOW_OFFSET + 100, (byte) 0, "region before the written range");
        Bytes.assertFilled(pair.passive().mem(), WINDOW_OFFSET + 1100, 50000, (byte) 0, "region after the written range");
    }

    @Test
    void accessBeyondTheWindowIsRefusedEvenInsideTheRegion() {
        ConnectedPair pair = connectedPair();
        MemoryWindow w = boundWindow(pair, READ, 1);
        assertReadRefused(pair, WINDOW_LENGTH - 10, 20, w.rkey(), "a range straddling the window's end");
    }

    @Test
    void theWindowsRightsAreEnforced() {
        ConnectedPair pair = connectedPair();
        MemoryWindow w = boundWindow(pair, Access.REMOTE_READ, 2);
        assertWriteRefused(pair, pair.passive().region, 0, w.rkey(), "a Write through a read-only window");
    }

    @Test
    void aWindowBoundToAnotherQpIsRefused() {
        ConnectedPair a = connectedPair();
        ConnectedPair b = connect(endpoint(0), endpoint(1, EndpointSpec.defaults().withPd(a.passive().pd)));
        MemoryWindow w = closeAtEnd(a.passive().pd.allocateMemoryWindow());
        bind(b.passive(), w, a.passive().region, WINDOW_OFFSET, WINDOW_LENGTH, READ, 3);
        Bytes.fill(a.passive().mem(), WINDOW_OFFSET, WINDOW_LENGTH, 9);
        readOk(b.active(), w.rkey(), 0, 4096, 0, "a Read through the QP the window is bound to");
        Bytes.assertPattern(b.active().mem(), 0, 4096, 9, "bytes read through the window's own QP");
        assertReadRefused(a, 0, 1024, w.rkey(), "a window bound to another QP");
        assertEquals(QpState.RTS, b.passive().qp.state(), "the QP the window is bound to is unaffected");
    }

    @Test
    void localInvalidateRevokesTheWindow() {
        ConnectedPair pair = connectedPair();
        MemoryWindow w = boundWindow(pair, READ, 4);
        int stag = w.rkey();
        readOk(pair.active(), stag, 0, 64, 0, "a Read before the invalidate");
        pair.passive().qp.postSend(new WorkRequest.LocalInvalidate(5, stag, SIGNALED));
        assertCompletion(awaitCompletion(pair.passive().cq, "the local invalidate"), 5, SUCCESS, CompletionOpcode.LOCAL_INVALIDATE,
                "local invalidate");
        assertFalse(w.isBound(), "an invalidated window is not bound");
        assertReadRefused(pair, 0, 64, stag, "an invalidated window");
    }

    @Test
    void rebindingGivesANewKeyAndTheOldOneStopsWorking() {
        ConnectedPair pair = connectedPair();
        MemoryWindow w = boundWindow(pair, READ, 10);
        int old = w.rkey();
        pair.passive().qp.postSend(new WorkRequest.LocalInvalidate(6, old, SIGNALED));
        assertCompletion(awaitCompletion(pair.passive().cq, "the local invalidate"), 6, SUCCESS, CompletionOpcode.LOCAL_INVALIDATE,
                "local invalidate");
        bind(pair.passive(), w, pair.passive().region, 0, 4096, READ, 11);
        assertEquals(STag.index(old), STag.index(w.rkey()), "a type-2 window keeps its index across binds");
        Bytes.fill(pair.passive().mem(), 0, 4096, 13);
        readOk(pair.active(), w.rkey(), 0, 4096, 0, "a Read with the new key");
        Bytes.assertPattern(pair.active().mem(), 0, 4096, 13, "bytes read with the new key");
        Bytes.clear(pair.active().mem(), 0, 4096, (byte) 0);
        assertReadRefused(pair, 0, 64, old, "the key of the previous bind");
    }

    @Test
    void sendWithInvalidateRevokesABoundWindowAndReportsIt() {
        ConnectedPair pair = connectedPair();
        MemoryWindow w = boundWindow(pair, READ, 20);
        int stag = w.rkey();
        postReceive(pair.passive(), 30, 60000, 64);
        Bytes.fill(pair.active().mem(), 0, 32, 14);
        pair.active().qp.postSend(new WorkRequest.SendWithInvalidate(31, List.of(sge(pair.active().region, 0, 32)), stag,
                SIGNALED | WrFlags.SOLICITED));
        assertCompletion(awaitCompletion(pair.active().cq, "the Send with Invalidate's completion"), 31, SUCCESS,
                CompletionOpcode.SEND, "Send with Invalidate");
        WorkCompletion wc = awaitCompletion(pair.passive().cq, "the receive of the Send with Invalidate");
        assertReceived(wc, 30, 32, pair.passive().qp, "receive of a Send with Invalidate");
        assertTrue((wc.flags() & WorkCompletion.FLAG_INVALIDATED) != 0, "FLAG_INVALIDATED: " + wc);
        assertEquals(stag, wc.invalidatedStag(), "the invalidated STag: " + wc);
        assertTrue(wc.isSolicited(), "Send with Solicited Event and Invalidate is solicited: " + wc);
        Bytes.assertPattern(pair.passive().mem(), 60000, 32, 14, "payload of the Send with Invalidate");
        assertFalse(w.isBound(), "a window invalidated by the peer is not bound");
        assertReadRefused(pair, 0, 64, stag, "a window the peer invalidated");
    }

    @Test
    void sendWithInvalidateRevokesARegionAndReportsIt() {
        ConnectedPair pair = connectedPair();
        MemoryRegion extra = register(pair.passive().pd, 4096, EndpointSpec.FULL_ACCESS);
        int stag = extra.rkey();
        postReceive(pair.passive(), 40, 60000, 64);
        pair.active().qp.postSend(new WorkRequest.SendWithInvalidate(41, List.of(sge(pair.active().region, 0, 16)), stag, SIGNALED));
        assertCompletion(awaitCompletion(pair.active().cq, "the Send with Invalidate's completion"), 41, SUCCESS,
                CompletionOpcode.SEND, "Send with Invalidate");
        WorkCompletion wc = awaitCompletion(pair.passive().cq, "the receive of the Send with Invalidate");
        assertReceived(wc, 40, 16, pair.passive().qp, "receive of a Send with Invalidate");
        assertTrue((wc.flags() & WorkCompletion.FLAG_INVALIDATED) != 0, "FLAG_INVALIDATED: " + wc);
        assertEquals(stag, wc.invalidatedStag(), "the invalidated STag: " + wc);
        assertFalse(wc.isSolicited(), "a Send with Invalidate without SOLICITED is not solicited: " + wc);
        assertFalse(extra.isValid(), "a region invalidated by the peer is not valid");
        assertReadRefused(pair, 0, 64, stag, "a region the peer invalidated");
    }

    @Test
    void bindingToARegionWithoutMwBindFailsWithMwBindErr() {
        ConnectedPair pair = connectedPair(EndpointSpec.defaults(),
                EndpointSpec.defaults().withRegion(EndpointSpec.DEFAULT_REGION, Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE));
        MemoryWindow w = closeAtEnd(pair.passive().pd.allocateMemoryWindow());
        pair.passive().qp.postSend(new WorkRequest.BindWindow(50, w, pair.passive().region, 0, 4096, READ, 1, SIGNALED));
        assertCompletion(awaitCompletion(pair.passive().cq, "the bind to a region without MW_BIND"), 50,
                CompletionStatus.MW_BIND_ERR, null, "bind to a region without MW_BIND");
        assertFalse(w.isBound(), "a window whose bind failed is not bound");
        awaitState(pair.passive().qp, QpState.ERROR, "a QP whose bind failed");
    }

    @Test
    void bindingBeyondTheRegionFailsWithMwBindErr() {
        ConnectedPair pair = connectedPair();
        MemoryWindow w = closeAtEnd(pair.passive().pd.allocateMemoryWindow());
        long len = pair.passive().region.length();
        pair.passive().qp.postSend(new WorkRequest.BindWindow(51, w, pair.passive().region, len - 10, 100, READ, 1, SIGNALED));
        assertCompletion(awaitCompletion(pair.passive().cq, "the bind beyond the region's end"), 51,
                CompletionStatus.MW_BIND_ERR, null, "bind beyond the region's end");
        assertFalse(w.isBound(), "a window whose bind failed is not bound");
        awaitState(pair.passive().qp, QpState.ERROR, "a QP whose bind failed");
    }

    // ---------------------------------------------------------------- issue 12: Send with Invalidate of an STag that cannot be, or already is, invalid

    /**
     * Issue 12, row 10: a Send with Invalidate naming an STag the responder never issued (index 0 is
     * never live; a live index with another key is a different STag). The Receive completes
     * REM_INV_REQ_ERR (as siw completes it) without FLAG_INVALIDATED, the responder terminates the
     * connection ("STag cannot be invalidated", a remote operation error: QP_REQUEST_ERROR), and the
     * live region under that index stays valid.
     */
    @Test
    void sendWithInvalidateOfAnStagNeverIssuedCompletesTheReceiveWithRemInvReqErr() {
        ConnectedPair pair = connectedPair();
        assertInvalidateRefused(pair, 0, AsyncEventType.QP_REQUEST_ERROR, "STag 0 (never issued)");

        ConnectedPair second = connectedPair();
        int live = second.passive().region.rkey();
        int otherKey = STag.of(STag.index(live), (STag.key(live) + 1) & 0xFF);
        assertInvalidateRefused(second, otherKey, AsyncEventType.QP_REQUEST_ERROR,
                "STag " + STag.format(otherKey) + " (a live region's index with another key)");
        assertTrue(second.passive().region.isValid(), "the live region under that index is not invalidated");
    }

    /**
     * Issue 12, row 10: an STag of another protection domain is not this connection's to
     * invalidate: REM_INV_REQ_ERR, a remote protection error (QP_ACCESS_ERROR), the region stays valid.
     */
    @Test
    void sendWithInvalidateOfAnotherPdsRegionIsRefused() {
        ConnectedPair pair = connectedPair();
        ProtectionDomain otherPd = closeAtEnd(pair.passive().device.allocateProtectionDomain());
        MemoryRegion other = register(otherPd, 4096, EndpointSpec.FULL_ACCESS);
        assertInvalidateRefused(pair, other.rkey(), AsyncEventType.QP_ACCESS_ERROR, "a region of another PD");
        assertTrue(other.isValid(), "a region of another PD is not invalidated");
    }

    /** Issue 12, row 10: a window bound to another QP of the same PD is refused as a protection error; it stays bound. */
    @Test
    void sendWithInvalidateOfAWindowBoundToAnotherQpIsRefused() {
        ConnectedPair a = connectedPair();
        ConnectedPair b = connect(endpoint(0), endpoint(1, EndpointSpec.defaults().withPd(a.passive().pd)));
        MemoryWindow w = closeAtEnd(a.passive().pd.allocateMemoryWindow());
        bind(b.passive(), w, a.passive().region, WINDOW_OFFSET, WINDOW_LENGTH, READ, 12);
        assertInvalidateRefused(a, w.rkey(), AsyncEventType.QP_ACCESS_ERROR, "a window bound to another QP");
        assertTrue(w.isBound(), "a window bound to another QP stays bound");
        Bytes.fill(a.passive().mem(), WINDOW_OFFSET, 64, 3);
        readOk(b.active(), w.rkey(), 0, 64, 0, "a Read through the window's own QP after the refused invalidate");
        Bytes.assertPattern(b.active().mem(), 0, 64, 3, "bytes read through the window");
    }

    /**
     * Issue 12, row 11: invalidating an STag that is already invalid is allowed by the verbs (siw
     * does not check the state; Local Invalidate accepts it too): a window invalidated locally, then
     * by the peer, completes the Receive SUCCESS with FLAG_INVALIDATED and the STag, and the
     * connection goes on.
     */
    @Test
    void sendWithInvalidateOfAnAlreadyInvalidWindowSucceeds() {
        ConnectedPair pair = connectedPair();
        MemoryWindow w = boundWindow(pair, READ, 21);
        int stag = w.rkey();
        pair.passive().qp.postSend(new WorkRequest.LocalInvalidate(8, stag, SIGNALED));
        assertCompletion(awaitCompletion(pair.passive().cq, "the local invalidate"), 8, SUCCESS, CompletionOpcode.LOCAL_INVALIDATE,
                "local invalidate");
        assertFalse(w.isBound(), "an invalidated window is not bound");
        assertInvalidated(pair, 81, stag, "a window already invalidated locally");
        assertFalse(w.isBound(), "the window stays unbound");
        assertInvalidated(pair, 83, stag, "the same window once more");
        assertConnectionLives(pair, "two invalidations of an invalid window");
    }

    /** Issue 12, row 11: a region the peer invalidated may be invalidated again. */
    @Test
    void sendWithInvalidateOfAnAlreadyInvalidRegionSucceeds() {
        ConnectedPair pair = connectedPair();
        MemoryRegion extra = register(pair.passive().pd, 4096, EndpointSpec.FULL_ACCESS);
        int stag = extra.rkey();
        assertInvalidated(pair, 85, stag, "a valid region");
        assertFalse(extra.isValid(), "a region invalidated by the peer is not valid");
        assertInvalidated(pair, 87, stag, "the region already invalidated");
        assertFalse(extra.isValid(), "the region stays invalid");
        assertConnectionLives(pair, "two invalidations of one region");
    }

    /** The passive side's Receive {@code recvWrId} of a 32-byte Send with Invalidate of {@code stag} (wrId recvWrId + 1). */
    private WorkCompletion sendWithInvalidate(ConnectedPair pair, long recvWrId, int stag) {
        postReceive(pair.passive(), recvWrId, 60000, 64);
        Bytes.fill(pair.active().mem(), 0, 32, 14);
        pair.active().qp.postSend(new WorkRequest.SendWithInvalidate(recvWrId + 1, List.of(sge(pair.active().region, 0, 32)), stag,
                SIGNALED));
        return awaitCompletion(pair.passive().cq, "the Receive of a Send with Invalidate of " + STag.format(stag));
    }

    private void assertInvalidated(ConnectedPair pair, long recvWrId, int stag, String what) {
        WorkCompletion wc = sendWithInvalidate(pair, recvWrId, stag);
        assertReceived(wc, recvWrId, 32, pair.passive().qp, "Send with Invalidate of " + what);
        assertTrue((wc.flags() & WorkCompletion.FLAG_INVALIDATED) != 0, "FLAG_INVALIDATED for " + what + ": " + wc);
        assertEquals(stag, wc.invalidatedStag(), "the invalidated STag, for " + what + ": " + wc);
        Bytes.assertPattern(pair.passive().mem(), 60000, 32, 14, "payload of the Send with Invalidate of " + what);
        assertCompletion(awaitCompletion(pair.active().cq, "the Send with Invalidate's completion"), recvWrId + 1, SUCCESS,
                CompletionOpcode.SEND, "Send with Invalidate of " + what);
    }

    /**
     * A Send with Invalidate of {@code stag} that the responder must refuse: its Receive completes
     * REM_INV_REQ_ERR (the payload may have been placed, nothing is invalidated), both QPs fail and
     * the responder raises {@code event}.
     */
    private void assertInvalidateRefused(ConnectedPair pair, int stag, AsyncEventType event, String what) {
        WorkCompletion wc = sendWithInvalidate(pair, 80, stag);
        assertCompletion(wc, 80, CompletionStatus.REM_INV_REQ_ERR, CompletionOpcode.RECV, "Send with Invalidate of " + what);
        assertEquals(0, wc.flags() & WorkCompletion.FLAG_INVALIDATED, "no FLAG_INVALIDATED for " + what + ": " + wc);
        awaitState(pair.passive().qp, QpState.ERROR, "the responder after a Send with Invalidate of " + what);
        awaitState(pair.active().qp, QpState.ERROR, "the requester after a Send with Invalidate of " + what);
        awaitAsyncEvent(pair.passive().device, event, pair.passive().qp);
        WorkCompletion send = awaitCompletion(pair.active().cq, "the refused Send with Invalidate's completion");
        assertEquals(81, send.wrId(), send.toString());
        // iWARP completes a Send locally; the Terminate may arrive after it (SUCCESS) or be reported on it.
        assertTrue(java.util.Set.of(SUCCESS, CompletionStatus.REM_INV_REQ_ERR, CompletionStatus.REM_ACCESS_ERR,
                CompletionStatus.WR_FLUSH_ERR).contains(send.status()), "status of a refused Send with Invalidate: " + send);
    }

    /** A Send each way still arrives, and both QPs are in RTS. */
    private void assertConnectionLives(ConnectedPair pair, String after) {
        postReceive(pair.passive(), 90, 61000, 64);
        postReceive(pair.active(), 91, 61000, 64);
        postSend(pair.active(), 92, 0, 16, SIGNALED);
        postSend(pair.passive(), 93, 0, 16, SIGNALED);
        for (WorkCompletion wc : awaitCompletions(pair.active().cq, 2, "the active side's Send and Receive after " + after)) {
            assertEquals(SUCCESS, wc.status(), after + ": " + wc);
        }
        for (WorkCompletion wc : awaitCompletions(pair.passive().cq, 2, "the passive side's Send and Receive after " + after)) {
            assertEquals(SUCCESS, wc.status(), after + ": " + wc);
        }
        assertEquals(QpState.RTS, pair.active().qp.state(), "the requester after " + after);
        assertEquals(QpState.RTS, pair.passive().qp.state(), "the responder after " + after);
    }
}

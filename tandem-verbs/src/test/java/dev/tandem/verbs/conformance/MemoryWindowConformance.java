package dev.tandem.verbs.conformance;

import dev.tandem.verbs.Access;
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
}

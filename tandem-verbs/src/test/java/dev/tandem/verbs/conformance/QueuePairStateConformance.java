package dev.tandem.verbs.conformance;

import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.tandem.verbs.CompletionOpcode.SEND;
import static dev.tandem.verbs.CompletionStatus.SUCCESS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** QP states: creation, connect, moves to ERROR / RESET / SQD, illegal moves, flushes, disconnect and close. */
public abstract class QueuePairStateConformance extends ConformanceBase {

    @Test
    void aNewQpIsInInitWithItsConfiguration() {
        ProtectionDomain pd = closeAtEnd(adapter(0).allocateProtectionDomain());
        CompletionQueue send = closeAtEnd(adapter(0).createCompletionQueue(64));
        CompletionQueue recv = closeAtEnd(adapter(0).createCompletionQueue(64));
        QueuePairConfig config = new QueuePairConfig(send, recv, null, 32, 16, 2, 3, 64, 4, 4, false);
        QueuePair a = closeAtEnd(pd.createQueuePair(config));
        QueuePair b = closeAtEnd(pd.createQueuePair(config));
        assertEquals(QpState.INIT, a.state(), "a new QP's state");
        assertNotEquals(a.qpNumber(), b.qpNumber(), "QPs of one adapter have distinct numbers");
        assertSame(pd, a.pd());
        assertSame(send, a.config().sendCq());
        assertSame(recv, a.config().receiveCq());
        assertTrue(a.config().sendDepth() >= 32 && a.config().receiveDepth() >= 16, "depths at least as asked: " + a.config());
        assertTrue(a.config().maxSendSge() >= 2 && a.config().maxReceiveSge() >= 3, "SGE limits at least as asked: " + a.config());
    }

    @Test
    void receivesMayBePostedInInitAndAreFlushedByAMoveToError() {
        Endpoint e = endpoint(0);
        postReceive(e, 1, 0, 64);
        postReceive(e, 2, 64, 64);
        postReceive(e, 3, 128, 64);
        e.qp.modify(QpState.ERROR);
        assertEquals(QpState.ERROR, e.qp.state());
        List<WorkCompletion> wcs = awaitCompletions(e.cq, 3, "three receives flushed by the move to ERROR");
        for (int i = 0; i < 3; i++) {
            assertFlushed(wcs.get(i), i + 1, "receive " + (i + 1) + " (flushed in posting order)");
            assertEquals(e.qp.qpNumber(), wcs.get(i).qpNumber(), "qpNumber of a flushed receive");
        }
    }

    @Test
    void connectingMovesBothQpsToRts() {
        Endpoint a = endpoint(0);
        Endpoint p = endpoint(1);
        assertEquals(QpState.INIT, a.qp.state());
        assertEquals(QpState.INIT, p.qp.state());
        connect(a, p);
        assertEquals(QpState.RTS, a.qp.state());
        assertEquals(QpState.RTS, p.qp.state());
    }

    @Test
    void moveToErrorFlushesEverythingAndFailsThePeer() {
        ConnectedPair pair = connectedPair();
        postReceive(pair.passive(), 1, 0, 64);
        postReceive(pair.passive(), 2, 64, 64);
        postReceive(pair.active(), 3, 0, 64);
        pair.passive().qp.modify(QpState.ERROR);
        assertEquals(QpState.ERROR, pair.passive().qp.state());
        List<WorkCompletion> flushed = awaitCompletions(pair.passive().cq, 2, "the passive side's flushed receives");
        assertFlushed(flushed.get(0), 1, "first receive");
        assertFlushed(flushed.get(1), 2, "second receive");
        awaitState(pair.active().qp, QpState.ERROR, "the peer of a QP moved to ERROR");
        assertFlushed(awaitCompletion(pair.active().cq, "the peer's flushed receive"), 3, "the peer's receive");

        postSend(pair.passive(), 4, 0, 64, SIGNALED);
        assertFlushed(awaitCompletion(pair.passive().cq, "a Send posted in ERROR"), 4, "Send posted in ERROR");
        postWrite(pair.passive(), 5, 0, 64, 0, pair.passive().peerRkey(), SIGNALED);
        assertFlushed(awaitCompletion(pair.passive().cq, "a Write posted in ERROR"), 5, "Write posted in ERROR");
        postReceive(pair.passive(), 6, 0, 64);
        assertFlushed(awaitCompletion(pair.passive().cq, "a receive posted in ERROR"), 6, "receive posted in ERROR");
        Bytes.assertFilled(pair.active().mem(), 0, pair.active().region.length(), (byte) 0, "nothing reached the peer");
    }

    @Test
    void illegalMovesThrowInvalidStateNamingBothStates() {
        Endpoint e = endpoint(0);
        for (QpState target : List.of(QpState.SQD, QpState.RTS, QpState.SQE)) {
            InvalidStateException x = assertThrows(InvalidStateException.class, () -> e.qp.modify(target), "INIT -> " + target);
            assertTrue(x.getMessage().contains("INIT") && x.getMessage().contains(target.name()),
                    "message names INIT and " + target + ": " + x.getMessage());
            assertEquals(QpState.INIT, e.qp.state(), "an illegal move leaves the state alone");
        }
        ConnectedPair pair = connectedPair();
        for (QpState target : List.of(QpState.INIT, QpState.RTR, QpState.SQE)) {
            InvalidStateException x = assertThrows(InvalidStateException.class, () -> pair.active().qp.modify(target), "RTS -> " + target);
            assertTrue(x.getMessage().contains("RTS") && x.getMessage().contains(target.name()),
                    "message names RTS and " + target + ": " + x.getMessage());
            assertEquals(QpState.RTS, pair.active().qp.state(), "an illegal move leaves the state alone");
        }
        pair.active().qp.modify(QpState.ERROR);
        InvalidStateException x = assertThrows(InvalidStateException.class, () -> pair.active().qp.modify(QpState.RTS), "ERROR -> RTS");
        assertTrue(x.getMessage().contains("ERROR") && x.getMessage().contains("RTS"), "message names ERROR and RTS: " + x.getMessage());
    }

    @Test
    void resetAfterErrorAllowsTheQpToBeConnectedAgain() {
        ConnectedPair first = connectedPair();
        QueuePair qp = first.active().qp;
        qp.modify(QpState.ERROR);
        awaitState(first.passive().qp, QpState.ERROR, "the peer of a QP moved to ERROR");
        qp.modify(QpState.RESET);
        assertEquals(QpState.RESET, qp.state());
        InvalidStateException x = assertThrows(InvalidStateException.class, () -> postReceive(first.active(), 1, 0, 64),
                "postReceive in RESET");
        assertTrue(x.getMessage().contains("RESET"), "message names RESET: " + x.getMessage());
        qp.modify(QpState.INIT);
        assertEquals(QpState.INIT, qp.state());
        Endpoint passive = endpoint(1);
        connect(first.active(), passive);
        postReceive(passive, 2, 0, 64);
        Bytes.fill(first.active().mem(), 0, 64, 8);
        postSend(first.active(), 3, 0, 64, SIGNALED);
        // The CQ may still hold completions from the first connection; look for this Send's.
        WorkCompletion sent = awaitCompletion(first.active().cq, "the Send on the reconnected QP");
        assertEquals(3, sent.wrId(), "no completion from the first connection surfaces after RESET: " + sent);
        assertEquals(SUCCESS, sent.status(), sent.toString());
        assertReceived(awaitCompletion(passive.cq, "the receive on the new peer"), 2, 64, passive.qp, "receive");
        Bytes.assertPattern(passive.mem(), 0, 64, 8, "bytes over the reconnected QP");
    }

    @Test
    void sqdDrainsAndReturnsToRts() {
        assumeTrue(provider().supportsSqd(), provider().name() + " does not implement SQD");
        ConnectedPair pair = connectedPair();
        postReceive(pair.passive(), 1, 0, 64);
        postReceive(pair.passive(), 2, 64, 64);
        postSend(pair.active(), 10, 0, 64, SIGNALED);
        pair.active().qp.modify(QpState.SQD);
        awaitAsyncEvent(pair.active().device, AsyncEventType.SQ_DRAINED, pair.active().qp);
        assertEquals(QpState.SQD, pair.active().qp.state(), "state after the drain");
        assertCompletion(awaitCompletion(pair.active().cq, "the Send posted before SQD"), 10, SUCCESS, SEND, "Send before SQD");
        pair.active().qp.modify(QpState.RTS);
        assertEquals(QpState.RTS, pair.active().qp.state());
        postSend(pair.active(), 11, 0, 64, SIGNALED);
        assertCompletion(awaitCompletion(pair.active().cq, "a Send after SQD -> RTS"), 11, SUCCESS, SEND, "Send after SQD");
        awaitCompletions(pair.passive().cq, 2, "both receives");
    }

    @Test
    void disconnectFlushesBothSidesAndTellsThePeer() {
        ConnectedPair pair = connectedPair();
        postReceive(pair.active(), 1, 0, 64);
        postReceive(pair.passive(), 2, 0, 64);
        pair.active().qp.disconnect();
        awaitState(pair.active().qp, QpState.ERROR, "the QP that disconnected");
        awaitState(pair.passive().qp, QpState.ERROR, "the peer of a QP that disconnected");
        assertFlushed(awaitCompletion(pair.active().cq, "the disconnected QP's flushed receive"), 1, "receive at the side that disconnected");
        assertFlushed(awaitCompletion(pair.passive().cq, "the peer's flushed receive"), 2, "receive at the peer");
        awaitAsyncEvent(pair.passive().device, AsyncEventType.DISCONNECTED, pair.passive().qp);
        postSend(pair.active(), 3, 0, 64, SIGNALED);
        assertFlushed(awaitCompletion(pair.active().cq, "a Send posted after disconnect"), 3, "Send after disconnect");
        postSend(pair.passive(), 4, 0, 64, SIGNALED);
        assertFlushed(awaitCompletion(pair.passive().cq, "a Send posted at the peer after disconnect"), 4, "peer's Send after disconnect");
    }

    @Test
    void closingAConnectedQpFailsThePeer() {
        ConnectedPair pair = connectedPair();
        postReceive(pair.passive(), 2, 0, 64);
        pair.active().qp.close();
        awaitState(pair.passive().qp, QpState.ERROR, "the peer of a closed QP");
        assertFlushed(awaitCompletion(pair.passive().cq, "the peer's flushed receive"), 2, "receive at the peer");
        awaitAnyAsyncEvent(pair.passive().device, pair.passive().qp, AsyncEventType.DISCONNECTED, AsyncEventType.QP_FATAL);
    }

    @Test
    void closingAnAdapterFailsThePeersQps() {
        ConnectedPair pair = connectedPair();
        postReceive(pair.passive(), 2, 0, 64);
        // The active endpoint's resources are still open: a strict provider closes them and says so.
        DeviceConformance.closeReportingLeaks(pair.active().device, "ConformanceBase.endpoint");
        awaitState(pair.passive().qp, QpState.ERROR, "the peer of a QP whose adapter closed");
        assertFlushed(awaitCompletion(pair.passive().cq, "the peer's flushed receive"), 2, "receive at the peer");
        awaitAnyAsyncEvent(pair.passive().device, pair.passive().qp, AsyncEventType.DISCONNECTED, AsyncEventType.QP_FATAL);
    }

    @Test
    void sendsInFlightWhenTheQpFailsCompleteAndNothingIsLost() {
        ConnectedPair pair = connectedPair();
        int n = 64;
        for (int i = 0; i < n; i++) {
            postReceive(pair.passive(), 1000 + i, 0, 1024);
        }
        for (int i = 0; i < n; i++) {
            postSend(pair.active(), i, 0, 1024, SIGNALED);
        }
        pair.active().qp.modify(QpState.ERROR);
        // Every request gets exactly one completion, in order: some SUCCESS, then only flushes.
        List<WorkCompletion> wcs = awaitCompletions(pair.active().cq, n, n + " Sends, completed or flushed");
        boolean flushing = false;
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs.get(i);
            assertEquals(i, wc.wrId(), "completions in posting order: " + wc);
            if (wc.status() == SUCCESS) {
                assertFalse(flushing, "a SUCCESS after a flush: " + wc);
            } else {
                assertEquals(CompletionStatus.WR_FLUSH_ERR, wc.status(), wc.toString());
                flushing = true;
            }
        }
    }

    // ---------------------------------------------------------------- local errors and the end of a connection

    @Test
    void aSendFromARegionDeregisteredBeforeItIsTransmittedIsALocalProtectionErrorAndSendsNothing() {
        ConnectedPair pair = connectedPair();
        MemoryRegion source = register(pair.active().pd, 4096, EndpointSpec.FULL_ACCESS);
        Bytes.fill(source.segment(), 0, 256, 44);
        postReceive(pair.passive(), 1, 0, 256);
        // SQD holds the Send in the send queue: nothing of it is transmitted before the region goes
        pair.active().qp.modify(QpState.SQD);
        awaitAsyncEvent(pair.active().device, AsyncEventType.SQ_DRAINED, pair.active().qp);
        pair.active().qp.postSend(new WorkRequest.Send(2, sge(source, 0, 256), SIGNALED));
        source.close();
        pair.active().qp.modify(QpState.RTS);
        WorkCompletion wc = awaitCompletion(pair.active().cq, "the Send whose region was deregistered before it was transmitted");
        assertEquals(2, wc.wrId(), wc.toString());
        assertEquals(CompletionStatus.LOC_PROT_ERR, wc.status(), "a Send gathering from a deregistered region: " + wc);
        awaitState(pair.active().qp, QpState.ERROR, "the QP whose Send failed locally");
        awaitAsyncEvent(pair.active().device, AsyncEventType.QP_FATAL, pair.active().qp);
        assertFlushed(awaitCompletion(pair.passive().cq, "the peer's receive, flushed when the connection ends"), 1,
                "the receive the refused Send was for");
        Bytes.assertFilled(pair.passive().mem(), 0, 256, (byte) 0, "the peer's receive buffer: not a byte of the refused Send arrived");
    }

    /** An entry of no bytes names no memory: a region given back behind it does not fail the Send (siw skips such entries too). */
    @Test
    void aZeroLengthEntryInARegionDeregisteredBeforeTheSendIsTransmittedIsSkipped() {
        ConnectedPair pair = connectedPair();
        MemoryRegion gone = register(pair.active().pd, 4096, EndpointSpec.FULL_ACCESS);
        MemoryRegion source = register(pair.active().pd, 4096, EndpointSpec.FULL_ACCESS);
        Bytes.fill(source.segment(), 0, 256, 45);
        postReceive(pair.passive(), 1, 0, 256);
        pair.active().qp.modify(QpState.SQD);
        awaitAsyncEvent(pair.active().device, AsyncEventType.SQ_DRAINED, pair.active().qp);
        pair.active().qp.postSend(new WorkRequest.Send(2, List.of(sge(gone, 0, 0), sge(source, 0, 256)), SIGNALED));
        gone.close();
        pair.active().qp.modify(QpState.RTS);
        assertCompletion(awaitCompletion(pair.active().cq, "the Send with an empty entry in a deregistered region"), 2,
                SUCCESS, CompletionOpcode.SEND, "a Send whose only given-back entry holds no bytes");
        WorkCompletion r = awaitCompletion(pair.passive().cq, "the peer's receive");
        assertCompletion(r, 1, SUCCESS, CompletionOpcode.RECV, "the receive of the Send");
        assertEquals(256, r.byteLength(), r.toString());
        Bytes.assertPattern(pair.passive().mem(), 0, 256, 45, "the Send's bytes, all from its second entry");
        assertEquals(QpState.RTS, pair.active().qp.state());
    }

    @Test
    void aFailedLocalInvalidateCompletesInErrorAndRaisesQpFatal() {
        ConnectedPair pair = connectedPair();
        int neverIssued = pair.active().region.lkey() ^ 0x33;
        pair.active().qp.postSend(new WorkRequest.LocalInvalidate(3, neverIssued, SIGNALED));
        WorkCompletion wc = awaitCompletion(pair.active().cq, "the Local Invalidate of an STag never issued");
        assertCompletion(wc, 3, CompletionStatus.LOC_PROT_ERR, CompletionOpcode.LOCAL_INVALIDATE, "Local Invalidate of " + STag.format(neverIssued));
        // a local error is QP_FATAL; QP_REQUEST_ERROR would name an invalid request of the peer
        AsyncEvent fatal = awaitAsyncEvent(pair.active().device, AsyncEventType.QP_FATAL, pair.active().qp);
        AsyncEvent end = awaitAsyncEvent(pair.active().device, AsyncEventType.DISCONNECTED, pair.active().qp);
        assertEventOrder(pair.active().device, fatal, end);
        assertNoAsyncEvent(pair.active().device, AsyncEventType.QP_REQUEST_ERROR, pair.active().qp, "the failed operation was local");
    }

    @Test
    void aConnectionEndedByATerminateEndsWithDisconnectedAfterTheErrorEventOnBothSides() {
        ConnectedPair pair = connectedPair();
        armFlushWitnesses(pair);
        postWrite(pair.active(), 4, 0, 64, 0, pair.active().peerRkey() ^ 0x33, SIGNALED);
        awaitState(pair.active().qp, QpState.ERROR, "the requester, after the peer's Terminate");
        awaitState(pair.passive().qp, QpState.ERROR, "the responder, after its Terminate");
        for (Endpoint e : List.of(pair.active(), pair.passive())) {
            AsyncEvent error = awaitAsyncEvent(e.device, AsyncEventType.QP_ACCESS_ERROR, e.qp);
            AsyncEvent end = awaitAsyncEvent(e.device, AsyncEventType.DISCONNECTED, e.qp);
            assertEventOrder(e.device, error, end);
        }
    }
}

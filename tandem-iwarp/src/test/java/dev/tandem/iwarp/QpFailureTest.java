package dev.tandem.iwarp;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.QpFailure.Kind;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link QueuePair#failure()} on both QPs of a pair, one test per cause: what the fail-over layer reads
 * to move a connection to another adapter (TRANSPORT) or to give the application the plain verbs
 * behaviour (every other kind). The failure is empty before ERROR, set as soon as the QP is seen in
 * ERROR or a flushed completion is polled, and empty again once the QP is moved to RESET.
 */
@Timeout(60)
class QpFailureTest {
    private static final int SIZE = 1 << 16;
    /** A STag key the pair's regions do not carry: flips bits of the 8-bit key only. */
    private static final int WRONG_KEY = 0x33;

    // ---------------------------------------------------------------- helpers

    private static void assertNoFailure(QueuePair qp, String which) {
        assertThat(qp.failure()).as(which + " in " + qp.state() + ": failure()").isEmpty();
    }

    /**
     * Waits for {@code qp} to reach ERROR and checks the failure it tells then: read right after the
     * state, so a failure published after the state would show here as empty.
     */
    private static QpFailure assertFailure(QueuePair qp, Kind kind, String which) {
        LoopbackPair.awaitState(qp, QpState.ERROR, which);
        Optional<QpFailure> f = qp.failure();
        assertThat(f).as(which + ": failure() once the QP is in ERROR").isPresent();
        assertThat(f.get().kind()).as(which + ": kind of " + f.get()).isEqualTo(kind);
        assertThat(f.get().detail()).as(which + ": detail of " + f.get()).isNotBlank();
        return f.get();
    }

    /** Moves {@code qp} (in ERROR) to RESET: the failure is gone with the connection. */
    private static void assertClearedByReset(QueuePair qp, String which) {
        qp.modify(QpState.RESET);
        assertThat(qp.state()).isEqualTo(QpState.RESET);
        assertNoFailure(qp, which + " moved to RESET");
    }

    private static void assertClearedByReset(LoopbackPair p) {
        assertClearedByReset(p.qpA, "QP A");
        assertClearedByReset(p.qpB, "QP B");
    }

    /** Both QPs of a fresh pair: connected, in RTS, no failure. */
    private static LoopbackPair connectedPair() throws Exception {
        return connectedPair(new LoopbackPair(c -> c, SIZE));
    }

    private static LoopbackPair connectedPair(LoopbackPair p) {
        assertThat(p.qpA.state()).isEqualTo(QpState.RTS);
        assertThat(p.qpB.state()).isEqualTo(QpState.RTS);
        assertNoFailure(p.qpA, "QP A");
        assertNoFailure(p.qpB, "QP B");
        return p;
    }

    /** Polls {@code cq} (bounded) for the completion of {@code wrId}, skipping others; the polled copy. */
    private static WorkCompletion awaitCompletion(CompletionQueue cq, long wrId) {
        while (true) {
            WorkCompletion wc = LoopbackPair.awaitOne(cq);
            if (wc.wrId() == wrId) {
                return new WorkCompletion().copyFrom(wc);
            }
        }
    }

    // ---------------------------------------------------------------- the transport broke

    @Test
    void aResetConnectionIsATransportFailureOnBothSides() throws Exception {
        try (LoopbackPair p = connectedPair()) {
            assertThat(p.a.resetConnections()).isEqualTo(1);

            assertThat(assertFailure(p.qpA, Kind.TRANSPORT, "QP A, whose adapter reset the connection").detail())
                    .isEqualTo("connection lost: connection reset (injected)");
            assertThat(assertFailure(p.qpB, Kind.TRANSPORT, "QP B, whose connection was reset").detail())
                    .startsWith("connection lost: ").containsIgnoringCase("reset");
            assertClearedByReset(p);
        }
    }

    @Test
    void aFatalAdapterErrorIsATransportFailureAndItsPeerSeesTheConnectionReset() throws Exception {
        try (LoopbackPair p = connectedPair()) {
            p.a.injectFatalError("test: PCI error");

            assertThat(assertFailure(p.qpA, Kind.TRANSPORT, "QP A on the failed adapter").detail())
                    .isEqualTo("adapter " + p.a.name() + " failed: injected: test: PCI error");
            QpFailure peer = assertFailure(p.qpB, Kind.TRANSPORT, "QP B, the peer of the failed adapter (a reset, not an orderly close)");
            assertThat(peer.detail()).startsWith("connection lost: ").containsIgnoringCase("reset");
            // the failed adapter refuses every verb until its reset (which releases QP A): only B moves to RESET
            assertClearedByReset(p.qpB, "QP B");
        }
    }

    // ---------------------------------------------------------------- the consumer ended it

    @Test
    void anOrderlyDisconnectIsTheConsumersHereAndPeerClosedThere() throws Exception {
        try (LoopbackPair p = connectedPair()) {
            p.qpA.disconnect();

            assertThat(assertFailure(p.qpA, Kind.CONSUMER, "QP A, which disconnected").detail())
                    .isEqualTo("QP " + p.qpA.qpNumber() + " disconnected by the consumer");
            assertThat(assertFailure(p.qpB, Kind.PEER_CLOSED, "QP B, whose peer disconnected").detail())
                    .isEqualTo("peer closed the connection");
            assertClearedByReset(p);
        }
    }

    @Test
    void aConsumersMoveToErrorIsTheConsumersHereAndPeerClosedThere() throws Exception {
        try (LoopbackPair p = connectedPair()) {
            p.qpA.modify(QpState.ERROR);

            assertThat(assertFailure(p.qpA, Kind.CONSUMER, "QP A, moved to ERROR by its consumer").detail())
                    .isEqualTo("consumer moved QP " + p.qpA.qpNumber() + " to ERROR");
            assertThat(assertFailure(p.qpB, Kind.PEER_CLOSED, "QP B, whose peer was moved to ERROR").detail())
                    .isEqualTo("peer closed the connection");
            assertClearedByReset(p);
        }
    }

    // ---------------------------------------------------------------- the peer refused the work

    @Test
    void anRdmaWriteWithABadRkeyIsARemoteErrorAtTheWriterAndALocalErrorAtTheTarget() throws Exception {
        try (LoopbackPair p = connectedPair()) {
            int badRkey = p.mrB.rkey() ^ WRONG_KEY;
            p.qpA.postSend(new WorkRequest.RdmaWrite(1, new Sge(p.mrA, 0, 64), 0, badRkey, WrFlags.SIGNALED));

            assertThat(assertFailure(p.qpA, Kind.REMOTE_ERROR, "QP A, the writer").detail())
                    .startsWith("peer sent Terminate ").contains("INVALID_STAG");
            assertThat(assertFailure(p.qpB, Kind.LOCAL_ERROR, "QP B, the target").detail())
                    .contains(dev.tandem.verbs.STag.format(badRkey));
            assertClearedByReset(p);
        }
    }

    @Test
    void aSendWithNoReceivePostedIsARemoteErrorAtTheSenderAndALocalErrorAtTheReceiver() throws Exception {
        try (LoopbackPair p = connectedPair()) {
            p.qpA.postSend(new WorkRequest.Send(1, new Sge(p.mrA, 0, 64), WrFlags.SIGNALED));

            assertThat(assertFailure(p.qpA, Kind.REMOTE_ERROR, "QP A, the sender").detail())
                    .startsWith("peer sent Terminate ").contains("NO_BUFFER");
            assertThat(assertFailure(p.qpB, Kind.LOCAL_ERROR, "QP B, the receiver").detail())
                    .contains("no receive buffer is posted");
            assertClearedByReset(p);
        }
    }

    // ---------------------------------------------------------------- this side's own work failed

    /** A fault of QP A's own work, found by A alone. */
    enum LocalFault {
        /** Two signalled Sends completing into a CQ with room for one. */
        CQ_OVERFLOW,
        /** A Send whose region is deregistered after it was posted, before it went out. */
        GATHER_FROM_DEREGISTERED_REGION,
        /** A Local Invalidate of its region's STag with a key the adapter never issued. */
        REFUSED_LOCAL_INVALIDATE
    }

    @ParameterizedTest
    @EnumSource(LocalFault.class)
    void aFaultOfThisSidesOwnWorkIsALocalErrorHereAndPeerClosedThere(LocalFault fault) throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, SIZE);
             CompletionQueue small = p.a.createCompletionQueue(1)) {
            // closed by the GATHER_FROM_DEREGISTERED_REGION case, by the finally block otherwise (closing is idempotent)
            MemoryRegion extra = p.pdA.registerMemory(p.arena.allocate(4096, 64), Access.LOCAL_WRITE);
            QueuePair a = p.pdA.createQueuePair(QueuePairConfig.of(fault == LocalFault.CQ_OVERFLOW ? small : p.cqA));
            QueuePair b = p.pdB.createQueuePair(QueuePairConfig.of(p.cqB));
            try {
                p.connect(a, b);
                assertNoFailure(a, "QP A");
                assertNoFailure(b, "QP B");
                String detail = switch (fault) {
                    case CQ_OVERFLOW -> {
                        b.postReceive(new ReceiveRequest(1, new Sge(p.mrB, 0, 64)));
                        b.postReceive(new ReceiveRequest(2, new Sge(p.mrB, 64, 64)));
                        a.postSend(new WorkRequest.Send(3, new Sge(p.mrA, 0, 64), WrFlags.SIGNALED));
                        a.postSend(new WorkRequest.Send(4, new Sge(p.mrA, 64, 64), WrFlags.SIGNALED));
                        yield "send completion queue overflowed";
                    }
                    case GATHER_FROM_DEREGISTERED_REGION -> {
                        b.postReceive(new ReceiveRequest(1, new Sge(p.mrB, 0, 64)));
                        p.a.linkDown();
                        a.postSend(new WorkRequest.Send(3, new Sge(extra, 0, 64), WrFlags.SIGNALED));
                        extra.close();
                        p.a.linkUp();
                        yield "Send wrId 3 gathers from a region deregistered after it was posted: local protection error";
                    }
                    case REFUSED_LOCAL_INVALIDATE -> {
                        a.postSend(new WorkRequest.LocalInvalidate(3, p.mrA.lkey() ^ WRONG_KEY, WrFlags.SIGNALED));
                        yield "local LocalInvalidate wrId 3 failed: " + CompletionStatus.LOC_PROT_ERR;
                    }
                };

                assertThat(assertFailure(a, Kind.LOCAL_ERROR, "QP A, whose own work failed (" + fault + ")").detail()).isEqualTo(detail);
                assertThat(assertFailure(b, Kind.PEER_CLOSED, "QP B, whose peer dropped the connection after its local fault").detail())
                        .isEqualTo("peer closed the connection");
                assertClearedByReset(a, "QP A");
                assertClearedByReset(b, "QP B");
            } finally {
                a.close();
                b.close();
                extra.close();
            }
        }
    }

    // ---------------------------------------------------------------- a poller learns why with the flush

    /** A failure the engine thread of adapter A finds while the test thread polls A's CQ. */
    enum EngineFound {
        PEER_DISCONNECTED(Kind.PEER_CLOSED),
        PEER_RESET_THE_CONNECTION(Kind.TRANSPORT),
        PEER_REFUSED_A_WRITE(Kind.REMOTE_ERROR),
        PEER_WROTE_WITH_A_BAD_RKEY(Kind.LOCAL_ERROR);

        final Kind kind;

        EngineFound(Kind kind) {
            this.kind = kind;
        }
    }

    /**
     * The engine thread moves QP A to ERROR and flushes its Receive; the test thread, polling A's CQ
     * (which drives no progress here), reads failure() the moment it has the flushed completion.
     */
    @ParameterizedTest
    @EnumSource(EngineFound.class)
    void aThreadThatPollsAFlushedCompletionAlreadySeesWhy(EngineFound cause) throws Exception {
        try (LoopbackPair p = connectedPair(new LoopbackPair(c -> c.withProgressOnPoll(false), SIZE))) {
            p.qpA.postReceive(new ReceiveRequest(7, new Sge(p.mrA, 0, 64)));
            switch (cause) {
                case PEER_DISCONNECTED -> p.qpB.disconnect();
                case PEER_RESET_THE_CONNECTION -> assertThat(p.b.resetConnections()).isEqualTo(1);
                case PEER_REFUSED_A_WRITE -> p.qpA.postSend(new WorkRequest.RdmaWrite(8, new Sge(p.mrA, 64, 64), 0,
                        p.mrB.rkey() ^ WRONG_KEY, WrFlags.SIGNALED));
                case PEER_WROTE_WITH_A_BAD_RKEY -> p.qpB.postSend(new WorkRequest.RdmaWrite(8, new Sge(p.mrB, 0, 64), 0,
                        p.mrA.rkey() ^ WRONG_KEY, WrFlags.SIGNALED));
            }
            WorkCompletion flushed = awaitCompletion(p.cqA, 7);
            Optional<QpFailure> seen = p.qpA.failure();

            assertThat(flushed.status()).as(flushed.toString()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
            assertThat(seen).as("failure() read by the thread that polled the flushed " + flushed).isPresent();
            assertThat(seen.get().kind()).as(cause + ": " + seen.get()).isEqualTo(cause.kind);
        }
    }
}

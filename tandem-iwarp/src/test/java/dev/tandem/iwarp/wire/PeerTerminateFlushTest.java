package dev.tandem.iwarp.wire;

import dev.tandem.iwarp.EngineHold;
import dev.tandem.iwarp.wire.TransmitWire.Frame;
import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A peer's Terminate fails the QP: the oldest request already on the wire completes with the
 * status the Terminate implies and its code as vendor error; everything behind it, and anything
 * never transmitted, is flushed (WR_FLUSH_ERR, no vendor error) in posting order; the error event
 * comes before DISCONNECTED, and the next post reports the error once. A Terminate the peer follows with
 * its close stays the cause when a write on the ended stream fails before the receiver read the Terminate.
 */
@Timeout(60)
class PeerTerminateFlushTest {
    private static final String TANDEM_IP = "127.0.1.132";
    private static final String RAW_IP = "127.0.1.133";
    private static final int PEER_RKEY = 0x0102_0304;

    private static TransmitWire wire(boolean crc, int peerIrd) {
        return new TransmitWire(TANDEM_IP, RAW_IP, crc, 128, peerIrd, 4, UnaryOperator.identity());
    }

    private static void peerTerminates(TransmitWire w, TerminateCode code) {
        w.peer.send(FpduBuilder.fpdus(w.crc).terminate(1, code.bits() << 16).bytes());
    }

    private static void assertCompletion(WorkCompletion wc, long wrId, CompletionStatus status, CompletionOpcode op, int vendorError) {
        assertThat(wc.wrId()).as(wc.toString()).isEqualTo(wrId);
        assertThat(wc.status()).as(wc.toString()).isEqualTo(status);
        assertThat(wc.opcode()).as(wc.toString()).isEqualTo(op);
        assertThat(wc.vendorError()).as("vendor error of " + wc).isEqualTo(vendorError);
        assertThat(wc.byteLength()).as(wc.toString()).isZero();
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void theReadOnTheWireTakesTheTerminatesStatusAndWhatWaitedBehindItIsFlushed(boolean crc) {
        try (TransmitWire w = wire(crc, 1)) {
            w.qp.postReceive(new ReceiveRequest(9, new Sge(w.region, 30_000, 64)));
            w.qp.postSend(new WorkRequest.RdmaRead(1, new Sge(w.region, 0, 16), 0, PEER_RKEY, WrFlags.SIGNALED));
            w.qp.postSend(new WorkRequest.RdmaRead(2, new Sge(w.region, 64, 16), 0, PEER_RKEY, WrFlags.SIGNALED)); // held: ORD 1
            w.qp.postSend(new WorkRequest.Send(3, new Sge(w.region, 0, 8), WrFlags.SIGNALED));
            Frame read = w.next("the first Read Request");
            assertThat(read.fpdu().opcode()).isEqualTo(RdmapOpcode.READ_REQUEST);

            peerTerminates(w, TerminateCode.RDMAP_INVALID_STAG);
            assertThat(w.awaitEvent(AsyncEventType.QP_ACCESS_ERROR, "the peer's Terminate").type()).isEqualTo(AsyncEventType.QP_ACCESS_ERROR);
            w.awaitEvent(AsyncEventType.DISCONNECTED, "the end of the connection");
            assertThat(w.qp.state()).isEqualTo(QpState.ERROR);
            String adapter = w.device.name();
            assertThat(LiveEngineMalformedFrameTest.counter(adapter + " received " + RdmapOpcode.name(RdmapOpcode.TERMINATE)))
                    .as("Terminates received").isEqualTo(1);
            assertThat(LiveEngineMalformedFrameTest.counter(adapter + " terminates received " + TerminateCode.RDMAP_INVALID_STAG.describe()))
                    .as("Terminates received with its code").isEqualTo(1);
            List<WorkCompletion> wcs = List.of(w.completion("1"), w.completion("2"), w.completion("3"), w.completion("4"));
            List<WorkCompletion> sends = wcs.stream().filter(wc -> wc.opcode() != CompletionOpcode.RECV).toList();
            assertCompletion(sends.get(0), 1, CompletionStatus.REM_ACCESS_ERR, CompletionOpcode.RDMA_READ, TerminateCode.RDMAP_INVALID_STAG.bits());
            assertCompletion(sends.get(1), 2, CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.RDMA_READ, 0);
            assertCompletion(sends.get(2), 3, CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.SEND, 0);
            WorkCompletion receive = wcs.stream().filter(wc -> wc.opcode() == CompletionOpcode.RECV).findFirst().orElseThrow();
            assertCompletion(receive, 9, CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.RECV, 0);

            WorkRequest.Send after = new WorkRequest.Send(4, new Sge(w.region, 0, 8), WrFlags.SIGNALED);
            assertThatThrownBy(() -> w.qp.postSend(after)).as("the first post after the Terminate")
                    .isInstanceOf(AsyncErrorException.class).hasMessageContaining("RDMAP_INVALID_STAG");
            w.qp.postSend(after);
            assertCompletion(w.completion("a Send posted after the Terminate"), 4, CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.SEND, 0);
            assertThat(w.peer.awaitClose("the peer's Terminate")).isIn(RawPeer.Close.EOF, RawPeer.Close.RESET);
        }
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void ofTwoReadsOnTheWireOnlyTheOldestTakesTheTerminatesStatus(boolean crc) {
        try (TransmitWire w = wire(crc, 2)) {
            w.qp.postSend(new WorkRequest.RdmaRead(1, new Sge(w.region, 0, 16), 0, PEER_RKEY, WrFlags.SIGNALED));
            w.qp.postSend(new WorkRequest.RdmaRead(2, new Sge(w.region, 64, 16), 0, PEER_RKEY, WrFlags.SIGNALED));
            assertThat(w.next("the first Read Request").fpdu().opcode()).isEqualTo(RdmapOpcode.READ_REQUEST);
            assertThat(w.next("the second Read Request").fpdu().opcode()).isEqualTo(RdmapOpcode.READ_REQUEST);
            peerTerminates(w, TerminateCode.RDMAP_INVALID_STAG);
            assertCompletion(w.completion("the oldest Read"), 1, CompletionStatus.REM_ACCESS_ERR, CompletionOpcode.RDMA_READ,
                    TerminateCode.RDMAP_INVALID_STAG.bits());
            assertCompletion(w.completion("the Read behind it"), 2, CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.RDMA_READ, 0);
        }
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void aRequestThatNeverLeftIsFlushedNotBlamedForThePeersTerminate(boolean crc) {
        try (TransmitWire w = wire(crc, 4)) {
            w.qp.modify(QpState.SQD);
            w.awaitEvent(AsyncEventType.SQ_DRAINED, "the move to SQD");
            w.qp.postSend(new WorkRequest.Send(1, new Sge(w.region, 0, 8), WrFlags.SIGNALED)); // held by SQD
            w.qp.postSend(new WorkRequest.RdmaWrite(2, new Sge(w.region, 0, 8), 0, PEER_RKEY, WrFlags.SIGNALED));
            peerTerminates(w, TerminateCode.DDP_UNTAGGED_NO_BUFFER);
            w.awaitEvent(AsyncEventType.QP_FATAL, "the peer's Terminate");
            assertCompletion(w.completion("the Send held in SQD"), 1, CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.SEND, 0);
            assertCompletion(w.completion("the Write held in SQD"), 2, CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.RDMA_WRITE, 0);
        }
    }

    /**
     * The peer sends a Terminate and ends the stream (FIN, or RST); the application posts on, and the socket refuses a
     * write before the receiver has read the Terminate (the engine's duty cycle is held meanwhile). The Terminate, not
     * the refused write, is the QP's cause: the access error event, and its status on the Read it answers.
     */
    @ParameterizedTest(name = "crc={0}, peer resets={1}")
    @CsvSource({"true,false", "true,true", "false,false", "false,true"})
    void aTerminateStaysTheCauseWhenAWriteOnTheEndedStreamFailsBeforeTheReceiverReadsIt(boolean crc, boolean reset) {
        try (TransmitWire w = wire(crc, 1)) {
            w.qp.postSend(new WorkRequest.RdmaRead(1, new Sge(w.region, 0, 16), 0, PEER_RKEY, WrFlags.SIGNALED));
            assertThat(w.next("the Read Request").fpdu().opcode()).isEqualTo(RdmapOpcode.READ_REQUEST);
            List<Long> posted = new ArrayList<>(List.of(1L));
            try (EngineHold _ = EngineHold.of(w.device)) {
                peerTerminates(w, TerminateCode.RDMAP_INVALID_STAG);
                if (reset) {
                    w.peer.reset();
                } else {
                    w.peer.close();
                }
                // the first write after a FIN is taken (the peer answers it with a reset), a later one is refused
                for (long id = 2; !EngineHold.writeRefused(w.qp); id++) {
                    assertThat(id).as("Sends posted before the socket refused a write on the ended stream").isLessThan(64);
                    w.qp.postSend(new WorkRequest.Send(id, new Sge(w.region, 0, 8), WrFlags.SIGNALED));
                    posted.add(id);
                }
                assertThat(w.qp.state()).as("the QP while the receiver has not read the Terminate").isEqualTo(QpState.RTS);
            }
            w.awaitEvent(AsyncEventType.QP_ACCESS_ERROR, "the peer's Terminate");
            w.awaitEvent(AsyncEventType.DISCONNECTED, "the end of the connection");
            QpFailure f = w.qp.failure().orElseThrow();
            assertThat(f.kind()).as(f.toString()).isEqualTo(QpFailure.Kind.REMOTE_ERROR);
            assertThat(f.detail()).contains("Terminate");
            assertCompletion(w.completion("the Read the Terminate answers"), 1, CompletionStatus.REM_ACCESS_ERR, CompletionOpcode.RDMA_READ,
                    TerminateCode.RDMAP_INVALID_STAG.bits());
            // in posting order: a Send the socket took before the stream ended completed when it went out; the refused one
            // and any later are flushed
            for (long id : posted.subList(1, posted.size())) {
                WorkCompletion wc = w.completion("Send " + id);
                assertThat(wc.wrId()).as(wc.toString()).isEqualTo(id);
                assertThat(wc.status()).as(wc.toString()).isIn(CompletionStatus.SUCCESS, CompletionStatus.WR_FLUSH_ERR);
                if (id == posted.getLast()) {
                    assertThat(wc.status()).as("the Send whose write was refused: " + wc).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
                }
            }
        }
    }
}

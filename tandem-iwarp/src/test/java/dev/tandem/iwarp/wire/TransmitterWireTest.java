package dev.tandem.iwarp.wire;

import dev.tandem.iwarp.wire.TransmitWire.Frame;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.function.UnaryOperator;

import static dev.tandem.verbs.WrFlags.SIGNALED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a Tandem QP puts on the wire, read FPDU by FPDU by a raw peer: segmentation of Sends,
 * Writes and Read Responses at the MULPDU (RFC 5041 MSN/MO and TO, one L bit per message), the
 * opcodes of solicited and invalidating Sends, the fields of a Read Request, the ORD limit and
 * fences (a request held back is proven held by a Read Request of the peer's own, whose Response
 * must overtake it), with CRC32C on and off.
 */
@Timeout(60)
class TransmitterWireTest {
    private static final String TANDEM_IP = "127.0.1.130";
    private static final String RAW_IP = "127.0.1.131";
    /** MULPDU of the adapter under test: 110 payload bytes per untagged FPDU, 114 per tagged one. */
    private static final int MULPDU = 128;
    /** An rkey the raw peer pretends to own (Tandem only copies it into its headers). */
    private static final int PEER_RKEY = 0x5A6B_7C01;

    private static TransmitWire wire(boolean crc, int peerIrd, int peerOrd) {
        return wire(crc, peerIrd, peerOrd, UnaryOperator.identity());
    }

    private static TransmitWire wire(boolean crc, int peerIrd, int peerOrd, UnaryOperator<dev.tandem.verbs.QueuePairConfig> qp) {
        return new TransmitWire(TANDEM_IP, RAW_IP, crc, MULPDU, peerIrd, peerOrd, qp);
    }

    private static byte[] concat(List<Frame> frames) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        frames.forEach(f -> out.writeBytes(f.payload()));
        return out.toByteArray();
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void aSendLargerThanTheMulpduLeavesAsFpdusWithMosZeroMTwoMAndOneLBit(boolean crc) {
        try (TransmitWire w = wire(crc, 4, 4)) {
            int m = w.maxUntaggedPayload();
            int length = 2 * m + 80;
            w.fill(0, length, 3);
            w.qp.postSend(new WorkRequest.Send(1, new Sge(w.region, 0, length), SIGNALED));

            List<Frame> frames = w.message("a Send of " + length + " bytes");
            assertThat(frames).as("%d bytes in FPDUs of at most %d payload bytes", length, m).hasSize(3);
            assertThat(frames).extracting(f -> f.fpdu().mo()).containsExactly(0, m, 2 * m);
            assertThat(frames).extracting(f -> f.fpdu().last()).containsExactly(false, false, true);
            assertThat(frames).extracting(f -> f.fpdu().ulpduLength()).containsExactly(MULPDU, MULPDU, 18 + 80);
            assertThat(frames).allSatisfy(f -> {
                assertThat(f.fpdu().tagged()).as(f.toString()).isFalse();
                assertThat(f.fpdu().opcode()).as(f.toString()).isEqualTo(RdmapOpcode.SEND);
                assertThat(f.fpdu().qn()).as(f.toString()).isEqualTo(FpduDescriptor.QN_SEND);
                assertThat(f.fpdu().msn()).as("every FPDU of the first Send carries MSN 1: " + f).isEqualTo(1);
                assertThat(f.fpdu().rsvdUlp()).as(f.toString()).isZero();
            });
            assertThat(concat(frames)).as("the payload, in order").isEqualTo(w.bytes(0, length));

            WorkCompletion wc = w.completion("the Send");
            assertThat(wc.status()).as(wc.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(CompletionOpcode.SEND);
            assertThat(wc.byteLength()).isEqualTo(length);

            // the next messages: MSN 2 with a payload needing 3 pad bytes, MSN 3 with none at all
            w.fill(1000, 5, 50);
            w.qp.postSend(new WorkRequest.Send(2, new Sge(w.region, 1000, 5), SIGNALED));
            w.qp.postSend(new WorkRequest.Send(3, List.of(), SIGNALED));
            Frame second = w.next("a 5-byte Send");
            assertThat(second.fpdu().msn()).as(second.toString()).isEqualTo(2);
            assertThat(second.fpdu().mo()).isZero();
            assertThat(second.fpdu().last()).isTrue();
            assertThat(second.fpdu().ulpduLength()).isEqualTo(18 + 5);
            assertThat(second.fpdu().padLength()).isEqualTo(3);
            assertThat(second.payload()).isEqualTo(w.bytes(1000, 5));
            Frame empty = w.next("a zero-length Send");
            assertThat(empty.fpdu().msn()).as(empty.toString()).isEqualTo(3);
            assertThat(empty.fpdu().last()).isTrue();
            assertThat(empty.fpdu().ulpduLength()).isEqualTo(18);
            assertThat(w.completion("the 5-byte Send").wrId()).isEqualTo(2);
            assertThat(w.completion("the zero-length Send").wrId()).isEqualTo(3);
        }
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void aWriteLargerThanTheMulpduLeavesAsTaggedFpdusWithGrowingTosAndTakesNoMsn(boolean crc) {
        try (TransmitWire w = wire(crc, 4, 4)) {
            int m = w.maxTaggedPayload();
            int length = 2 * m + 7;
            long to = 0x1_0000_1000L;
            w.fill(4096, length, 9);
            w.qp.postSend(new WorkRequest.RdmaWrite(1, new Sge(w.region, 4096, length), to, PEER_RKEY, SIGNALED));
            w.qp.postSend(new WorkRequest.Send(2, new Sge(w.region, 0, 4), SIGNALED));

            List<Frame> frames = w.message("a Write of " + length + " bytes");
            assertThat(frames).hasSize(3);
            assertThat(frames).extracting(f -> f.fpdu().to()).containsExactly(to, to + m, to + 2 * m);
            assertThat(frames).extracting(f -> f.fpdu().last()).containsExactly(false, false, true);
            assertThat(frames).extracting(f -> f.fpdu().ulpduLength()).containsExactly(MULPDU, MULPDU, 14 + 7);
            assertThat(frames).allSatisfy(f -> {
                assertThat(f.fpdu().tagged()).as(f.toString()).isTrue();
                assertThat(f.fpdu().opcode()).as(f.toString()).isEqualTo(RdmapOpcode.RDMA_WRITE);
                assertThat(f.fpdu().stag()).as(f.toString()).isEqualTo(PEER_RKEY);
            });
            assertThat(concat(frames)).isEqualTo(w.bytes(4096, length));

            Frame send = w.next("the Send after the Write");
            assertThat(send.fpdu().opcode()).isEqualTo(RdmapOpcode.SEND);
            assertThat(send.fpdu().msn()).as("a Write uses no MSN of queue 0: " + send).isEqualTo(1);

            WorkCompletion write = w.completion("the Write");
            assertThat(write.wrId()).isEqualTo(1);
            assertThat(write.opcode()).isEqualTo(CompletionOpcode.RDMA_WRITE);
            assertThat(write.status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(write.byteLength()).isEqualTo(length);
            assertThat(w.completion("the Send").wrId()).isEqualTo(2);
        }
    }

    @Test
    void aFourKibSendLeavesAsThirtyEightFpdusInOrder() {
        // more FPDUs than one gathering write takes (16): the message goes out over several batches
        try (TransmitWire w = wire(true, 4, 4)) {
            int length = 4096;
            int m = w.maxUntaggedPayload();
            w.fill(0, length, 29);
            w.qp.postSend(new WorkRequest.Send(1, new Sge(w.region, 0, length), SIGNALED));
            List<Frame> frames = w.message("a 4 KiB Send");
            assertThat(frames).hasSize((length + m - 1) / m);
            for (int i = 0; i < frames.size(); i++) {
                assertThat(frames.get(i).fpdu().mo()).as("MO of FPDU %d", i).isEqualTo(i * m);
                assertThat(frames.get(i).fpdu().msn()).isEqualTo(1);
            }
            assertThat(concat(frames)).isEqualTo(w.bytes(0, length));
            assertThat(w.completion("the 4 KiB Send").status()).isEqualTo(CompletionStatus.SUCCESS);
        }
    }

    @Test
    void aGatheredSendCarriesItsEntriesInOrderAcrossFpduBoundaries() {
        try (TransmitWire w = wire(true, 4, 4)) {
            MemoryRegion second = w.pd.registerMemory(w.arena.allocate(4096, 64), dev.tandem.verbs.Access.LOCAL_WRITE);
            try {
                for (int i = 0; i < 4096; i++) {
                    second.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1));
                }
                w.fill(0, 4096, 100);
                // 50 + 0 + 150 + 100 = 300 bytes: the entries end at 50, 200, 300; FPDUs at 110, 220, 300
                List<Sge> sgl = List.of(new Sge(w.region, 10, 50), new Sge(second, 20, 0), new Sge(second, 100, 150), new Sge(w.region, 3000, 100));
                w.qp.postSend(new WorkRequest.Send(1, sgl, SIGNALED));
                List<Frame> frames = w.message("a gathered Send");
                assertThat(frames).extracting(f -> f.fpdu().payloadLength()).containsExactly(110, 110, 80);
                ByteArrayOutputStream expected = new ByteArrayOutputStream();
                expected.writeBytes(w.bytes(10, 50));
                expected.writeBytes(second.segment().asSlice(100, 150).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                expected.writeBytes(w.bytes(3000, 100));
                assertThat(concat(frames)).isEqualTo(expected.toByteArray());
                assertThat(w.completion("the gathered Send").status()).isEqualTo(CompletionStatus.SUCCESS);
            } finally {
                second.close();
            }
        }
    }

    @Test
    void solicitedAndInvalidatingSendsCarryTheirOpcodesAndTheStagToInvalidate() {
        try (TransmitWire w = wire(false, 4, 4)) {
            w.fill(0, 16, 1);
            w.qp.postSend(new WorkRequest.Send(1, new Sge(w.region, 0, 16), WrFlags.SOLICITED));
            w.qp.postSend(new WorkRequest.SendWithInvalidate(2, List.of(new Sge(w.region, 0, 16)), 0x1234_5678, 0));
            w.qp.postSend(new WorkRequest.SendWithInvalidate(3, List.of(new Sge(w.region, 0, 16)), 0x0ABC_DE02, WrFlags.SOLICITED));
            w.qp.postSend(new WorkRequest.Send(4, new Sge(w.region, 0, 16), SIGNALED));
            Frame se = w.next("Send with Solicited Event");
            Frame inv = w.next("Send with Invalidate");
            Frame seInv = w.next("Send with Solicited Event and Invalidate");
            Frame plain = w.next("plain Send");
            assertThat(se.fpdu().opcode()).as(se.toString()).isEqualTo(RdmapOpcode.SEND_SE);
            assertThat(se.fpdu().rsvdUlp()).isZero();
            assertThat(inv.fpdu().opcode()).as(inv.toString()).isEqualTo(RdmapOpcode.SEND_INVALIDATE);
            assertThat(inv.fpdu().rsvdUlp()).as("the STag to invalidate: " + inv).isEqualTo(0x1234_5678);
            assertThat(seInv.fpdu().opcode()).as(seInv.toString()).isEqualTo(RdmapOpcode.SEND_SE_INVALIDATE);
            assertThat(seInv.fpdu().rsvdUlp()).isEqualTo(0x0ABC_DE02);
            assertThat(plain.fpdu().opcode()).as(plain.toString()).isEqualTo(RdmapOpcode.SEND);
            assertThat(List.of(se, inv, seInv, plain)).extracting(f -> f.fpdu().msn()).as("one MSN per Send").containsExactly(1, 2, 3, 4);
            assertThat(List.of(se, inv, seInv, plain)).extracting(Frame::payload).allSatisfy(p -> assertThat(p).isEqualTo(w.bytes(0, 16)));
            WorkCompletion wc = w.completion("the signalled Send after three unsignalled ones");
            assertThat(wc.wrId()).isEqualTo(4);
        }
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void aReadRequestNamesTheSinkTheSizeAndTheSourceAndTheResponseCompletesTheRead(boolean crc) {
        try (TransmitWire w = wire(crc, 4, 4)) {
            long source = 0x0000_0012_3456_789AL;
            w.qp.postSend(new WorkRequest.RdmaRead(1, new Sge(w.region, 640, 100), source, PEER_RKEY, SIGNALED));
            w.qp.postSend(new WorkRequest.RdmaRead(2, new Sge(w.region, 2048, 8), 16, PEER_RKEY ^ 1, SIGNALED));
            w.qp.postSend(new WorkRequest.Send(3, new Sge(w.region, 0, 4), SIGNALED));
            Frame first = w.next("the first Read Request");
            Frame second = w.next("the second Read Request");
            Frame send = w.next("the Send after two Reads");

            Fpdu f = first.fpdu();
            assertThat(f.opcode()).as(first.toString()).isEqualTo(RdmapOpcode.READ_REQUEST);
            assertThat(f.tagged()).isFalse();
            assertThat(f.last()).isTrue();
            assertThat(f.qn()).isEqualTo(FpduDescriptor.QN_READ_REQUEST);
            assertThat(f.msn()).isEqualTo(1);
            assertThat(f.mo()).isZero();
            assertThat(f.ulpduLength()).isEqualTo(18 + 28);
            assertThat(f.readRequest()).isEqualTo(new Fpdu.ReadRequest(w.region.lkey(), 640, 100, PEER_RKEY, source));
            assertThat(second.fpdu().msn()).as("Read Requests count on queue 1: " + second).isEqualTo(2);
            assertThat(second.fpdu().readRequest()).isEqualTo(new Fpdu.ReadRequest(w.region.lkey(), 2048, 8, PEER_RKEY ^ 1, 16));
            assertThat(send.fpdu().msn()).as("Reads use no MSN of queue 0: " + send).isEqualTo(1);

            byte[] data = TransmitWire.pattern(100, 77);
            w.peerResponds(f.readRequest(), data);
            w.peerResponds(second.fpdu().readRequest(), TransmitWire.pattern(8, 5));
            WorkCompletion read = w.completion("the first Read");
            assertThat(read.wrId()).isEqualTo(1);
            assertThat(read.status()).as(read.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(read.opcode()).isEqualTo(CompletionOpcode.RDMA_READ);
            assertThat(read.byteLength()).isEqualTo(100);
            assertThat(w.bytes(640, 100)).isEqualTo(data);
            assertThat(w.completion("the second Read").wrId()).isEqualTo(2);
            assertThat(w.completion("the Send").wrId()).isEqualTo(3);
        }
    }

    @Test
    void ordOneHoldsTheSecondReadUntilTheFirstIsAnswered() {
        // the peer offers IRD 1: the QP may have one Read outstanding
        try (TransmitWire w = wire(true, 1, 4)) {
            assertThat(w.qp.ord()).isEqualTo(1);
            w.fill(8192, 64, 21);
            w.qp.postSend(new WorkRequest.RdmaRead(1, new Sge(w.region, 0, 32), 0, PEER_RKEY, SIGNALED));
            w.qp.postSend(new WorkRequest.RdmaRead(2, new Sge(w.region, 100, 32), 32, PEER_RKEY, SIGNALED));
            Frame first = w.next("the first Read Request");
            assertThat(first.fpdu().readRequest().sinkTo()).isEqualTo(0);

            // the peer's own Read: its Response must come before the held Read Request
            w.peerReads(0x00AB_0001, 0x777, 64, 8192);
            Frame response = w.next("the Response to the peer's Read, while the second Read waits for ORD");
            assertThat(response.fpdu().opcode()).as("ORD 1 holds the second Read Request: " + response).isEqualTo(RdmapOpcode.READ_RESPONSE);
            assertThat(response.payload()).isEqualTo(w.bytes(8192, 64));

            w.peerResponds(first.fpdu().readRequest(), TransmitWire.pattern(32, 1));
            Frame second = w.next("the second Read Request, once the first was answered");
            assertThat(second.fpdu().opcode()).isEqualTo(RdmapOpcode.READ_REQUEST);
            assertThat(second.fpdu().msn()).isEqualTo(2);
            assertThat(second.fpdu().readRequest().sinkTo()).isEqualTo(100);
            assertThat(w.completion("the first Read").wrId()).isEqualTo(1);
            w.peerResponds(second.fpdu().readRequest(), TransmitWire.pattern(32, 2));
            WorkCompletion wc = w.completion("the second Read");
            assertThat(wc.wrId()).isEqualTo(2);
            assertThat(wc.status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(w.bytes(100, 32)).isEqualTo(TransmitWire.pattern(32, 2));
        }
    }

    @Test
    void aFencedSendWaitsForTheOutstandingReadAndAnUnfencedOneDoesNot() {
        try (TransmitWire w = wire(false, 4, 4)) {
            w.fill(8192, 16, 40);
            // no Read outstanding: a fenced Send leaves at once
            w.qp.postSend(new WorkRequest.Send(1, new Sge(w.region, 0, 8), SIGNALED | WrFlags.FENCE));
            assertThat(w.next("a fenced Send with no Read outstanding").fpdu().msn()).isEqualTo(1);
            // a Read, then an unfenced Send: the Send does not wait for the Read's Response
            w.qp.postSend(new WorkRequest.RdmaRead(2, new Sge(w.region, 512, 16), 0, PEER_RKEY, SIGNALED));
            w.qp.postSend(new WorkRequest.Send(3, new Sge(w.region, 0, 8), SIGNALED));
            Frame read = w.next("the Read Request");
            Frame unfenced = w.next("the unfenced Send after the Read");
            assertThat(unfenced.fpdu().opcode()).isEqualTo(RdmapOpcode.SEND);
            assertThat(unfenced.fpdu().msn()).isEqualTo(2);
            // now a fenced Send: held until the Read is answered
            w.qp.postSend(new WorkRequest.Send(4, new Sge(w.region, 0, 8), SIGNALED | WrFlags.FENCE));
            w.peerReads(0x00AB_0002, 0, 16, 8192);
            Frame probe = w.next("the Response to the peer's Read, while the fenced Send waits");
            assertThat(probe.fpdu().opcode()).as("the fenced Send waits for the outstanding Read: " + probe)
                    .isEqualTo(RdmapOpcode.READ_RESPONSE);
            w.peerResponds(read.fpdu().readRequest(), TransmitWire.pattern(16, 9));
            Frame fenced = w.next("the fenced Send, once the Read was answered");
            assertThat(fenced.fpdu().opcode()).isEqualTo(RdmapOpcode.SEND);
            assertThat(fenced.fpdu().msn()).isEqualTo(3);
            assertThat(List.of(w.completion("1"), w.completion("2"), w.completion("3"), w.completion("4")))
                    .extracting(WorkCompletion::wrId).containsExactly(1L, 2L, 3L, 4L);
        }
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void aReadResponseLargerThanTheMulpduLeavesAsTaggedFpdusToTheSinkAndAnEmptyReadGetsOneEmptyResponse(boolean crc) {
        try (TransmitWire w = wire(crc, 4, 4)) {
            int m = w.maxTaggedPayload();
            int size = 2 * m + 31; // an odd tail: its FPDU needs 1 pad byte
            w.fill(10_000, size, 61);
            int sink = 0x00C0_FFEE;
            long sinkTo = 0x2_0000_0040L;
            w.peerReads(sink, sinkTo, size, 10_000);
            List<Frame> frames = w.message("the Response to a Read of " + size + " bytes");
            assertThat(frames).hasSize(3);
            assertThat(frames).extracting(f -> f.fpdu().to()).containsExactly(sinkTo, sinkTo + m, sinkTo + 2 * m);
            assertThat(frames).extracting(f -> f.fpdu().last()).containsExactly(false, false, true);
            assertThat(frames).allSatisfy(f -> {
                assertThat(f.fpdu().opcode()).as(f.toString()).isEqualTo(RdmapOpcode.READ_RESPONSE);
                assertThat(f.fpdu().tagged()).isTrue();
                assertThat(f.fpdu().stag()).isEqualTo(sink);
            });
            assertThat(concat(frames)).isEqualTo(w.bytes(10_000, size));

            w.peerReads(sink, 0x99, 0, 0);
            Frame empty = w.next("the Response to a zero-length Read");
            assertThat(empty.fpdu().opcode()).isEqualTo(RdmapOpcode.READ_RESPONSE);
            assertThat(empty.fpdu().last()).isTrue();
            assertThat(empty.fpdu().to()).isEqualTo(0x99);
            assertThat(empty.fpdu().ulpduLength()).isEqualTo(14);
            // the QP still works: a Send after the Responses
            w.qp.postSend(new WorkRequest.Send(5, new Sge(w.region, 0, 4), SIGNALED));
            assertThat(w.next("a Send after serving two Reads").fpdu().msn()).isEqualTo(1);
            assertThat(w.completion("the first completion: serving Reads completes nothing at the responder").wrId()).isEqualTo(5);
        }
    }

    @Test
    void anInlineSendAndAnInlineWriteLargerThanTheMulpduCarryThePayloadAsItWasAtPostTime() {
        try (TransmitWire w = wire(true, 4, 4, c -> c.withMaxInline(512))) {
            int length = 300;
            w.fill(0, length, 11);
            w.fill(1000, length, 99);
            w.qp.postSend(new WorkRequest.Send(1, new Sge(w.region, 0, length), SIGNALED | WrFlags.INLINE));
            w.qp.postSend(new WorkRequest.RdmaWrite(2, new Sge(w.region, 1000, length), 64, PEER_RKEY, SIGNALED | WrFlags.INLINE));
            byte[] send = w.bytes(0, length);
            byte[] write = w.bytes(1000, length);
            w.fill(0, 2000, 0); // allowed at once after an inline post
            List<Frame> sendFrames = w.message("an inline Send of " + length + " bytes");
            assertThat(sendFrames).extracting(f -> f.fpdu().mo()).containsExactly(0, 110, 220);
            assertThat(concat(sendFrames)).isEqualTo(send);
            List<Frame> writeFrames = w.message("an inline Write of " + length + " bytes");
            assertThat(writeFrames).extracting(f -> f.fpdu().to()).containsExactly(64L, 64L + 114, 64L + 228);
            assertThat(concat(writeFrames)).isEqualTo(write);
            assertThat(w.completion("the inline Send").status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(w.completion("the inline Write").status()).isEqualTo(CompletionStatus.SUCCESS);
        }
    }

    @Test
    void aQpMovedToSqdRaisesSqDrainedOnceHoldsTheRestUntilRtsAndDrainsAgainOnTheNextMove() {
        try (TransmitWire w = wire(false, 4, 4)) {
            w.fill(8192, 32, 5);
            w.qp.postSend(new WorkRequest.Send(1, new Sge(w.region, 0, 8), SIGNALED));
            assertThat(w.next("a Send before SQD").fpdu().msn()).isEqualTo(1);
            w.qp.modify(QpState.SQD);
            w.awaitEvent(AsyncEventType.SQ_DRAINED, "the move to SQD");
            assertThat(w.qp.state()).isEqualTo(QpState.SQD);
            assertThat(w.completion("the Send before SQD").wrId()).isEqualTo(1);
            w.qp.postSend(new WorkRequest.Send(2, new Sge(w.region, 8, 8), SIGNALED)); // posts in SQD queue up
            // SQD holds the Send: the Response to the peer's Read overtakes it
            w.peerReads(0x00AB_0003, 0, 32, 8192);
            Frame probe = w.next("the Response to the peer's Read while the QP is in SQD");
            assertThat(probe.fpdu().opcode()).as("nothing of the send queue leaves in SQD: " + probe).isEqualTo(RdmapOpcode.READ_RESPONSE);
            assertThat(w.eventTypesSoFar()).as("events of the QP after one move to SQD and a post in SQD")
                    .filteredOn(t -> t == AsyncEventType.SQ_DRAINED).hasSize(1);

            w.qp.modify(QpState.RTS);
            Frame two = w.next("the Send posted in SQD, after SQD -> RTS");
            assertThat(two.fpdu().msn()).isEqualTo(2);
            assertThat(two.payload()).isEqualTo(w.bytes(8, 8));
            assertThat(w.completion("the Send posted in SQD").wrId()).isEqualTo(2);

            w.qp.modify(QpState.SQD);
            w.awaitEvent(AsyncEventType.SQ_DRAINED, "the second move to SQD");
            w.qp.modify(QpState.RTS);
            w.qp.postSend(new WorkRequest.Send(3, new Sge(w.region, 0, 8), SIGNALED));
            assertThat(w.next("a Send after the second drain").fpdu().msn()).isEqualTo(3);
            assertThat(w.completion("the Send after the second drain").wrId()).isEqualTo(3);
            assertThat(w.eventTypesSoFar()).as("events of the QP after two moves to SQD")
                    .filteredOn(t -> t == AsyncEventType.SQ_DRAINED).hasSize(2);
        }
    }

    /**
     * SQD lets the work already on the wire complete before SQ_DRAINED (IB verbs: the drain ends when
     * every message in progress has completed); an RDMA Read completes with its Response. A fenced
     * Send behind the Read has not started, so the drain holds it.
     */
    @Test
    void aQpMovedToSqdWithAReadOutstandingRaisesSqDrainedOnlyOnceTheReadWasAnswered() {
        try (TransmitWire w = wire(false, 4, 4)) {
            w.fill(8192, 32, 5);
            w.qp.postSend(new WorkRequest.RdmaRead(1, new Sge(w.region, 0, 16), 0, PEER_RKEY, SIGNALED));
            Frame read = w.next("the Read Request");
            w.qp.postSend(new WorkRequest.Send(2, new Sge(w.region, 0, 8), SIGNALED | WrFlags.FENCE));
            w.qp.modify(QpState.SQD);
            w.qp.postSend(new WorkRequest.Send(3, new Sge(w.region, 8, 8), SIGNALED)); // the posting thread transmits what it may
            w.peerReads(0x00AB_0004, 0, 32, 8192);
            Frame probe = w.next("the Response to the peer's Read while the QP drains");
            assertThat(probe.fpdu().opcode()).as("nothing of the send queue leaves in SQD: " + probe).isEqualTo(RdmapOpcode.READ_RESPONSE);
            assertThat(w.eventTypesSoFar()).as("events of the QP while its Read is outstanding in SQD")
                    .doesNotContain(AsyncEventType.SQ_DRAINED);

            w.peerResponds(read.fpdu().readRequest(), TransmitWire.pattern(16, 3));
            WorkCompletion wc = w.completion("the Read, answered while the QP drains");
            assertThat(wc.wrId()).isEqualTo(1);
            assertThat(wc.status()).isEqualTo(CompletionStatus.SUCCESS);
            w.awaitEvent(AsyncEventType.SQ_DRAINED, "the drain, once the Read was answered");
            assertThat(w.eventTypesSoFar()).filteredOn(t -> t == AsyncEventType.SQ_DRAINED).hasSize(1);

            w.qp.modify(QpState.RTS);
            assertThat(List.of(w.next("the fenced Send"), w.next("the Send posted in SQD"))).extracting(f -> f.fpdu().msn())
                    .containsExactly(1, 2);
            assertThat(List.of(w.completion("the fenced Send"), w.completion("the Send posted in SQD"))).extracting(WorkCompletion::wrId)
                    .containsExactly(2L, 3L);
        }
    }

    @Test
    void aReceivedSendIsPlacedWhileTheQpTransmits() {
        // sanity of the harness both ways: the raw peer's Send lands in a posted receive
        try (TransmitWire w = wire(true, 4, 4)) {
            w.qp.postReceive(new ReceiveRequest(9, new Sge(w.region, 20_000, 64)));
            w.peerSends(1, TransmitWire.pattern(40, 3));
            WorkCompletion wc = w.completion("the receive");
            assertThat(wc.wrId()).isEqualTo(9);
            assertThat(wc.byteLength()).isEqualTo(40);
            assertThat(w.bytes(20_000, 40)).isEqualTo(TransmitWire.pattern(40, 3));
        }
    }
}

package dev.tandem.iwarp.wire;

import dev.tandem.iwarp.IwarpConfig;
import dev.tandem.iwarp.IwarpDevice;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.stream.Stream;

import static dev.tandem.verbs.AsyncEventType.QP_ACCESS_ERROR;
import static dev.tandem.verbs.AsyncEventType.QP_FATAL;
import static dev.tandem.verbs.AsyncEventType.QP_REQUEST_ERROR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A live Tandem adapter against a hand-driven peer. The adapter (127.0.1.20) listens; an
 * application thread accepts each request onto a fresh QP whose region rkeys go out as private
 * data. A raw {@link java.nio.channels.SocketChannel} from 127.0.1.21 does the MPA exchange byte by
 * byte, then sends one malformed FPDU per case and reads what the engine answers: exactly one
 * Terminate with the layer/type/code of RFC 5040/5041/5044 (quoting the offending headers
 * correctly when it quotes them), then the end of the stream. The application's QP must be in
 * ERROR with the async event the code implies, and the adapter must go on serving a second,
 * well-behaved connection (a Tandem initiator on 127.0.1.22, connected before the fault) both
 * ways. A positive case proves the raw framing right: the peer's Send, RDMA Write and Read Request
 * are placed and answered.
 */
@Timeout(60)
class LiveEngineMalformedFrameTest {
    private static final String SERVER_IP = "127.0.1.20";
    private static final String RAW_IP = "127.0.1.21";
    private static final String CLIENT_IP = "127.0.1.22";
    /** Index 0x7FFFFF lies beyond the adapter's STag table: no such region or window. */
    private static final int UNKNOWN_STAG = 0x7FFF_FF00;
    /** The raw peer's own sink STag for Read Responses (a peer's name, never looked up by Tandem). */
    private static final int PEER_SINK_STAG = 0x00AB_CD01;
    private static final long PEER_SINK_TO = 0x1_0000_0100L;
    private static final int RECEIVE_WR_ID = 77;
    /** IRD/ORD the raw peer offers: Tandem may then serve its Read Requests. */
    private static final int PEER_IRD = 4;
    private static final int PEER_ORD = 4;

    /** What the raw peer learned in the MPA exchange. */
    record Peer(boolean crc, int rkey, int readOnlyRkey, int otherPdRkey) {
    }

    /**
     * One malformed input: the Terminate it must draw (null when the stream is cut instead), the
     * async event that code implies (Failure.eventFor: protection codes raise QP_ACCESS_ERROR, codes
     * whose completion status is REM_INV_REQ_ERR raise QP_REQUEST_ERROR, LLP and the rest QP_FATAL),
     * the receive the application posts first (0: none) and the bytes.
     */
    enum Case {
        BAD_CRC(TerminateCode.LLP_CRC, QP_FATAL, 64,
                p -> corruptCrc(FpduBuilder.fpdus(p.crc()).send(1, payload(32)).bytes())),
        BAD_DDP_VERSION_UNTAGGED(TerminateCode.DDP_UNTAGGED_INVALID_VERSION, QP_REQUEST_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(FpduBuilder.untagged(0x42, 0x43, 0, 0, 1, 0, payload(32))).bytes()),
        BAD_DDP_VERSION_TAGGED(TerminateCode.DDP_TAGGED_INVALID_VERSION, QP_REQUEST_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(FpduBuilder.tagged(0xC2, 0x40, p.rkey(), 0, payload(32))).bytes()),
        BAD_RDMAP_VERSION(TerminateCode.RDMAP_INVALID_VERSION, QP_REQUEST_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(FpduBuilder.untagged(0x41, 0x83, 0, 0, 1, 0, payload(32))).bytes()),
        UNKNOWN_OPCODE_9(TerminateCode.RDMAP_UNEXPECTED_OPCODE, QP_REQUEST_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(FpduBuilder.untagged(0x41, 0x49, 0, 0, 1, 0, payload(32))).bytes()),
        SEND_MSN_2_FIRST(TerminateCode.DDP_UNTAGGED_MSN_RANGE, QP_REQUEST_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).send(2, payload(32)).bytes()),
        SEND_WITHOUT_RECEIVE(TerminateCode.DDP_UNTAGGED_NO_BUFFER, QP_FATAL, 0,
                p -> FpduBuilder.fpdus(p.crc()).send(1, payload(32)).bytes()),
        SEND_LONGER_THAN_RECEIVE(TerminateCode.DDP_UNTAGGED_TOO_LONG, QP_REQUEST_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).send(1, payload(128)).bytes()),
        /** A Send whose only segment says it starts at byte 5 of the message. */
        SEND_MO_5(TerminateCode.DDP_UNTAGGED_INVALID_MO, QP_REQUEST_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(FpduBuilder.untagged(0x41, 0x43, 0, 0, 1, 5, payload(32))).bytes()),
        /** An empty Send (ULPDU of its header alone) at MO 5: judged once read, so its whole header is quoted. */
        SEND_EMPTY_MO_5(TerminateCode.DDP_UNTAGGED_INVALID_MO, QP_REQUEST_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(FpduBuilder.untagged(0x41, 0x43, 0, 0, 1, 5, new byte[0])).bytes()),
        INVALID_QN_5(TerminateCode.DDP_UNTAGGED_INVALID_QN, QP_REQUEST_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(FpduBuilder.untagged(0x41, 0x43, 5, 0, 1, 0, payload(32))).bytes()),
        ULPDU_SHORTER_THAN_HEADER(TerminateCode.DDP_CATASTROPHIC, QP_FATAL, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(Arrays.copyOf(FpduBuilder.untagged(0x41, 0x43, 0, 0, 1, 0, new byte[0]), 10)).bytes()),
        /** An untagged segment whose ULPDU (16 bytes) holds a tagged header's worth but not its own 18-byte header. */
        ULPDU_SHORTER_THAN_UNTAGGED_HEADER(TerminateCode.DDP_CATASTROPHIC, QP_FATAL, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(Arrays.copyOf(FpduBuilder.untagged(0x41, 0x43, 0, 0, 1, 0, new byte[0]), 16)).bytes()),
        /** Issue 12, row 12: an 8-byte FPDU (length 0, pad, CRC) is refused at once, not read as the start of a 16-byte header. */
        ULPDU_LENGTH_ZERO(TerminateCode.DDP_CATASTROPHIC, QP_FATAL, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(new byte[0]).bytes()),
        /** An 8-byte FPDU whose ULPDU holds only the two control bytes of a Send. */
        ULPDU_LENGTH_TWO(TerminateCode.DDP_CATASTROPHIC, QP_FATAL, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(Arrays.copyOf(FpduBuilder.untagged(0x41, 0x43, 0, 0, 1, 0, new byte[0]), 2)).bytes()),
        /**
         * An 8-byte FPDU whose one ULPDU byte looks like a tagged DDP control byte, with a valid Send
         * behind it in the same write: refused as too short, not read as a header, and nothing quoted.
         */
        ULPDU_LENGTH_ONE_THEN_SEND(TerminateCode.DDP_CATASTROPHIC, QP_FATAL, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(new byte[] {(byte) 0xC1}).send(1, payload(32)).bytes()),
        WRITE_UNKNOWN_STAG(TerminateCode.DDP_TAGGED_INVALID_STAG, QP_ACCESS_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).write(UNKNOWN_STAG, 0, true, payload(32)).bytes()),
        WRITE_WRONG_KEY(TerminateCode.DDP_TAGGED_INVALID_STAG, QP_ACCESS_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).write(p.rkey() ^ 0x5A, 0, true, payload(32)).bytes()),
        WRITE_OUT_OF_BOUNDS(TerminateCode.DDP_TAGGED_BASE_BOUNDS, QP_ACCESS_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).write(p.rkey(), Responder.REGION_LENGTH - 16, true, payload(32)).bytes()),
        /** A Write that starts past the region's end. */
        WRITE_PAST_THE_END(TerminateCode.DDP_TAGGED_BASE_BOUNDS, QP_ACCESS_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).write(p.rkey(), Responder.REGION_LENGTH + 64, true, payload(32)).bytes()),
        /** A Write at TO 2^64 - 16, which a signed reading of the 64-bit TO would take for offset -16. */
        WRITE_AT_TO_NEAR_2_64(TerminateCode.DDP_TAGGED_BASE_BOUNDS, QP_ACCESS_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).write(p.rkey(), -16L, true, payload(32)).bytes()),
        /** A Write to a region of another protection domain of the same adapter. */
        WRITE_OTHER_PD(TerminateCode.DDP_TAGGED_STAG_NOT_ASSOCIATED, QP_ACCESS_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).write(p.otherPdRkey(), 0, true, payload(32)).bytes()),
        WRITE_WITHOUT_REMOTE_WRITE(TerminateCode.RDMAP_ACCESS_RIGHTS, QP_ACCESS_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).write(p.readOnlyRkey(), 0, true, payload(32)).bytes()),
        READ_BAD_SOURCE_STAG(TerminateCode.RDMAP_INVALID_STAG, QP_ACCESS_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).readRequest(1, PEER_SINK_STAG, PEER_SINK_TO, 64, UNKNOWN_STAG, 0).bytes()),
        READ_OUT_OF_BOUNDS(TerminateCode.RDMAP_BASE_BOUNDS, QP_ACCESS_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).readRequest(1, PEER_SINK_STAG, PEER_SINK_TO, 64, p.rkey(), Responder.REGION_LENGTH - 16)
                        .bytes()),
        /** A Read Request from a region of another protection domain of the same adapter. */
        READ_SOURCE_OTHER_PD(TerminateCode.RDMAP_STAG_NOT_ASSOCIATED, QP_ACCESS_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).readRequest(1, PEER_SINK_STAG, PEER_SINK_TO, 64, p.otherPdRkey(), 0).bytes()),
        /** A Read Request opcode on the Send queue (QN 0). */
        READ_REQUEST_ON_SEND_QUEUE(TerminateCode.RDMAP_UNEXPECTED_OPCODE, QP_REQUEST_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(FpduBuilder.untagged(0x41, 0x41, 0, 0, 1, 0,
                        FpduBuilder.readRequestPayload(PEER_SINK_STAG, PEER_SINK_TO, 64, p.rkey(), 0))).bytes()),
        /** A Send opcode on the Read Request queue (QN 1). */
        SEND_ON_READ_REQUEST_QUEUE(TerminateCode.RDMAP_UNEXPECTED_OPCODE, QP_REQUEST_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(FpduBuilder.untagged(0x41, 0x43, 1, 0, 1, 0, payload(28))).bytes()),
        /** A Read Request one byte short of its 28-byte RDMAP header. */
        READ_REQUEST_TOO_SHORT(TerminateCode.DDP_CATASTROPHIC, QP_FATAL, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(FpduBuilder.untagged(0x41, 0x41, 1, 0, 1, 0,
                        Arrays.copyOf(FpduBuilder.readRequestPayload(PEER_SINK_STAG, PEER_SINK_TO, 64, p.rkey(), 0), 27))).bytes()),
        /** A Read Request one byte longer than its 28-byte RDMAP header. */
        READ_REQUEST_TOO_LONG(TerminateCode.DDP_CATASTROPHIC, QP_FATAL, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(FpduBuilder.untagged(0x41, 0x41, 1, 0, 1, 0,
                        Arrays.copyOf(FpduBuilder.readRequestPayload(PEER_SINK_STAG, PEER_SINK_TO, 64, p.rkey(), 0), 29))).bytes()),
        /** The first Read Request carries MSN 2. */
        READ_REQUEST_MSN_2_FIRST(TerminateCode.DDP_UNTAGGED_MSN_RANGE, QP_REQUEST_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).readRequest(2, PEER_SINK_STAG, PEER_SINK_TO, 64, p.rkey(), 0).bytes()),
        /** A Read Response when this side has no RDMA Read outstanding. */
        READ_RESPONSE_UNASKED(TerminateCode.RDMAP_UNEXPECTED_OPCODE, QP_REQUEST_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(FpduBuilder.tagged(0xC1, 0x42, PEER_SINK_STAG, 0, payload(32))).bytes()),
        /** A Terminate whose ULPDU holds two bytes of its four-byte control word. */
        TERMINATE_TOO_SHORT(TerminateCode.RDMAP_UNEXPECTED_OPCODE, QP_REQUEST_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(FpduBuilder.untagged(0x41, 0x47, 2, 0, 1, 0, new byte[2])).bytes()),
        /** A Terminate one byte longer than the longest one (control, length, untagged and Read Request headers). */
        TERMINATE_TOO_LONG(TerminateCode.RDMAP_UNEXPECTED_OPCODE, QP_REQUEST_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(FpduBuilder.untagged(0x41, 0x47, 2, 0, 1, 0,
                        new byte[TerminateDescriptor.MAX_LENGTH + 1])).bytes()),
        /** A Send opcode on the Terminate queue (QN 2). */
        SEND_ON_TERMINATE_QUEUE(TerminateCode.RDMAP_UNEXPECTED_OPCODE, QP_REQUEST_ERROR, 64,
                p -> FpduBuilder.fpdus(p.crc()).frame(FpduBuilder.untagged(0x41, 0x43, 2, 0, 1, 0, payload(4))).bytes()),
        /** Half of an 88-byte Send FPDU (its header and part of the payload), then FIN. */
        TRUNCATED_IN_PAYLOAD(null, QP_FATAL, 64,
                p -> Arrays.copyOf(FpduBuilder.fpdus(p.crc()).send(1, payload(64)).bytes(), 44)),
        /** Ten bytes of a Send FPDU (inside the DDP header), then FIN. */
        TRUNCATED_IN_HEADER(null, QP_FATAL, 64,
                p -> Arrays.copyOf(FpduBuilder.fpdus(p.crc()).send(1, payload(64)).bytes(), 10));

        final TerminateCode code;
        final AsyncEventType event;
        final int receiveLength;
        final Function<Peer, byte[]> bytes;

        Case(TerminateCode code, AsyncEventType event, int receiveLength, Function<Peer, byte[]> bytes) {
            this.code = code;
            this.event = event;
            this.receiveLength = receiveLength;
            this.bytes = bytes;
        }

        /** An FPDU judged only once it was read in full (its CRC, a Send's MO, a Read Request's source). */
        boolean judgedWhenRead() {
            return switch (this) {
                case BAD_CRC, SEND_MO_5, SEND_EMPTY_MO_5, READ_BAD_SOURCE_STAG, READ_OUT_OF_BOUNDS, READ_SOURCE_OTHER_PD -> true;
                default -> false;
            };
        }
    }

    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        for (boolean crc : new boolean[] {true, false}) {
            for (Case c : Case.values()) {
                if (c != Case.BAD_CRC || crc) {
                    all.add(Arguments.of(c, crc));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} crc={1}")
    @MethodSource("cases")
    void malformedFpduDrawsOneTerminateAndTheAdapterServesOn(Case c, boolean crc) {
        try (Rig rig = new Rig(crc); RawPeer peer = RawPeer.connect(RAW_IP, rig.server.address())) {
            Responder.Accepted bad = rig.connectRaw(peer);
            ProtectionDomain otherPd = rig.server.device.allocateProtectionDomain();
            MemoryRegion other = otherPd.registerMemory(rig.server.arena.allocate(4096, 64), Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
            Peer p = new Peer(crc, bad.region().rkey(), bad.readOnly().rkey(), other.rkey());
            if (c.receiveLength > 0) {
                bad.qp().postReceive(new ReceiveRequest(RECEIVE_WR_ID, new Sge(bad.region(), 4096, c.receiveLength)));
            }
            // a good Write first: what the engine placed before the fault must stay, and the faulty
            // FPDU's bytes must not go where the Write's went
            byte[] written = new byte[48];
            Arrays.fill(written, (byte) 0x5A);
            peer.send(FpduBuilder.fpdus(crc).write(p.rkey(), 6000, true, written).bytes());
            awaitBytes(bad.region().segment(), 6000, written, "the Write before " + c);
            byte[] sent = c.bytes.apply(p);
            peer.send(sent);

            RawPeer.Close close;
            if (c.code == null) {
                peer.shutdownOutput();
                close = peer.awaitClose("a truncated FPDU and end of stream (no Terminate expected)");
            } else {
                byte[] term = peer.readFpdu("Terminate for " + c);
                int ulpdu = ((sent[0] & 0xFF) << 8) | (sent[1] & 0xFF);
                Fpdu.Terminate t = checkTerminate(term, crc, c.code, Arrays.copyOfRange(sent, 2, 2 + ulpdu), c.toString());
                // quoted: a tagged header (whole in the first 16 bytes read), and an untagged one judged
                // after the whole FPDU was read; an untagged fault found in the first 16 bytes quotes nothing
                boolean tagged = ulpdu >= FpduDescriptor.TAGGED_HEADER_LENGTH && (sent[2] & 0x80) != 0;
                assertThat(t.d()).as("the offending DDP header quoted for " + c).isEqualTo(tagged || c.judgedWhenRead());
                // counted before the Terminate left
                String adapter = rig.server.device.name();
                assertThat(counter(adapter + " malformed frames")).as("malformed frames after " + c).isEqualTo(1);
                assertThat(counter(adapter + " crc errors")).as("crc errors after " + c).isEqualTo(c == Case.BAD_CRC ? 1 : 0);
                close = peer.awaitClose("the Terminate");
            }
            assertThat(close).as("how the engine closed the stream after " + c).isEqualTo(RawPeer.Close.EOF);

            AsyncEvent e = rig.server.awaitEvent(bad.qp(), "the faulted QP");
            assertThat(e.type()).as("async event for %s (%s)", c, e.detail()).isEqualTo(c.event);
            String says = switch (c) { // the detail names what was wrong, with the values found
                case BAD_CRC -> "on the wire, 0x";
                case BAD_DDP_VERSION_UNTAGGED, BAD_DDP_VERSION_TAGGED -> "DDP version 2 (expected 1)";
                case BAD_RDMAP_VERSION -> "RDMAP version 2 (expected 1)";
                case UNKNOWN_OPCODE_9 -> "opcode 9 in an untagged segment";
                case SEND_MSN_2_FIRST -> "Send MSN 2 (expected 1)";
                case SEND_WITHOUT_RECEIVE -> "Send MSN 1 arrived and no receive buffer is posted";
                case SEND_LONGER_THAN_RECEIVE -> "Send of at least 128 bytes for a receive buffer of 64 bytes (wrId " + RECEIVE_WR_ID + ")";
                case INVALID_QN_5 -> "queue number 5";
                case SEND_MO_5, SEND_EMPTY_MO_5 -> "Send segment MO 5 (expected 0)";
                case ULPDU_SHORTER_THAN_HEADER -> tooShort(10);
                case ULPDU_SHORTER_THAN_UNTAGGED_HEADER -> "ULPDU_LENGTH 16 is shorter than the 18-byte DDP header";
                case ULPDU_LENGTH_ZERO -> tooShort(0);
                case ULPDU_LENGTH_TWO -> tooShort(2);
                case ULPDU_LENGTH_ONE_THEN_SEND -> tooShort(1);
                case WRITE_UNKNOWN_STAG -> "RDMA Write of 32 bytes to STag " + STag.format(UNKNOWN_STAG) + " at TO 0";
                case WRITE_WRONG_KEY -> "RDMA Write of 32 bytes to STag " + STag.format(p.rkey() ^ 0x5A) + " at TO 0";
                case WRITE_OUT_OF_BOUNDS -> "RDMA Write of 32 bytes to STag " + STag.format(p.rkey()) + " at TO " + (Responder.REGION_LENGTH - 16);
                case WRITE_PAST_THE_END -> "RDMA Write of 32 bytes to STag " + STag.format(p.rkey()) + " at TO " + (Responder.REGION_LENGTH + 64);
                case WRITE_AT_TO_NEAR_2_64 -> "RDMA Write of 32 bytes to STag " + STag.format(p.rkey()) + " at TO 18446744073709551600";
                case WRITE_OTHER_PD -> "RDMA Write of 32 bytes to STag " + STag.format(p.otherPdRkey()) + " at TO 0";
                case WRITE_WITHOUT_REMOTE_WRITE -> "RDMA Write of 32 bytes to STag " + STag.format(p.readOnlyRkey()) + " at TO 0";
                case READ_BAD_SOURCE_STAG -> "RDMA Read Request of 64 bytes from STag " + STag.format(UNKNOWN_STAG) + " at TO 0";
                case READ_OUT_OF_BOUNDS -> "RDMA Read Request of 64 bytes from STag " + STag.format(p.rkey()) + " at TO " + (Responder.REGION_LENGTH - 16);
                case READ_SOURCE_OTHER_PD -> "RDMA Read Request of 64 bytes from STag " + STag.format(p.otherPdRkey()) + " at TO 0";
                case READ_REQUEST_ON_SEND_QUEUE -> "opcode " + RdmapOpcode.name(RdmapOpcode.READ_REQUEST) + " on the Send queue";
                case SEND_ON_READ_REQUEST_QUEUE -> "opcode " + RdmapOpcode.name(RdmapOpcode.SEND) + " on the Read Request queue";
                case READ_REQUEST_TOO_SHORT -> "Read Request of 27 payload bytes (expected 28)";
                case READ_REQUEST_TOO_LONG -> "Read Request of 29 payload bytes (expected 28)";
                case READ_REQUEST_MSN_2_FIRST -> "Read Request MSN 2 (expected 1)";
                case READ_RESPONSE_UNASKED -> "Read Response with no RDMA Read outstanding";
                case TERMINATE_TOO_SHORT -> "malformed Terminate (opcode 7, ULPDU 20)";
                case TERMINATE_TOO_LONG -> "malformed Terminate (opcode 7, ULPDU " + (FpduDescriptor.UNTAGGED_HEADER_LENGTH + TerminateDescriptor.MAX_LENGTH + 1) + ")";
                case SEND_ON_TERMINATE_QUEUE -> "malformed Terminate (opcode 3, ULPDU 22)";
                case TRUNCATED_IN_PAYLOAD, TRUNCATED_IN_HEADER -> "peer closed the connection in the middle of an FPDU";
            };
            assertThat(e.detail()).as("detail of the event for " + c).contains(says);
            assertThat(bad.qp().state()).isEqualTo(QpState.ERROR);
            if (c.receiveLength > 0) {
                WorkCompletion r = Responder.awaitCompletion(bad.cq(), "the receive posted before " + c);
                assertThat(r.wrId()).isEqualTo(RECEIVE_WR_ID);
                assertThat(r.opcode()).isEqualTo(CompletionOpcode.RECV);
                if (c == Case.SEND_LONGER_THAN_RECEIVE) {
                    assertThat(r.status()).as(r.toString()).isEqualTo(CompletionStatus.LOC_LEN_ERR);
                    assertThat(r.byteLength()).isEqualTo(128);
                    assertThat(TerminateCode.fromBits(r.vendorError())).isEqualTo(TerminateCode.DDP_UNTAGGED_TOO_LONG);
                } else {
                    assertThat(r.status()).as("nothing is delivered from a faulted stream: %s", r).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
                }
                if (c != Case.BAD_CRC && c != Case.SEND_MO_5 && c.code != null) {
                    // a fault in the headers places nothing; a payload is placed as it arrives, so a bad
                    // CRC, a wrong MO or a cut stream leaves bytes in a Receive that then completes in error
                    assertThat(bytes(bad.region().segment(), 4096, c.receiveLength)).as("the receive buffer after " + c)
                            .isEqualTo(new byte[c.receiveLength]);
                }
            }
            assertThat(bytes(bad.region().segment(), 6000, 48)).as("the Write placed before " + c).isEqualTo(written);
            assertThat(bytes(other.segment(), 0, 64)).as("the region of the other PD after " + c).isEqualTo(new byte[64]);
            other.close();
            otherPd.close();
            rig.assertGoodConnectionServes("after " + c);
        }
    }

    /** Raw framing check: a valid Send, RDMA Write and Read Request from the raw peer are placed and answered. */
    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void validSendWriteAndReadFromTheRawPeerArePlacedAndAnswered(boolean crc) {
        try (Rig rig = new Rig(crc); RawPeer peer = RawPeer.connect(RAW_IP, rig.server.address())) {
            Responder.Accepted a = rig.connectRaw(peer);
            a.qp().postReceive(new ReceiveRequest(1, new Sge(a.region(), 4096, 64)));
            a.qp().postReceive(new ReceiveRequest(2, new Sge(a.region(), 4160, 64)));
            byte[] first = payload(45);
            byte[] written = payload(33);
            byte[] second = Arrays.copyOfRange(payload(20), 13, 20);
            // Odd lengths: every FPDU needs pad bytes, which the CRC covers.
            peer.send(FpduBuilder.fpdus(crc).send(1, first).write(a.region().rkey(), 100, true, written).send(2, second).bytes());

            WorkCompletion r1 = Responder.awaitCompletion(a.cq(), "the raw peer's first Send");
            assertThat(r1.status()).as(r1.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(r1.wrId()).isEqualTo(1);
            assertThat(r1.byteLength()).isEqualTo(45);
            WorkCompletion r2 = Responder.awaitCompletion(a.cq(), "the raw peer's second Send");
            assertThat(r2.status()).as(r2.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(r2.wrId()).isEqualTo(2);
            assertThat(r2.byteLength()).isEqualTo(7);
            MemorySegment mem = a.region().segment();
            assertThat(bytes(mem, 4096, 45)).isEqualTo(first);
            assertThat(bytes(mem, 4160, 7)).isEqualTo(second);
            // The Write was placed before the later Send was delivered (RFC 5040 ordering).
            assertThat(bytes(mem, 100, 33)).isEqualTo(written);

            // A Read Request for 50 bytes from TO 90: one Read Response to the peer's sink.
            peer.send(FpduBuilder.fpdus(crc).readRequest(1, PEER_SINK_STAG, PEER_SINK_TO, 50, a.region().rkey(), 90).bytes());
            byte[] response = peer.readFpdu("Read Response");
            Fpdu f = FpduDecoder.decodeFpdu(response, 0, response.length, crc ? FpduDecoder.CrcMode.VERIFY : FpduDecoder.CrcMode.NOT_USED);
            assertThat(f.opcode()).as(f.describe()).isEqualTo(RdmapOpcode.READ_RESPONSE);
            assertThat(f.tagged()).isTrue();
            assertThat(f.last()).isTrue();
            assertThat(f.stag()).isEqualTo(PEER_SINK_STAG);
            assertThat(f.to()).isEqualTo(PEER_SINK_TO);
            assertThat(Arrays.copyOfRange(response, f.payloadOffset(), f.payloadOffset() + f.payloadLength())).isEqualTo(bytes(mem, 90, 50));
            if (!crc) {
                assertThat(f.crc()).as("CRC field without CRC").isZero();
            }
            assertThat(a.qp().state()).isEqualTo(QpState.RTS);
            assertThat(rig.server.drainEvents()).noneMatch(ev -> ev.resource() == a.qp() && ev.type() != AsyncEventType.COMMUNICATION_ESTABLISHED);

            // An orderly end of stream from the peer: DISCONNECTED, and the engine closes its side too.
            peer.shutdownOutput();
            assertThat(peer.awaitClose("the peer's FIN")).isEqualTo(RawPeer.Close.EOF);
            assertThat(rig.server.awaitEvent(a.qp(), "the peer's FIN").type()).isEqualTo(AsyncEventType.DISCONNECTED);
            rig.assertGoodConnectionServes("after the raw peer disconnected");
        }
    }

    /** Without negotiated CRC the field is present but not checked (siw's plain streams carry zero there). */
    @ParameterizedTest(name = "crcField=0x{0}")
    @ValueSource(strings = {"00000000", "deadbeef"})
    void crcFieldIsIgnoredWhenCrcIsNotNegotiated(String crcField) {
        try (Rig rig = new Rig(false); RawPeer peer = RawPeer.connect(RAW_IP, rig.server.address())) {
            Responder.Accepted a = rig.connectRaw(peer);
            a.qp().postReceive(new ReceiveRequest(1, new Sge(a.region(), 0, 64)));
            byte[] fpdu = FpduBuilder.fpdus(false).send(1, payload(32)).bytes();
            System.arraycopy(HexFormat.of().parseHex(crcField), 0, fpdu, fpdu.length - 4, 4);
            peer.send(fpdu);
            WorkCompletion r = Responder.awaitCompletion(a.cq(), "the Send");
            assertThat(r.status()).as(r.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(r.byteLength()).isEqualTo(32);
            assertThat(a.qp().state()).isEqualTo(QpState.RTS);
        }
    }

    /**
     * Issue 12, row 10 on the wire: a Send with Invalidate of an STag this adapter may not
     * invalidate draws the Terminate siw sends (RDMAP, "STag cannot be invalidated": a remote
     * operation error for an STag never issued, a remote protection error for one of another PD),
     * and the Receive completes REM_INV_REQ_ERR (as siw completes it) with that Terminate as its
     * vendor error and without FLAG_INVALIDATED; the STag of another PD stays valid.
     */
    @ParameterizedTest(name = "{0} crc={1}")
    @MethodSource("invalidateCases")
    void sendWithInvalidateOfAnStagThatCannotBeInvalidated(String which, boolean crc) {
        try (Rig rig = new Rig(crc); RawPeer peer = RawPeer.connect(RAW_IP, rig.server.address())) {
            Responder.Accepted a = rig.connectRaw(peer);
            ProtectionDomain otherPd = rig.server.device.allocateProtectionDomain();
            MemoryRegion other = otherPd.registerMemory(rig.server.arena.allocate(4096, 64), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            try {
                int live = a.region().rkey();
                int stag = switch (which) {
                    case "never issued" -> UNKNOWN_STAG;
                    case "another key" -> dev.tandem.verbs.STag.of(dev.tandem.verbs.STag.index(live), (dev.tandem.verbs.STag.key(live) + 1) & 0xFF);
                    case "another PD" -> other.rkey();
                    default -> throw new IllegalArgumentException(which);
                };
                TerminateCode code = which.equals("another PD") ? TerminateCode.RDMAP_CANNOT_INVALIDATE_PROTECTION
                        : TerminateCode.RDMAP_CANNOT_INVALIDATE;
                a.qp().postReceive(new ReceiveRequest(RECEIVE_WR_ID, new Sge(a.region(), 4096, 64)));
                byte[] sent = FpduBuilder.fpdus(crc).frame(FpduBuilder.untagged(0x41, 0x40 | RdmapOpcode.SEND_INVALIDATE, 0, stag, 1, 0,
                        payload(32))).bytes();
                peer.send(sent);

                byte[] term = peer.readFpdu("Terminate for a Send with Invalidate of " + which);
                checkTerminate(term, crc, code, Arrays.copyOfRange(sent, 2, 2 + 18 + 32), which);
                assertThat(peer.awaitClose("the Terminate")).isEqualTo(RawPeer.Close.EOF);
                AsyncEvent e = rig.server.awaitEvent(a.qp(), "the refused invalidate");
                assertThat(e.type()).as(e.detail()).isEqualTo(which.equals("another PD") ? QP_ACCESS_ERROR : QP_REQUEST_ERROR);
                assertThat(e.detail()).contains("Send with Invalidate names STag " + dev.tandem.verbs.STag.format(stag) + ", which "
                        + (which.equals("another PD") ? "belongs to another protection domain" : "this adapter never issued"));
                WorkCompletion r = Responder.awaitCompletion(a.cq(), "the Receive of the Send with Invalidate");
                assertThat(r.wrId()).isEqualTo(RECEIVE_WR_ID);
                assertThat(r.status()).as(r.toString()).isEqualTo(CompletionStatus.REM_INV_REQ_ERR);
                assertThat(r.vendorError()).as(r.toString()).isEqualTo(code.bits());
                assertThat(r.flags() & WorkCompletion.FLAG_INVALIDATED).as(r.toString()).isZero();
                assertThat(bytes(a.region().segment(), 4096, 32)).as("the payload is placed as siw places it").isEqualTo(payload(32));
                assertThat(a.region().isValid()).as("the region under the index").isTrue();
                assertThat(other.isValid()).as("a region of another PD").isTrue();
                rig.assertGoodConnectionServes("after a Send with Invalidate of " + which);
            } finally {
                other.close();
                otherPd.close();
            }
        }
    }

    static Stream<Arguments> invalidateCases() {
        List<Arguments> all = new ArrayList<>();
        for (boolean crc : new boolean[] {true, false}) {
            for (String which : List.of("never issued", "another key", "another PD")) {
                all.add(Arguments.of(which, crc));
            }
        }
        return all.stream();
    }

    /**
     * Issue 12, row 9 on the wire: zero-length RDMA Writes to an STag that names nothing (at a TO
     * no region has) and to a region without remote write are accepted, as siw accepts them (it
     * checks no STag for a Write without data): no Terminate, the QP stays in RTS, and the Send
     * behind them is delivered. A zero-length Read Request of such an STag is answered with a
     * zero-length Read Response to the peer's sink (siw builds it with no SGE to check).
     */
    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void zeroLengthWritesAndReadsNeedNoValidStag(boolean crc) {
        try (Rig rig = new Rig(crc); RawPeer peer = RawPeer.connect(RAW_IP, rig.server.address())) {
            Responder.Accepted a = rig.connectRaw(peer);
            a.qp().postReceive(new ReceiveRequest(1, new Sge(a.region(), 4096, 64)));
            peer.send(FpduBuilder.fpdus(crc).write(UNKNOWN_STAG, 1L << 40, true, new byte[0]).write(a.readOnly().rkey(), 0, true, new byte[0])
                    .send(1, payload(20)).bytes());
            WorkCompletion r = Responder.awaitCompletion(a.cq(), "the Send behind two zero-length Writes");
            assertThat(r.status()).as(r.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(r.byteLength()).isEqualTo(20);

            peer.send(FpduBuilder.fpdus(crc).readRequest(1, PEER_SINK_STAG, PEER_SINK_TO, 0, UNKNOWN_STAG, 1L << 40).bytes());
            byte[] response = peer.readFpdu("zero-length Read Response");
            Fpdu f = FpduDecoder.decodeFpdu(response, 0, response.length, crc ? FpduDecoder.CrcMode.VERIFY : FpduDecoder.CrcMode.NOT_USED);
            assertThat(f.opcode()).as(f.describe()).isEqualTo(RdmapOpcode.READ_RESPONSE);
            assertThat(f.last()).as(f.describe()).isTrue();
            assertThat(f.stag()).isEqualTo(PEER_SINK_STAG);
            assertThat(f.to()).isEqualTo(PEER_SINK_TO);
            assertThat(f.payloadLength()).isZero();
            assertThat(a.qp().state()).isEqualTo(QpState.RTS);
            assertThat(rig.server.drainEvents()).noneMatch(ev -> ev.resource() == a.qp() && ev.type() != AsyncEventType.COMMUNICATION_ESTABLISHED);
            rig.assertGoodConnectionServes("after zero-length Writes and a zero-length Read of an STag that names nothing");
        }
    }

    /**
     * Issue 12, row 2 on the wire: the region a posted Receive points into is deregistered between
     * two segments of the Send that fills it. The first segment was placed while it was registered;
     * the second is refused before a byte of it is placed, as siw refuses a receive SGE that fails
     * its check at placement: a DDP catastrophic Terminate, QP_ACCESS_ERROR, and the Receive
     * completes LOC_PROT_ERR with that Terminate as its vendor error.
     */
    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void receiveRegionDeregisteredBetweenTwoSegmentsOfASend(boolean crc) {
        try (Rig rig = new Rig(crc); RawPeer peer = RawPeer.connect(RAW_IP, rig.server.address())) {
            Responder.Accepted a = rig.connectRaw(peer);
            MemoryRegion given = rig.server.pd.registerMemory(rig.server.arena.allocate(256, 64), Access.LOCAL_WRITE);
            a.qp().postReceive(new ReceiveRequest(RECEIVE_WR_ID, new Sge(given, 0, 128)));
            byte[] first = payload(64);
            peer.send(FpduBuilder.fpdus(crc).frame(FpduBuilder.untagged(0x01, 0x43, 0, 0, 1, 0, first)).bytes());
            awaitBytes(given.segment(), 0, first, "the first segment of the Send");
            given.close();

            byte[] sent = FpduBuilder.fpdus(crc).frame(FpduBuilder.untagged(0x41, 0x43, 0, 0, 1, 64, payload(64))).bytes();
            peer.send(sent);
            byte[] term = peer.readFpdu("Terminate for a segment whose Receive lies in a deregistered region");
            checkTerminate(term, crc, TerminateCode.DDP_CATASTROPHIC, Arrays.copyOfRange(sent, 2, 2 + 18 + 64), "deregistered receive");
            assertThat(peer.awaitClose("the Terminate")).isEqualTo(RawPeer.Close.EOF);
            AsyncEvent e = rig.server.awaitEvent(a.qp(), "the refused segment");
            assertThat(e.type()).as(e.detail()).isEqualTo(QP_ACCESS_ERROR);
            WorkCompletion r = Responder.awaitCompletion(a.cq(), "the Receive in the deregistered region");
            assertThat(r.wrId()).isEqualTo(RECEIVE_WR_ID);
            assertThat(r.status()).as(r.toString()).isEqualTo(CompletionStatus.LOC_PROT_ERR);
            assertThat(r.vendorError()).as(r.toString()).isEqualTo(TerminateCode.DDP_CATASTROPHIC.bits());
            assertThat(bytes(given.segment(), 64, 192)).as("memory given back: nothing of the second segment")
                    .isEqualTo(new byte[192]);
            rig.assertGoodConnectionServes("after a segment refused for a deregistered receive region");
        }
    }

    /**
     * A Terminate from the peer in the middle of a Send: the Receive that Send was filling is the
     * oldest, so it is flushed first, then the Receive queued behind it (Receives complete in the
     * order they were posted).
     */
    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void aTerminateInTheMiddleOfASendFlushesTheReceivesInPostingOrder(boolean crc) {
        try (Rig rig = new Rig(crc); RawPeer peer = RawPeer.connect(RAW_IP, rig.server.address())) {
            Responder.Accepted a = rig.connectRaw(peer);
            a.qp().postReceive(new ReceiveRequest(1, new Sge(a.region(), 0, 128)));
            a.qp().postReceive(new ReceiveRequest(2, new Sge(a.region(), 128, 128)));
            byte[] first = payload(64);
            peer.send(FpduBuilder.fpdus(crc).frame(FpduBuilder.untagged(0x01, 0x43, 0, 0, 1, 0, first)).bytes());
            awaitBytes(a.region().segment(), 0, first, "the first segment of the Send");
            peer.send(FpduBuilder.fpdus(crc).terminate(1, TerminateCode.RDMAP_CATASTROPHIC_STREAM.bits() << 16).bytes());
            WorkCompletion w1 = Responder.awaitCompletion(a.cq(), "the first flushed Receive");
            WorkCompletion w2 = Responder.awaitCompletion(a.cq(), "the second flushed Receive");
            assertThat(List.of(w1.wrId(), w2.wrId())).as("flushed in posting order: %s, %s", w1, w2).containsExactly(1L, 2L);
            assertThat(List.of(w1.status(), w2.status())).containsOnly(CompletionStatus.WR_FLUSH_ERR);
            assertThat(a.qp().state()).isEqualTo(QpState.ERROR);
        }
    }

    /**
     * A region a Read Request was accepted from is deregistered before its Read Response leaves
     * (the peer is not reading, so the response ahead of it holds the transmitter): not a byte of
     * it goes out. The peer gets every byte of the earlier response, then a Terminate naming an
     * invalid STag, as siw checks the source at transmit; the responder raises QP_ACCESS_ERROR.
     */
    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void aReadResponseWhoseSourceWasDeregisteredAfterItsRequestSendsNothing(boolean crc) {
        try (Rig rig = new Rig(crc); RawPeer peer = RawPeer.connect(RAW_IP, rig.server.address())) {
            Responder.Accepted a = rig.connectRaw(peer);
            int bigLength = 64 << 20; // far more than the sockets buffer: its response holds the transmitter
            MemoryRegion big = rig.server.pd.registerMemory(rig.server.arena.allocate(bigLength, 64), Access.LOCAL_WRITE | Access.REMOTE_READ);
            MemoryRegion given = rig.server.pd.registerMemory(rig.server.arena.allocate(4096, 64), Access.LOCAL_WRITE | Access.REMOTE_READ);
            fill(given.segment(), 0, 64, 9);
            a.qp().postReceive(new ReceiveRequest(RECEIVE_WR_ID, new Sge(a.region(), 0, 64)));
            // Read 1 (big), Read 2 (from the region about to go), then a Send: its arrival proves Read 2 was accepted
            peer.send(FpduBuilder.fpdus(crc)
                    .readRequest(1, PEER_SINK_STAG, PEER_SINK_TO, bigLength, big.rkey(), 0)
                    .readRequest(2, PEER_SINK_STAG, PEER_SINK_TO, 64, given.rkey(), 0)
                    .send(1, payload(16)).bytes());
            WorkCompletion witness = Responder.awaitCompletion(a.cq(), "the Send behind both Read Requests");
            assertThat(witness.status()).as(witness.toString()).isEqualTo(CompletionStatus.SUCCESS);
            given.close();

            long received = 0;
            while (received < bigLength) {
                byte[] fpdu = peer.readFpdu("Read Response 1 at byte " + received);
                Fpdu f = FpduDecoder.decodeFpdu(fpdu, 0, fpdu.length, crc ? FpduDecoder.CrcMode.VERIFY : FpduDecoder.CrcMode.NOT_USED);
                assertThat(f.opcode()).as("byte " + received + " of Read Response 1: " + f.describe()).isEqualTo(RdmapOpcode.READ_RESPONSE);
                received += f.payloadLength();
            }
            assertThat(received).isEqualTo(bigLength);
            byte[] term = peer.readFpdu("the Terminate instead of Read Response 2");
            checkTerminate(term, crc, TerminateCode.RDMAP_INVALID_STAG, null, "Read Response from a deregistered region");
            assertThat(peer.awaitClose("the Terminate")).isEqualTo(RawPeer.Close.EOF);
            AsyncEvent e = rig.server.awaitEvent(a.qp(), "the refused Read Response");
            assertThat(e.type()).as(e.detail()).isEqualTo(QP_ACCESS_ERROR);
            big.close();
            rig.assertGoodConnectionServes("after a Read Response refused for a deregistered source");
        }
    }

    /**
     * The peer sends one Read Request more than the IRD it was given while the first one's response
     * still holds the transmitter (the peer is not reading): the extra request is refused with an
     * RDMAP catastrophic Terminate quoting it, the responder raises QP_FATAL, and what went out
     * before the Terminate is Read Response data only.
     */
    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void aReadRequestBeyondTheNegotiatedIrdIsRefused(boolean crc) {
        try (Rig rig = new Rig(crc); RawPeer peer = RawPeer.connect(RAW_IP, rig.server.address())) {
            Responder.Accepted a = rig.connectRaw(peer);
            int ird = Math.min(PEER_ORD, a.qp().config().ird());
            int bigLength = 64 << 20; // far more than the sockets buffer: its response holds the transmitter
            MemoryRegion big = rig.server.pd.registerMemory(rig.server.arena.allocate(bigLength, 64), Access.LOCAL_WRITE | Access.REMOTE_READ);
            FpduBuilder requests = FpduBuilder.fpdus(crc);
            byte[] extra = null;
            for (int msn = 1; msn <= ird + 1; msn++) {
                extra = FpduBuilder.untagged(0x41, 0x41, 1, 0, msn, 0, FpduBuilder.readRequestPayload(PEER_SINK_STAG, PEER_SINK_TO, bigLength, big.rkey(), 0));
                requests.frame(extra);
            }
            peer.send(requests.bytes());
            // the peer reads nothing until the responder has judged every request: its first
            // response cannot drain, so the IRD's last slot is still taken when the extra one comes
            AsyncEvent e = rig.server.awaitEvent(a.qp(), "the Read Request beyond the IRD");
            assertThat(e.type()).as(e.detail()).isEqualTo(QP_FATAL);
            assertThat(e.detail()).contains("RDMA Read Request beyond the negotiated IRD of " + ird);

            byte[] fpdu = peer.readFpdu("Read Response data, then the Terminate");
            Fpdu f = FpduDecoder.decodeFpdu(fpdu, 0, fpdu.length, crc ? FpduDecoder.CrcMode.VERIFY : FpduDecoder.CrcMode.NOT_USED);
            long responded = 0;
            while (f.opcode() == RdmapOpcode.READ_RESPONSE) {
                responded += f.payloadLength();
                assertThat(responded).as("Read Response bytes before the Terminate: the first response's, cut short").isLessThan(bigLength);
                fpdu = peer.readFpdu("the Terminate after " + responded + " bytes of Read Response");
                f = FpduDecoder.decodeFpdu(fpdu, 0, fpdu.length, crc ? FpduDecoder.CrcMode.VERIFY : FpduDecoder.CrcMode.NOT_USED);
            }
            checkTerminate(fpdu, crc, TerminateCode.RDMAP_CATASTROPHIC_STREAM, extra, "Read Request " + (ird + 1) + " of an IRD of " + ird);
            assertThat(peer.awaitClose("the Terminate")).isEqualTo(RawPeer.Close.EOF);
            big.close();
            rig.assertGoodConnectionServes("after a Read Request beyond the IRD");
        }
    }

    /** What happens to the sink of an outstanding Read, and to which STag the raw peer answers. */
    enum SinkCase {
        /** Reregistered: a fresh STag (issue 12, row 6); the peer answers to the STag its request named. */
        REREGISTERED_ANSWER_TO_ASKED(true, false),
        /** Deregistered; the peer answers to the STag its request named. */
        DEREGISTERED_ANSWER_TO_ASKED(false, false),
        /** Reregistered; the peer answers to the new STag, which no request named (the peer never learned it). */
        REREGISTERED_ANSWER_TO_NEW(true, true);

        final boolean reregister;
        final boolean answerToNew;

        SinkCase(boolean reregister, boolean answerToNew) {
            this.reregister = reregister;
            this.answerToNew = answerToNew;
        }
    }

    static Stream<Arguments> sinkCases() {
        return Stream.of(SinkCase.values()).flatMap(c -> Stream.of(Arguments.of(c, true), Arguments.of(c, false)));
    }

    /**
     * The application gives back the sink of an RDMA Read after its Read Request left. A response
     * to the STag the request named is not placed and the Read completes {@code LOC_PROT_ERR}: the
     * fault is local, as siw's check of the sink in {@code siw_proc_rresp} makes it. A response to
     * any other STag is the peer's fault, even the sink's new STag: the Read does not succeed. In
     * every case not a byte lands, and the peer gets the DDP invalid-STag Terminate.
     */
    @ParameterizedTest(name = "{0} crc={1}")
    @MethodSource("sinkCases")
    void aReadResponseForASinkGivenBackAfterTheRequestLeftPlacesNothing(SinkCase c, boolean crc) {
        try (Rig rig = new Rig(crc); RawPeer peer = RawPeer.connect(RAW_IP, rig.server.address())) {
            Responder.Accepted a = rig.connectRaw(peer);
            MemoryRegion sink = rig.server.pd.registerMemory(rig.server.arena.allocate(256, 64), Access.LOCAL_WRITE);
            int asked = sink.lkey();
            a.qp().postSend(new WorkRequest.RdmaRead(9, new Sge(sink, 0, 64), 0, 0x4242_4201, WrFlags.SIGNALED));
            byte[] request = peer.readFpdu("the Read Request");
            Fpdu r = FpduDecoder.decodeFpdu(request, 0, request.length, crc ? FpduDecoder.CrcMode.VERIFY : FpduDecoder.CrcMode.NOT_USED);
            assertThat(r.opcode()).as(r.describe()).isEqualTo(RdmapOpcode.READ_REQUEST);
            int answered = asked;
            if (c.reregister) {
                assertThat(sink.reregister(Access.LOCAL_WRITE)).as("a reregistered region's new STag").isNotEqualTo(asked);
                answered = c.answerToNew ? sink.lkey() : asked;
            } else {
                sink.close();
            }
            byte[] response = FpduBuilder.tagged(0xC1, 0x42, answered, 0, payload(64));
            peer.send(FpduBuilder.fpdus(crc).frame(response).bytes());

            byte[] term = peer.readFpdu("the Terminate for the Read Response");
            checkTerminate(term, crc, TerminateCode.DDP_TAGGED_INVALID_STAG, response, c.toString());
            assertThat(peer.awaitClose("the Terminate")).isEqualTo(RawPeer.Close.EOF);
            WorkCompletion w = Responder.awaitCompletion(a.cq(), "the Read");
            assertThat(w.wrId()).isEqualTo(9);
            assertThat(w.status()).as(w.toString())
                    .isEqualTo(c.answerToNew ? CompletionStatus.WR_FLUSH_ERR : CompletionStatus.LOC_PROT_ERR);
            assertThat(w.byteLength()).as(w.toString()).isZero();
            if (!c.answerToNew) {
                assertThat(w.vendorError()).as(w.toString()).isEqualTo(TerminateCode.DDP_TAGGED_INVALID_STAG.bits());
            }
            AsyncEvent e = rig.server.awaitEvent(a.qp(), "the refused Read Response");
            assertThat(e.type()).as(e.detail()).isEqualTo(QP_ACCESS_ERROR);
            assertThat(e.detail()).contains(switch (c) {
                case REREGISTERED_ANSWER_TO_ASKED -> "to sink STag " + STag.format(asked) + ", which the application reregistered as "
                        + STag.format(sink.lkey()) + " after the Read Request left";
                case DEREGISTERED_ANSWER_TO_ASKED -> "to sink STag " + STag.format(asked) + ", which the application deregistered after the Read Request left";
                case REREGISTERED_ANSWER_TO_NEW -> "Read Response to STag " + STag.format(answered) + " but the outstanding Read Request named sink STag "
                        + STag.format(asked);
            });
            if (c.reregister) {
                assertThat(bytes(sink.segment(), 0, 64)).as("the sink after " + c).isEqualTo(new byte[64]);
                // a region keeps the counters it was registered with, under its first STag
                String device = rig.server.device.name();
                assertThat(counter(mrCounter(device, asked, "access faults"))).as("access faults of the sink after " + c).isEqualTo(1);
                assertThat(counter(mrCounter(device, asked, "remote accesses"))).as("remote accesses of the sink after " + c).isZero();
                sink.close();
            }
            rig.assertGoodConnectionServes("after " + c);
        }
    }

    /**
     * A zero-length Read names no bytes, so its response is checked for its STag and TO only (as
     * siw_proc_rresp checks it): the Read completes SUCCESS even though the application deregistered
     * its sink after the request left, and the connection goes on.
     */
    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void aZeroLengthReadCompletesThoughItsSinkWasDeregisteredAfterTheRequestLeft(boolean crc) {
        try (Rig rig = new Rig(crc); RawPeer peer = RawPeer.connect(RAW_IP, rig.server.address())) {
            Responder.Accepted a = rig.connectRaw(peer);
            MemoryRegion sink = rig.server.pd.registerMemory(rig.server.arena.allocate(256, 64), Access.LOCAL_WRITE);
            int asked = sink.lkey();
            a.qp().postSend(new WorkRequest.RdmaRead(9, new Sge(sink, 16, 0), 0, 0x4242_4201, WrFlags.SIGNALED));
            peer.readFpdu("the zero-length Read Request");
            sink.close();
            peer.send(FpduBuilder.fpdus(crc).frame(FpduBuilder.tagged(0xC1, 0x42, asked, 16, new byte[0])).bytes());
            WorkCompletion w = Responder.awaitCompletion(a.cq(), "the zero-length Read");
            assertThat(w.wrId()).isEqualTo(9);
            assertThat(w.status()).as(w.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(w.byteLength()).isZero();
            assertThat(a.qp().state()).isEqualTo(QpState.RTS);
            rig.assertGoodConnectionServes("after a zero-length Read into a sink given back");
        }
    }

    /**
     * A Read Response in two segments into a sink at offset 16 of its region: each segment must
     * carry the TO where the bytes before it end (the sink's TO plus what arrived). In order, both
     * land and the Read succeeds; a second segment at the first one's TO, or one running past the
     * sink, is refused with a base-or-bounds Terminate and places nothing.
     */
    @ParameterizedTest(name = "{0} crc={1}")
    @MethodSource("segmentCases")
    void aReadResponseInSegmentsLandsOnlyAtTheToEachMustCarry(String second, boolean crc) {
        try (Rig rig = new Rig(crc); RawPeer peer = RawPeer.connect(RAW_IP, rig.server.address())) {
            Responder.Accepted a = rig.connectRaw(peer);
            MemoryRegion sink = rig.server.pd.registerMemory(rig.server.arena.allocate(256, 64), Access.LOCAL_WRITE);
            a.qp().postSend(new WorkRequest.RdmaRead(9, new Sge(sink, 16, 64), 0, 0x4242_4201, WrFlags.SIGNALED));
            peer.readFpdu("the Read Request");
            byte[] data = payload(96);
            peer.send(FpduBuilder.fpdus(crc).frame(FpduBuilder.tagged(0x81, 0x42, sink.lkey(), 16, Arrays.copyOf(data, 32))).bytes());
            awaitBytes(sink.segment(), 16, Arrays.copyOf(data, 32), "the first segment of the Read Response");
            byte[] rest = switch (second) {
                case "in order" -> FpduBuilder.tagged(0xC1, 0x42, sink.lkey(), 48, Arrays.copyOfRange(data, 32, 64));
                case "at the first one's TO" -> FpduBuilder.tagged(0xC1, 0x42, sink.lkey(), 16, Arrays.copyOfRange(data, 32, 64));
                default -> FpduBuilder.tagged(0xC1, 0x42, sink.lkey(), 48, Arrays.copyOfRange(data, 32, 96)); // past the sink
            };
            peer.send(FpduBuilder.fpdus(crc).frame(rest).bytes());
            WorkCompletion w = Responder.awaitCompletion(a.cq(), "the Read");
            assertThat(w.wrId()).isEqualTo(9);
            if (second.equals("in order")) {
                assertThat(w.status()).as(w.toString()).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(w.byteLength()).isEqualTo(64);
                assertThat(bytes(sink.segment(), 16, 64)).isEqualTo(Arrays.copyOf(data, 64));
                assertThat(bytes(sink.segment(), 80, 64)).as("past the sink").isEqualTo(new byte[64]);
                assertThat(a.qp().state()).isEqualTo(QpState.RTS);
                assertThat(counter(mrCounter(rig.server.device.name(), sink.lkey(), "remote accesses"))).as("segments placed").isEqualTo(2);
                assertThat(counter(mrCounter(rig.server.device.name(), sink.lkey(), "access faults"))).isZero();
            } else {
                byte[] term = peer.readFpdu("the Terminate for the second segment");
                checkTerminate(term, crc, TerminateCode.DDP_TAGGED_BASE_BOUNDS, rest, second);
                assertThat(w.status()).as(w.toString()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
                assertThat(bytes(sink.segment(), 16, 32)).as("the first segment stays").isEqualTo(Arrays.copyOf(data, 32));
                assertThat(bytes(sink.segment(), 48, 96)).as("nothing of the refused segment").isEqualTo(new byte[96]);
                AsyncEvent e = rig.server.awaitEvent(a.qp(), "the refused segment");
                assertThat(e.type()).as(e.detail()).isEqualTo(QP_ACCESS_ERROR);
                assertThat(counter(mrCounter(rig.server.device.name(), sink.lkey(), "remote accesses"))).as("segments placed").isEqualTo(1);
                assertThat(counter(mrCounter(rig.server.device.name(), sink.lkey(), "access faults"))).as("refused segments").isEqualTo(1);
            }
            sink.close();
            rig.assertGoodConnectionServes("after a second segment " + second);
        }
    }

    static Stream<Arguments> segmentCases() {
        return Stream.of("in order", "at the first one's TO", "past the sink")
                .flatMap(c -> Stream.of(Arguments.of(c, true), Arguments.of(c, false)));
    }

    /** The value of the RAS counter {@code label} of this process. */
    static long counter(String label) {
        try (dev.tandem.ras.RasReader reader = dev.tandem.ras.RasReader.open(dev.tandem.ras.ProcessRas.current().path())) {
            return reader.counters().stream().filter(c -> c.label().equals(label)).mapToLong(dev.tandem.ras.CounterSnapshot::value)
                    .findFirst().orElseThrow(() -> new AssertionError("no counter '" + label + "'"));
        }
    }

    /** The detail of a refused FPDU whose ULPDU_LENGTH cannot hold any DDP header. */
    private static String tooShort(int length) {
        return "ULPDU_LENGTH " + length + " is shorter than any DDP header (14 bytes tagged, 18 untagged)";
    }

    /** The label of counter {@code name} of the region registered as {@code stag} on adapter {@code device}. */
    private static String mrCounter(String device, int stag, String name) {
        return device + " mr " + String.format("0x%08x", stag) + " " + name;
    }

    /** Waits (bounded) until {@code expected} lies at {@code offset} of {@code s}. */
    private static void awaitBytes(MemorySegment s, long offset, byte[] expected, String what) {
        long deadline = System.nanoTime() + RawPeer.WAIT.toNanos();
        while (!Arrays.equals(bytes(s, offset, expected.length), expected)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(what + " was not placed within " + RawPeer.WAIT);
            }
            LockSupport.parkNanos(200_000);
        }
    }

    // ------------------------------------------------------------------------------------------

    /**
     * Checks that {@code fpdu} is a well-formed Terminate (RFC 5040 section 4.8: untagged, L, queue
     * 2, MSN 1, MO 0) with {@code code}; when it quotes headers they must be the offending ones.
     */
    static Fpdu.Terminate checkTerminate(byte[] fpdu, boolean crc, TerminateCode code, byte[] offendingUlpdu, String what) {
        Fpdu f = FpduDecoder.decodeFpdu(fpdu, 0, fpdu.length, crc ? FpduDecoder.CrcMode.VERIFY : FpduDecoder.CrcMode.NOT_USED);
        String d = what + ": " + f.describe() + " " + HexFormat.of().formatHex(fpdu);
        assertThat(f.opcode()).as(d).isEqualTo(RdmapOpcode.TERMINATE);
        assertThat(f.tagged()).as(d).isFalse();
        assertThat(f.last()).as(d).isTrue();
        assertThat(f.qn()).as(d).isEqualTo(FpduDescriptor.QN_TERMINATE);
        assertThat(f.msn()).as(d).isEqualTo(1);
        assertThat(f.mo()).as(d).isZero();
        assertThat(f.rsvdUlp()).as(d).isZero();
        if (!crc) {
            assertThat(f.crc()).as("CRC field without CRC: " + d).isZero();
        }
        Fpdu.Terminate t = f.terminate();
        assertThat(t.code()).as("Terminate code: " + d).isEqualTo(code);
        assertThat(t.control() & 0x1FFF).as("reserved bits of the Terminate control word: " + d).isZero();
        byte[] payload = Arrays.copyOfRange(fpdu, f.payloadOffset(), f.payloadOffset() + f.payloadLength());
        if (offendingUlpdu != null && offendingUlpdu.length >= FpduDescriptor.TAGGED_HEADER_LENGTH && (offendingUlpdu[0] & 0x80) != 0) {
            // the first 16 bytes read of any FPDU hold a whole tagged header: it is always quoted
            assertThat(t.d()).as("a tagged segment's header is quoted: " + d).isTrue();
        }
        if (!t.m() && !t.d() && !t.r()) {
            assertThat(payload).as("a Terminate that quotes nothing is the control word only: " + d).hasSize(4);
            return t;
        }
        assertThat(t.d()).as("M or R without D: " + d).isTrue();
        assertThat(t.m()).as("D without M (DDP Segment Length valid): " + d).isTrue();
        boolean tagged = (offendingUlpdu[0] & 0x80) != 0;
        if (!tagged && (offendingUlpdu[1] & 0x0F) == RdmapOpcode.READ_REQUEST
                && offendingUlpdu.length >= FpduDescriptor.UNTAGGED_HEADER_LENGTH + ReadRequestDescriptor.LENGTH) {
            // a Read Request's DDP header is read together with its RDMAP header: quoting one quotes both
            assertThat(t.r()).as("a quoted Read Request quotes its RDMAP header too: " + d).isTrue();
        }
        int ddpHeader = tagged ? FpduDescriptor.TAGGED_HEADER_LENGTH : FpduDescriptor.UNTAGGED_HEADER_LENGTH;
        int rdmapHeader = t.r() ? ReadRequestDescriptor.LENGTH : 0;
        assertThat(payload).as("control, DDP segment length, quoted headers: " + d).hasSize(4 + 2 + ddpHeader + rdmapHeader);
        assertThat(((payload[4] & 0xFF) << 8) | (payload[5] & 0xFF))
                .as("DDP Segment Length = the offending segment's ULPDU_LENGTH (RFC 5040 section 4.8): " + d)
                .isEqualTo(offendingUlpdu.length);
        assertThat(Arrays.copyOfRange(payload, 6, 6 + ddpHeader)).as("quoted DDP header: " + d)
                .isEqualTo(Arrays.copyOf(offendingUlpdu, ddpHeader));
        if (t.r()) {
            assertThat(Arrays.copyOfRange(payload, 6 + ddpHeader, payload.length)).as("quoted Read Request header: " + d)
                    .isEqualTo(Arrays.copyOfRange(offendingUlpdu, ddpHeader, ddpHeader + rdmapHeader));
        }
        return t;
    }

    static byte[] payload(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 7 + 3);
        }
        return b;
    }

    /** Flips bits of the last CRC byte of a one-FPDU stream. */
    static byte[] corruptCrc(byte[] fpdu) {
        fpdu[fpdu.length - 1] ^= 0x5A;
        return fpdu;
    }

    static byte[] bytes(MemorySegment s, long offset, int n) {
        return s.asSlice(offset, n).toArray(ValueLayout.JAVA_BYTE);
    }

    private static void fill(MemorySegment s, long offset, int n, int seed) {
        for (int i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, offset + i, (byte) (seed + i * 13));
        }
    }

    /**
     * The adapter under test with its listener and application thread, and a well-behaved Tandem
     * initiator (its own adapter) connected to it before anything else happens.
     */
    private static final class Rig implements AutoCloseable {
        final boolean crc;
        final Responder server;
        final IwarpDevice client;
        final ProtectionDomain clientPd;
        final CompletionQueue clientCq;
        final MemoryRegion clientRegion;
        final QueuePair clientQp;
        final Responder.Accepted good;

        Rig(boolean crc) {
            this.crc = crc;
            server = new Responder(SERVER_IP, crc);
            client = IwarpDevice.open(IwarpConfig.of(CLIENT_IP).withCrc(crc));
            clientPd = client.allocateProtectionDomain();
            ProtectionDomain pd = clientPd;
            clientCq = client.createCompletionQueue(256);
            clientRegion = pd.registerMemory(server.arena.allocate(8192, 64), Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
            clientQp = pd.createQueuePair(QueuePairConfig.of(clientCq));
            var accepted = server.acceptNext();
            byte[] rkeys = clientQp.connect(server.address(), new byte[0], Responder.WAIT);
            good = Responder.await(accepted, "accepting the well-behaved connection");
            assertThat(ByteBuffer.wrap(rkeys).getInt()).isEqualTo(good.region().rkey());
        }

        /** The raw peer's MPA exchange: rev 2 Enhanced Request with IRD/ORD words and C per variant; checks the Reply. */
        Responder.Accepted connectRaw(RawPeer peer) {
            var accepted = server.acceptNext();
            peer.send(FpduBuilder.request(crc, PEER_IRD, PEER_ORD, new byte[0]).bytes());
            RawPeer.Reply reply = peer.readReply();
            Responder.Accepted a = Responder.await(accepted, "accepting the raw peer");
            assertThat(reply.key()).as(reply.toString()).isEqualTo("MPA ID Rep Frame");
            assertThat(reply.revision()).as(reply.toString()).isEqualTo(2);
            assertThat(reply.enhanced()).as(reply.toString()).isTrue();
            assertThat(reply.reject()).as(reply.toString()).isFalse();
            assertThat(reply.markers()).as(reply.toString()).isFalse();
            assertThat(reply.crc()).as(reply.toString()).isEqualTo(crc);
            assertThat(reply.pdLength()).as(reply.toString()).isEqualTo(12);
            ByteBuffer keys = ByteBuffer.wrap(reply.applicationData());
            assertThat(keys.getInt()).isEqualTo(a.region().rkey());
            assertThat(keys.getInt()).isEqualTo(a.readOnly().rkey());
            assertThat(reply.ird()).as("IRD offered to the raw peer").isEqualTo(Math.min(PEER_ORD, a.qp().config().ird()));
            assertThat(reply.ord()).as("ORD offered to the raw peer").isEqualTo(Math.min(PEER_IRD, a.qp().config().ord()));
            return a;
        }

        /** The well-behaved connection still carries Sends and RDMA Writes both ways, and the engine thread lives. */
        void assertGoodConnectionServes(String when) {
            assertThat(server.device.isEngineRunning()).as("engine thread %s %s", server.device.engineThreadName(), when).isTrue();
            assertThat(good.qp().state()).as("well-behaved QP " + when).isEqualTo(QpState.RTS);
            assertThat(clientQp.state()).as("well-behaved initiator QP " + when).isEqualTo(QpState.RTS);
            MemorySegment clientMem = clientRegion.segment();
            MemorySegment goodMem = good.region().segment();

            // Initiator → adapter under test: RDMA Write, then a Send whose arrival proves the Write was placed.
            fill(clientMem, 0, 64, 11);
            good.qp().postReceive(new ReceiveRequest(1, new Sge(good.region(), 4096, 64)));
            clientQp.postSend(new WorkRequest.RdmaWrite(10, new Sge(clientRegion, 0, 64), 1024, good.region().rkey(), WrFlags.SIGNALED));
            clientQp.postSend(new WorkRequest.Send(11, new Sge(clientRegion, 0, 24), WrFlags.SIGNALED));
            for (long wrId : new long[] {10, 11}) {
                WorkCompletion w = Responder.awaitCompletion(clientCq, "initiator request " + wrId + " " + when);
                assertThat(w.status()).as(w.toString()).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(w.wrId()).isEqualTo(wrId);
            }
            WorkCompletion r = Responder.awaitCompletion(good.cq(), "the well-behaved receive " + when);
            assertThat(r.status()).as(r.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(r.byteLength()).isEqualTo(24);
            assertThat(bytes(goodMem, 4096, 24)).isEqualTo(bytes(clientMem, 0, 24));
            assertThat(bytes(goodMem, 1024, 64)).isEqualTo(bytes(clientMem, 0, 64));

            // Adapter under test → initiator: its transmitter works too.
            fill(goodMem, 0, 64, 23);
            clientQp.postReceive(new ReceiveRequest(2, new Sge(clientRegion, 4096, 64)));
            good.qp().postSend(new WorkRequest.RdmaWrite(20, new Sge(good.region(), 0, 64), 2048, clientRegion.rkey(), WrFlags.SIGNALED));
            good.qp().postSend(new WorkRequest.Send(21, new Sge(good.region(), 0, 40), WrFlags.SIGNALED));
            for (long wrId : new long[] {20, 21}) {
                WorkCompletion w = Responder.awaitCompletion(good.cq(), "well-behaved request " + wrId + " " + when);
                assertThat(w.status()).as(w.toString()).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(w.wrId()).isEqualTo(wrId);
            }
            WorkCompletion r2 = Responder.awaitCompletion(clientCq, "the initiator's receive " + when);
            assertThat(r2.status()).as(r2.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(r2.byteLength()).isEqualTo(40);
            assertThat(bytes(clientMem, 4096, 40)).isEqualTo(bytes(goodMem, 0, 40));
            assertThat(bytes(clientMem, 2048, 64)).isEqualTo(bytes(goodMem, 0, 64));

            assertThat(server.drainEvents()).as("events on the adapter under test " + when)
                    .noneMatch(e -> e.resource() == good.qp() && e.type() != AsyncEventType.COMMUNICATION_ESTABLISHED);
            AsyncEvent ce;
            while ((ce = client.pollAsyncEvent(java.time.Duration.ZERO)) != null) {
                assertThat(ce.type()).as("event on the initiator " + when + ": " + ce).isEqualTo(AsyncEventType.COMMUNICATION_ESTABLISHED);
            }
            assertThat(server.device.isEngineRunning()).as("engine thread " + when).isTrue();
        }

        @Override
        public void close() {
            clientQp.close();
            clientRegion.close();
            clientCq.close();
            clientPd.close();
            client.close();
            server.close();
        }
    }
}

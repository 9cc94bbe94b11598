package dev.tandem.iwarp.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Byte layouts written out by hand from the RFC text (RFC 5044 MPA, RFC 6581, RFC 5041 DDP,
 * RFC 5040 RDMAP, RFC 3720 appendix B.4 for CRC32C) and checked against the wire classes.
 */
class WireGoldenTest {

    private static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    // ---- RFC 5044 section 7.1: MPA Request / Reply frame ----

    /** "MPA ID Req Frame" and "MPA ID Rep Frame" in ASCII. */
    private static final byte[] REQ_KEY = bytes(0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, 0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6D, 0x65);
    private static final byte[] REP_KEY = bytes(0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, 0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6D, 0x65);

    @Test
    void mpaRequestLayout() {
        MpaFrame f = new MpaFrame(false, false, true, false, true, 2, bytes(0x00, 0x80, 0x00, 0x40, 0xAB));

        byte[] expected = new byte[16 + 4 + 5];
        System.arraycopy(REQ_KEY, 0, expected, 0, 16);
        System.arraycopy(bytes(0x50, 0x02, 0x00, 0x05, 0x00, 0x80, 0x00, 0x40, 0xAB), 0, expected, 16, 9);
        assertThat(f.encode()).isEqualTo(expected);
        assertThat(MpaFrame.REQUEST_KEY).isEqualTo(REQ_KEY);
        assertThat(MpaFrame.REPLY_KEY).isEqualTo(REP_KEY);
        assertThat(new int[] {MpaFrame.KEY_LENGTH, MpaFrame.FLAGS_OFFSET, MpaFrame.REVISION_OFFSET, MpaFrame.PD_LENGTH_OFFSET,
                MpaFrame.HEADER_LENGTH, MpaFrame.MAX_PRIVATE_DATA}).containsExactly(16, 16, 17, 18, 20, 512);
    }

    @Test
    void mpaFlagBits() {
        // M 0x80, C 0x40, R 0x20, Enhanced 0x10 (RFC 6581), low four bits reserved.
        byte[] pd = new byte[0];
        assertThat(new MpaFrame(true, true, false, false, false, 1, pd).encode()[16]).isEqualTo((byte) 0x80);
        assertThat(new MpaFrame(true, false, true, false, false, 1, pd).encode()[16]).isEqualTo((byte) 0x40);
        assertThat(new MpaFrame(true, false, false, true, false, 1, pd).encode()[16]).isEqualTo((byte) 0x20);
        assertThat(new MpaFrame(true, false, false, false, true, 2, pd).encode()[16]).isEqualTo((byte) 0x10);
        assertThat(Arrays.copyOf(new MpaFrame(true, false, false, false, false, 1, pd).encode(), 16)).isEqualTo(REP_KEY);
        assertThat(MpaFrame.FLAG_RESERVED).isEqualTo(0x0F);
    }

    @Test
    void mpaEncodeDecodeRoundTrip() {
        byte[] pd = new byte[512];
        for (int i = 0; i < pd.length; i++) {
            pd[i] = (byte) (i * 7);
        }
        for (boolean reply : new boolean[] {false, true}) {
            MpaFrame f = new MpaFrame(reply, true, true, reply, true, 2, pd);
            byte[] wire = f.encode();
            assertThat(wire).hasSize(20 + 512);
            assertThat(wire[18]).isEqualTo((byte) 0x02);
            assertThat(wire[19]).isEqualTo((byte) 0x00);

            byte[] header = Arrays.copyOf(wire, 20);
            assertThat(MpaFrame.checkHeader(header, reply)).isEqualTo(512);
            MpaFrame back = MpaFrame.decode(header, Arrays.copyOfRange(wire, 20, wire.length), reply);
            assertThat(back.reply()).isEqualTo(reply);
            assertThat(back.markers()).isTrue();
            assertThat(back.crc()).isTrue();
            assertThat(back.reject()).isEqualTo(reply);
            assertThat(back.enhanced()).isTrue();
            assertThat(back.revision()).isEqualTo(2);
            assertThat(back.privateData()).isEqualTo(pd);
        }
    }

    private static byte[] header(byte[] key, int flags, int revision, int pdLength) {
        return ByteBuffer.allocate(20).put(key).put((byte) flags).put((byte) revision).putShort((short) pdLength).array();
    }

    @Test
    void mpaCheckHeaderErrors() {
        byte[] badKey = REQ_KEY.clone();
        badKey[15] = 0x01;
        assertThatThrownBy(() -> MpaFrame.checkHeader(header(badKey, 0x10, 2, 4), false)).isInstanceOf(MpaException.class)
                .hasMessage("MPA key is 'MPA ID Req Fram.', expected 'MPA ID Req Frame'");
        assertThatThrownBy(() -> MpaFrame.checkHeader(header(REQ_KEY, 0x10, 2, 4), true)).isInstanceOf(MpaException.class)
                .hasMessage("MPA key is 'MPA ID Req Frame', expected 'MPA ID Rep Frame'");
        assertThatThrownBy(() -> MpaFrame.checkHeader(header(REP_KEY, 0x10, 0, 4), true)).isInstanceOf(MpaException.class)
                .hasMessage("MPA revision 0 is not supported (1 or 2)");
        assertThatThrownBy(() -> MpaFrame.checkHeader(header(REP_KEY, 0x10, 3, 4), true)).isInstanceOf(MpaException.class)
                .hasMessage("MPA revision 3 is not supported (1 or 2)");
        assertThatThrownBy(() -> MpaFrame.checkHeader(header(REQ_KEY, 0x10, 2, 513), false)).isInstanceOf(MpaException.class)
                .hasMessage("MPA PD_Length 513 exceeds the limit of 512");
        assertThatThrownBy(() -> MpaFrame.checkHeader(Arrays.copyOf(header(REQ_KEY, 0x10, 2, 4), 19), false))
                .isInstanceOf(MpaException.class).hasMessage("MPA header has 19 bytes, needs 20");
        // The limits themselves are accepted.
        assertThat(MpaFrame.checkHeader(header(REQ_KEY, 0x10, 1, 512), false)).isEqualTo(512);
        assertThat(MpaFrame.checkHeader(header(REP_KEY, 0x00, 2, 0), true)).isZero();
        // The constructor refuses the same.
        assertThatThrownBy(() -> new MpaFrame(false, false, false, false, false, 3, new byte[0])).isInstanceOf(MpaException.class)
                .hasMessage("MPA revision 3 is not 1 or 2");
        assertThatThrownBy(() -> new MpaFrame(false, false, false, false, false, 1, new byte[513])).isInstanceOf(MpaException.class)
                .hasMessage("MPA private data of 513 bytes exceeds the limit of 512");
    }

    // ---- RFC 6581 section 7.1: IRD / ORD words ----

    @Test
    void enhancedParameterWords() {
        // Word 1: A(peer-to-peer) B(zero-length Send RTR) IRD(14); word 2: C(zero-length Write RTR) D(zero-length Read RTR) ORD(14).
        byte[] b = new byte[4];
        new EnhancedParameters(0x0123, 0x0456, false, false, false, false).encode(b, 0);
        assertThat(b).isEqualTo(bytes(0x01, 0x23, 0x04, 0x56));
        new EnhancedParameters(0, 0, true, false, false, false).encode(b, 0);
        assertThat(b).isEqualTo(bytes(0x80, 0x00, 0x00, 0x00));
        new EnhancedParameters(0, 0, false, true, false, false).encode(b, 0);
        assertThat(b).isEqualTo(bytes(0x40, 0x00, 0x00, 0x00));
        new EnhancedParameters(0, 0, false, false, true, false).encode(b, 0);
        assertThat(b).isEqualTo(bytes(0x00, 0x00, 0x80, 0x00));
        new EnhancedParameters(0, 0, false, false, false, true).encode(b, 0);
        assertThat(b).isEqualTo(bytes(0x00, 0x00, 0x40, 0x00));
        new EnhancedParameters(0x3FFF, 0x3FFF, true, true, true, true).encode(b, 0);
        assertThat(b).isEqualTo(bytes(0xFF, 0xFF, 0xFF, 0xFF));

        assertThat(EnhancedParameters.decode(bytes(0x80, 0x80, 0x40, 0x80)))
                .isEqualTo(new EnhancedParameters(128, 128, true, false, false, true));
        assertThat(EnhancedParameters.decode(bytes(0x00, 0x01, 0x00, 0x01))).isEqualTo(EnhancedParameters.of(1, 1));
        assertThat(EnhancedParameters.of(3, 5).prepend(bytes(0x61))).isEqualTo(bytes(0x00, 0x03, 0x00, 0x05, 0x61));
        assertThatThrownBy(() -> EnhancedParameters.of(0x4000, 0)).isInstanceOf(MpaException.class);
        MpaFrame enhanced = new MpaFrame(true, false, false, false, true, 2, bytes(0x00, 0x07, 0x00, 0x09, 0x61, 0x62));
        assertThat(enhanced.enhancedParameters()).isEqualTo(EnhancedParameters.of(7, 9));
        assertThat(enhanced.applicationData()).isEqualTo(bytes(0x61, 0x62));
        assertThat(new MpaFrame(true, false, false, false, true, 1, bytes(1, 2, 3, 4)).enhancedParameters())
                .as("revision 1 has no IRD/ORD words").isNull();
    }

    // ---- RFC 5041 section 4: DDP headers, RFC 5040 section 4: RDMAP control ----

    @Test
    void headerOffsetsAndControlBits() {
        // Tagged: control(2) STag(4) TO(8) = 14; untagged: control(2) RsvdULP(4) QN(4) MSN(4) MO(4) = 18; FPDU offsets add the 2-byte length.
        assertThat(new int[] {FpduDescriptor.DDP_CONTROL_OFFSET, FpduDescriptor.RDMAP_CONTROL_OFFSET, FpduDescriptor.TAGGED_STAG_OFFSET,
                FpduDescriptor.TAGGED_TO_OFFSET, FpduDescriptor.TAGGED_HEADER_LENGTH}).containsExactly(2, 3, 4, 8, 14);
        assertThat(new int[] {FpduDescriptor.UNTAGGED_INVALIDATE_STAG_OFFSET, FpduDescriptor.UNTAGGED_QN_OFFSET,
                FpduDescriptor.UNTAGGED_MSN_OFFSET, FpduDescriptor.UNTAGGED_MO_OFFSET, FpduDescriptor.UNTAGGED_HEADER_LENGTH})
                .containsExactly(4, 8, 12, 16, 18);
        // DDP control byte: T(1) L(1) Rsvd(4) DV(2)=01.
        assertThat(FpduDescriptor.ddpControl(false, false)).isEqualTo(0x01);
        assertThat(FpduDescriptor.ddpControl(false, true)).isEqualTo(0x41);
        assertThat(FpduDescriptor.ddpControl(true, false)).isEqualTo(0x81);
        assertThat(FpduDescriptor.ddpControl(true, true)).isEqualTo(0xC1);
        assertThat(FpduDescriptor.DDP_RESERVED_MASK).isEqualTo(0x3C);
        // RDMAP control byte: RV(2)=01 Rsvd(2) Opcode(4).
        for (int op = 0; op <= 15; op++) {
            assertThat(FpduDescriptor.rdmapControl(op)).isEqualTo(0x40 + op);
        }
        assertThat(FpduDescriptor.RDMAP_RESERVED_MASK).isEqualTo(0x30);
        // Queue numbers (RFC 5040 section 5.1).
        assertThat(new int[] {FpduDescriptor.QN_SEND, FpduDescriptor.QN_READ_REQUEST, FpduDescriptor.QN_TERMINATE}).containsExactly(0, 1, 2);
    }

    @Test
    void rdmapOpcodes() {
        // RFC 5040 section 4.3.
        assertThat(new int[] {RdmapOpcode.RDMA_WRITE, RdmapOpcode.READ_REQUEST, RdmapOpcode.READ_RESPONSE, RdmapOpcode.SEND,
                RdmapOpcode.SEND_INVALIDATE, RdmapOpcode.SEND_SE, RdmapOpcode.SEND_SE_INVALIDATE, RdmapOpcode.TERMINATE})
                .containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        for (int op = 0; op <= 7; op++) {
            assertThat(RdmapOpcode.isTagged(op)).as("opcode %d tagged", op).isEqualTo(op == 0 || op == 2);
            assertThat(RdmapOpcode.isSend(op)).as("opcode %d send", op).isEqualTo(op >= 3 && op <= 6);
            assertThat(RdmapOpcode.isSolicited(op)).as("opcode %d SE", op).isEqualTo(op == 5 || op == 6);
            assertThat(RdmapOpcode.invalidates(op)).as("opcode %d invalidates", op).isEqualTo(op == 4 || op == 6);
        }
    }

    @Test
    void taggedHeaderBytePositions() {
        // An RDMA Write FPDU, written out by hand: length 0x0011 (14 + 3), T|L|DV=1, RV=1 op 0, STag, TO, 3 payload bytes, 1 pad, CRC 0.
        byte[] fpdu = bytes(0x00, 0x11, 0xC1, 0x40, 0xA1, 0xB2, 0xC3, 0xD4, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF,
                0x61, 0x62, 0x63, 0x00, 0x00, 0x00, 0x00, 0x00);
        Fpdu f = FpduDecoder.decodeFpdu(fpdu, 0, fpdu.length, FpduDecoder.CrcMode.NOT_USED);

        assertThat(f.ulpduLength()).isEqualTo(17);
        assertThat(f.tagged()).isTrue();
        assertThat(f.last()).isTrue();
        assertThat(f.ddpVersion()).isEqualTo(1);
        assertThat(f.rdmapVersion()).isEqualTo(1);
        assertThat(f.opcode()).isEqualTo(RdmapOpcode.RDMA_WRITE);
        assertThat(f.stag()).isEqualTo(0xA1B2C3D4);
        assertThat(f.to()).isEqualTo(0x0123456789ABCDEFL);
        assertThat(f.payloadOffset()).isEqualTo(16);
        assertThat(f.payloadLength()).isEqualTo(3);
        assertThat(f.length()).isEqualTo(fpdu.length);
        assertThat(f.describe()).startsWith("@0 RDMA_WRITE TL ulpdu=17 stag=0xa1b2c3d4 to=0x0123456789abcdef payload=3");
        // Same with the L bit clear: 0x81.
        fpdu[2] = (byte) 0x81;
        assertThat(FpduDecoder.decodeFpdu(fpdu, 0, fpdu.length, FpduDecoder.CrcMode.NOT_USED).last()).isFalse();
    }

    @Test
    void untaggedHeaderBytePositions() {
        // A Send with Invalidate: length 0x0014 (18 + 2), DDP 0x41, RDMAP 0x44, RsvdULP = STag to invalidate, QN 0, MSN 5, MO 0x100.
        byte[] fpdu = bytes(0x00, 0x14, 0x41, 0x44, 0x11, 0x22, 0x33, 0x44, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
                0x00, 0x00, 0x01, 0x00, 0x68, 0x69, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00);
        Fpdu f = FpduDecoder.decodeFpdu(fpdu, 0, fpdu.length, FpduDecoder.CrcMode.NOT_USED);

        assertThat(f.tagged()).isFalse();
        assertThat(f.last()).isTrue();
        assertThat(f.opcode()).isEqualTo(RdmapOpcode.SEND_INVALIDATE);
        assertThat(f.rsvdUlp()).isEqualTo(0x11223344);
        assertThat(f.qn()).isZero();
        assertThat(f.msn()).isEqualTo(5);
        assertThat(f.mo()).isEqualTo(0x100);
        assertThat(f.payloadOffset()).isEqualTo(20);
        assertThat(f.payloadLength()).isEqualTo(2);
        assertThat(f.padLength()).isEqualTo(2);
        assertThat(f.length()).isEqualTo(28);
    }

    @Test
    void readRequestPayloadLayout() {
        // RFC 5040 section 4.4: Sink STag(4) Sink TO(8) Size(4) Source STag(4) Source TO(8) = 28 bytes after the untagged header.
        assertThat(new int[] {ReadRequestDescriptor.SINK_STAG_OFFSET, ReadRequestDescriptor.SINK_TO_OFFSET, ReadRequestDescriptor.SIZE_OFFSET,
                ReadRequestDescriptor.SOURCE_STAG_OFFSET, ReadRequestDescriptor.SOURCE_TO_OFFSET, ReadRequestDescriptor.LENGTH})
                .containsExactly(0, 4, 12, 16, 20, 28);
        byte[] fpdu = bytes(0x00, 0x2E, 0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 0x01, 0, 0, 0, 0x01, 0, 0, 0, 0,
                0x11, 0x22, 0x33, 0x44,
                0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC,
                0x80, 0x00, 0x10, 0x00,
                0xDD, 0xEE, 0xFF, 0x01,
                0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
                0, 0, 0, 0);
        Fpdu f = FpduDecoder.decodeFpdu(fpdu, 0, fpdu.length, FpduDecoder.CrcMode.NOT_USED);

        assertThat(f.qn()).isEqualTo(1);
        assertThat(f.readRequest()).isEqualTo(new Fpdu.ReadRequest(0x11223344, 0x5566778899AABBCCL, 0x80001000, 0xDDEEFF01,
                0x0102030405060708L));
        assertThat(Integer.toUnsignedLong(f.readRequest().size())).isEqualTo(0x80001000L);
        assertThat(f.terminate()).isNull();
    }

    @Test
    void terminateControlWord() {
        // RFC 5040 section 4.8: Layer(4) EType(4) ECode(8) M(1) D(1) R(1) Rsvd(13).
        assertThat(TerminateDescriptor.FLAG_M).isEqualTo(0x8000);
        assertThat(TerminateDescriptor.FLAG_D).isEqualTo(0x4000);
        assertThat(TerminateDescriptor.FLAG_R).isEqualTo(0x2000);
        assertThat(TerminateDescriptor.control(TerminateCode.DDP_UNTAGGED_INVALID_QN, true, false)).isEqualTo(0x1201_C000);
        assertThat(TerminateDescriptor.control(TerminateCode.RDMAP_INVALID_STAG, false, true)).isEqualTo(0x0100_A000);
        assertThat(TerminateDescriptor.control(TerminateCode.RDMAP_UNEXPECTED_OPCODE, true, true)).isEqualTo(0x0206_E000);
        assertThat(TerminateDescriptor.control(TerminateCode.LLP_CRC, false, false)).isEqualTo(0x2002_0000);
        assertThat(TerminateDescriptor.CONTROL_SIZE).isEqualTo(4);

        // A Terminate FPDU on queue 2 with control 0x12 0x01 0xC0 0x00: DDP, untagged buffer, invalid QN, M and D.
        byte[] fpdu = bytes(0x00, 0x16, 0x41, 0x47, 0, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0x01, 0, 0, 0, 0,
                0x12, 0x01, 0xC0, 0x00, 0, 0, 0, 0);
        Fpdu.Terminate t = FpduDecoder.decodeFpdu(fpdu, 0, fpdu.length, FpduDecoder.CrcMode.NOT_USED).terminate();
        assertThat(t.code()).isEqualTo(TerminateCode.DDP_UNTAGGED_INVALID_QN);
        assertThat(t.layer()).isEqualTo(1);
        assertThat(t.errorType()).isEqualTo(2);
        assertThat(t.errorCode()).isEqualTo(0x01);
        assertThat(t.m()).isTrue();
        assertThat(t.d()).isTrue();
        assertThat(t.r()).isFalse();
        // An unknown triple (layer 3) decodes with a null code.
        assertThat(Fpdu.Terminate.of(0x3001_0000).code()).isNull();
    }

    // ---- RFC 5044 section 4: pad and FPDU length ----

    @Test
    void padAndFpduLengths() {
        // 2 + ULPDU + pad is a multiple of 4; the FPDU adds the 4-byte CRC.
        int[] pad = {2, 1, 0, 3, 2, 1, 0, 3};
        int[] total = {8, 8, 8, 12, 12, 12, 12, 16};
        for (int n = 0; n <= 7; n++) {
            assertThat(FpduDescriptor.padLength(n)).as("pad for ULPDU %d", n).isEqualTo(pad[n]);
            assertThat(FpduDescriptor.fpduLength(n)).as("FPDU for ULPDU %d", n).isEqualTo(total[n]);
        }
        // Sizes seen in the siw captures: a 1448-byte MSS carries ULPDU 1442; the 4096-byte Write's tail 1254.
        assertThat(FpduDescriptor.fpduLength(1442)).isEqualTo(1448);
        assertThat(FpduDescriptor.fpduLength(1254)).isEqualTo(1260);
        assertThat(FpduDescriptor.fpduLength(0xFFFF)).isEqualTo(2 + 0xFFFF + 3 + 4);
    }

    // ---- CRC32C: RFC 3720 appendix B.4 vectors, stored little-endian on the wire ----

    private static long crc32c(byte[] data) {
        CRC32C c = new CRC32C();
        c.update(data);
        return c.getValue();
    }

    @Test
    void crc32cVectors() {
        byte[] zeros = new byte[32];
        byte[] ones = new byte[32];
        Arrays.fill(ones, (byte) 0xFF);
        byte[] ascending = new byte[32];
        byte[] descending = new byte[32];
        for (int i = 0; i < 32; i++) {
            ascending[i] = (byte) i;
            descending[i] = (byte) (31 - i);
        }
        assertThat(crc32c(zeros)).isEqualTo(0x8a9136aaL);
        assertThat(crc32c(ones)).isEqualTo(0x62a8ab43L);
        assertThat(crc32c(ascending)).isEqualTo(0x46dd794eL);
        assertThat(crc32c(descending)).isEqualTo(0x113fdb5cL);
        // RFC 3720 B.4 lists the CRC bytes of 32 zeros as "aa 36 91 8a": the value's least significant byte first.
        assertThat(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) crc32c(zeros)).array())
                .isEqualTo(bytes(0xaa, 0x36, 0x91, 0x8a));
    }

    @Test
    void decoderExpectsTheCrcLittleEndian() {
        // A header-only Send: 2 + 18 = 20 bytes covered, no pad.
        byte[] covered = bytes(0x00, 0x12, 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0, 0, 0, 0);
        int crc = (int) crc32c(covered);
        byte[] le = ByteBuffer.allocate(24).put(covered).order(ByteOrder.LITTLE_ENDIAN).putInt(crc).array();
        byte[] be = ByteBuffer.allocate(24).put(covered).order(ByteOrder.BIG_ENDIAN).putInt(crc).array();
        assertThat(Integer.reverseBytes(crc)).as("test vector must not be byte-symmetric").isNotEqualTo(crc);

        Fpdu f = FpduDecoder.decodeFpdu(le, 0, le.length, FpduDecoder.CrcMode.VERIFY);
        assertThat(f.crcStatus()).isEqualTo(Fpdu.CrcStatus.VALID);
        assertThat(f.crc()).isEqualTo(crc);
        assertThatThrownBy(() -> FpduDecoder.decodeFpdu(be, 0, be.length, FpduDecoder.CrcMode.VERIFY))
                .isInstanceOfSatisfying(FpduFormatException.class, e -> assertThat(e.code()).isEqualTo(TerminateCode.LLP_CRC));
    }

    // ---- Terminate codes: RFC 5040 7.2, RFC 5041 7.2, RFC 5044 8, RFC 6581 9 ----

    @Test
    void terminateCodeBitsRoundTrip() {
        Set<Integer> seen = new HashSet<>();
        for (TerminateCode c : TerminateCode.values()) {
            assertThat(seen.add(c.bits())).as("bits of %s are unique", c).isTrue();
            assertThat(TerminateCode.fromBits(c.bits())).isSameAs(c);
            assertThat(c.bits()).isEqualTo(c.layer().value << 12 | c.errorType() << 8 | c.errorCode());
        }
        assertThat(TerminateCode.fromBits(0x3000)).isNull();
        assertThat(TerminateCode.fromBits(0x2008)).isNull();
    }

    @Test
    void terminateCodeBitsMatchTheRfcTables() {
        // layer << 12 | etype << 8 | ecode, from the table in iwarp-wire.md.
        assertThat(TerminateCode.RDMAP_CATASTROPHIC_LOCAL.bits()).isEqualTo(0x0000);
        assertThat(TerminateCode.RDMAP_INVALID_STAG.bits()).isEqualTo(0x0100);
        assertThat(TerminateCode.RDMAP_BASE_BOUNDS.bits()).isEqualTo(0x0101);
        assertThat(TerminateCode.RDMAP_ACCESS_RIGHTS.bits()).isEqualTo(0x0102);
        assertThat(TerminateCode.RDMAP_TO_WRAP.bits()).isEqualTo(0x0104);
        assertThat(TerminateCode.RDMAP_INVALID_VERSION.bits()).isEqualTo(0x0205);
        assertThat(TerminateCode.RDMAP_UNEXPECTED_OPCODE.bits()).isEqualTo(0x0206);
        assertThat(TerminateCode.RDMAP_CATASTROPHIC_STREAM.bits()).isEqualTo(0x0207);
        assertThat(TerminateCode.RDMAP_UNSPECIFIED.bits()).isEqualTo(0x02FF);
        assertThat(TerminateCode.DDP_CATASTROPHIC.bits()).isEqualTo(0x1000);
        assertThat(TerminateCode.DDP_TAGGED_INVALID_STAG.bits()).isEqualTo(0x1100);
        assertThat(TerminateCode.DDP_TAGGED_INVALID_VERSION.bits()).isEqualTo(0x1104);
        assertThat(TerminateCode.DDP_UNTAGGED_INVALID_QN.bits()).isEqualTo(0x1201);
        assertThat(TerminateCode.DDP_UNTAGGED_NO_BUFFER.bits()).isEqualTo(0x1202);
        assertThat(TerminateCode.DDP_UNTAGGED_TOO_LONG.bits()).isEqualTo(0x1205);
        assertThat(TerminateCode.DDP_UNTAGGED_INVALID_VERSION.bits()).isEqualTo(0x1206);
        assertThat(TerminateCode.LLP_TCP.bits()).isEqualTo(0x2001);
        assertThat(TerminateCode.LLP_CRC.bits()).isEqualTo(0x2002);
        assertThat(TerminateCode.LLP_MARKER.bits()).isEqualTo(0x2003);
        assertThat(TerminateCode.LLP_INVALID_MPA.bits()).isEqualTo(0x2004);
        assertThat(TerminateCode.LLP_INSUFFICIENT_IRD.bits()).isEqualTo(0x2006);
        assertThat(TerminateCode.LLP_NO_MATCHING_RTR.bits()).isEqualTo(0x2007);
    }
}

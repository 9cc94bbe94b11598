package dev.tandem.iwarp.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hand-built streams (MPA Reply + FPDUs with correct CRCs) with one fault each; the decoder must
 * name the Terminate a receiver would send and the offset of the FPDU at fault.
 */
class FpduDecoderMalformedTest {
    /** 20-byte MPA header + 4 bytes of IRD/ORD words (RFC 5044 7.1, RFC 6581). */
    private static final int FIRST_FPDU = 24;
    private static final byte[] HELLO = "hello".getBytes(StandardCharsets.US_ASCII);

    /** Reply, a Send, a two-segment Write, then the returned builder's next FPDU starts at {@code size()}. */
    private static FpduBuilder prefix(boolean crc) {
        return FpduBuilder.reply(crc, 4, 4)
                .send(1, HELLO)
                .write(0x1000, 0x2000, false, new byte[6])
                .write(0x1000, 0x2006, true, new byte[3]);
    }

    private static FpduFormatException failure(byte[] stream, boolean crc) {
        FpduFormatException e = catchThrowableOfType(FpduFormatException.class, () -> FpduDecoder.decode(stream, crc));
        assertThat(e).as("decoder must reject the stream").isNotNull();
        return e;
    }

    @Test
    void validStreamDecodes() {
        FpduBuilder b = prefix(true).readRequest(1, 1, 2, 3, 4, 5).terminate(1, 0x2002_0000);
        byte[] s = b.bytes();

        FpduDecoder.Decoded d = FpduDecoder.decode(s, true);

        assertThat(d.length()).isEqualTo(s.length);
        // Sizes by hand: 2 + ULPDU + pad to a multiple of 4, + 4 CRC.
        // Send 18+5=23 -> 32; Write 14+6=20 -> 28; Write 14+3=17 -> 24; Read Request 18+28=46 -> 52; Terminate 18+4=22 -> 28.
        assertThat(d.fpdus()).extracting(Fpdu::offset).containsExactly(24, 24 + 32, 24 + 32 + 28, 24 + 32 + 28 + 24, 24 + 32 + 28 + 24 + 52);
        assertThat(s.length).isEqualTo(24 + 32 + 28 + 24 + 52 + 28);
        assertThat(d.opcodeCounts()).isEqualTo(Map.of(RdmapOpcode.RDMA_WRITE, 2, RdmapOpcode.READ_REQUEST, 1, RdmapOpcode.SEND, 1,
                RdmapOpcode.TERMINATE, 1));
        assertThat(d.fpdus()).allSatisfy(f -> assertThat(f.crcStatus()).isEqualTo(Fpdu.CrcStatus.VALID));
        assertThat(d.fpdus().get(4).terminate().code()).isEqualTo(TerminateCode.LLP_CRC);
        assertThat(d.summary()).isEqualTo("RDMA_WRITE 2 FPDUs (1 message), READ_REQUEST 1 FPDU (1 message), SEND 1 FPDU (1 message), "
                + "TERMINATE 1 FPDU (1 message)");
        // CRC use derived from the Reply's C flag.
        assertThat(FpduDecoder.decode(s).crcMode()).isEqualTo(FpduDecoder.CrcMode.VERIFY);
        assertThat(FpduDecoder.decode(prefix(false).bytes()).crcMode()).isEqualTo(FpduDecoder.CrcMode.NOT_USED);
    }

    @Test
    void badCrcIsAnLlpCrcErrorAtThatFpdu() {
        FpduBuilder b = prefix(true);
        int mark = b.size();
        byte[] s = b.send(2, HELLO).send(3, HELLO).bytes();
        s[mark + 2 + 18] ^= 0x01; // first payload byte of the second Send

        FpduFormatException e = failure(s, true);

        assertThat(e.code()).isEqualTo(TerminateCode.LLP_CRC);
        assertThat(e.offset()).isEqualTo(mark);
    }

    @Test
    void badCrcInCrcFieldItself() {
        byte[] s = prefix(true).bytes();
        s[FIRST_FPDU + 32 - 1] ^= (byte) 0x80; // top byte of the first FPDU's (32-byte Send) little-endian CRC

        FpduFormatException e = failure(s, true);

        assertThat(e.code()).isEqualTo(TerminateCode.LLP_CRC);
        assertThat(e.offset()).isEqualTo(FIRST_FPDU);
    }

    @Test
    void reportModeRecordsBadCrcAndGoesOn() {
        FpduBuilder b = prefix(true);
        int mark = b.size();
        byte[] s = b.send(2, HELLO).send(3, HELLO).bytes();
        s[mark + 2 + 18] ^= 0x01;

        FpduDecoder.Decoded d = FpduDecoder.decode(s, FpduDecoder.CrcMode.REPORT);

        assertThat(d.fpdus()).extracting(Fpdu::crcStatus).containsExactly(Fpdu.CrcStatus.VALID, Fpdu.CrcStatus.VALID,
                Fpdu.CrcStatus.VALID, Fpdu.CrcStatus.INVALID, Fpdu.CrcStatus.VALID);
    }

    @Test
    void zeroCrcFieldsFailWhenCrcIsInUseButPassWhenItIsNot() {
        byte[] plain = prefix(false).bytes();

        assertThat(FpduDecoder.decode(plain, false).fpdus()).extracting(Fpdu::crcStatus)
                .containsOnly(Fpdu.CrcStatus.NOT_CHECKED);
        FpduFormatException e = failure(plain, true);
        assertThat(e.code()).isEqualTo(TerminateCode.LLP_CRC);
        assertThat(e.offset()).isEqualTo(FIRST_FPDU);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2, 3})
    void badDdpVersionOnUntaggedSegment(int version) {
        FpduBuilder b = prefix(true);
        int mark = b.size();
        byte[] s = b.frame(FpduBuilder.untagged(0x40 | version, 0x43, 0, 0, 2, 0, HELLO)).bytes();

        FpduFormatException e = failure(s, true);

        assertThat(e.code()).isEqualTo(TerminateCode.DDP_UNTAGGED_INVALID_VERSION);
        assertThat(e.offset()).isEqualTo(mark);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2, 3})
    void badDdpVersionOnTaggedSegment(int version) {
        FpduBuilder b = prefix(true);
        int mark = b.size();
        byte[] s = b.frame(FpduBuilder.tagged(0xC0 | version, 0x40, 7, 0, HELLO)).bytes();

        FpduFormatException e = failure(s, true);

        assertThat(e.code()).isEqualTo(TerminateCode.DDP_TAGGED_INVALID_VERSION);
        assertThat(e.offset()).isEqualTo(mark);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2, 3})
    void badRdmapVersion(int version) {
        FpduBuilder b = prefix(true);
        int mark = b.size();
        byte[] s = b.frame(FpduBuilder.untagged(0x41, version << 6 | 3, 0, 0, 2, 0, HELLO)).bytes();

        FpduFormatException e = failure(s, true);

        assertThat(e.code()).isEqualTo(TerminateCode.RDMAP_INVALID_VERSION);
        assertThat(e.offset()).isEqualTo(mark);
    }

    @ParameterizedTest
    @ValueSource(ints = {8, 9, 12, 15})
    void unknownOpcode(int opcode) {
        FpduBuilder b = prefix(true);
        int mark = b.size();
        byte[] s = b.frame(FpduBuilder.untagged(0x41, 0x40 | opcode, 0, 0, 2, 0, HELLO)).bytes();

        FpduFormatException e = failure(s, true);

        assertThat(e.code()).isEqualTo(TerminateCode.RDMAP_UNEXPECTED_OPCODE);
        assertThat(e.offset()).isEqualTo(mark);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 17})
    void untaggedUlpduShorterThanItsHeader(int length) {
        FpduBuilder b = prefix(true);
        int mark = b.size();
        byte[] s = b.frame(Arrays.copyOf(FpduBuilder.untagged(0x41, 0x43, 0, 0, 2, 0, new byte[0]), length)).bytes();

        FpduFormatException e = failure(s, true);

        assertThat(e.code()).isEqualTo(TerminateCode.DDP_CATASTROPHIC);
        assertThat(e.offset()).isEqualTo(mark);
    }

    @Test
    void taggedUlpduShorterThanItsHeader() {
        FpduBuilder b = prefix(true);
        int mark = b.size();
        byte[] s = b.frame(Arrays.copyOf(FpduBuilder.tagged(0xC1, 0x40, 7, 0, new byte[0]), 13)).bytes();

        FpduFormatException e = failure(s, true);

        assertThat(e.code()).isEqualTo(TerminateCode.DDP_CATASTROPHIC);
        assertThat(e.offset()).isEqualTo(mark);
    }

    /**
     * Issue 12, row 12: a ULPDU shorter than any DDP header is a DDP catastrophic error whatever its
     * first bytes say (here a DDP version of 0), as the engine answers it: they cannot be a header.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 4, 13})
    void ulpduShorterThanAnyHeaderIsRefusedBeforeItsControlBytes(int length) {
        FpduBuilder b = prefix(true);
        int mark = b.size();
        byte[] s = b.frame(Arrays.copyOf(FpduBuilder.tagged(0xC0, 0x00, 7, 0, new byte[0]), length)).bytes();

        FpduFormatException e = failure(s, true);

        assertThat(e.code()).isEqualTo(TerminateCode.DDP_CATASTROPHIC);
        assertThat(e.offset()).isEqualTo(mark);
    }

    @Test
    void headerOnlySegmentsAreValid() {
        byte[] s = FpduBuilder.reply(true, 0, 0).send(1, new byte[0]).write(9, 0, true, new byte[0]).bytes();

        FpduDecoder.Decoded d = FpduDecoder.decode(s, true);

        assertThat(d.fpdus()).extracting(Fpdu::ulpduLength).containsExactly(18, 14);
        assertThat(d.fpdus()).extracting(Fpdu::payloadLength).containsExactly(0, 0);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4, 5, 23})
    void truncatedFinalFpdu(int cut) {
        FpduBuilder b = prefix(true);
        int mark = b.size();
        byte[] whole = b.send(2, HELLO).bytes(); // this Send is 2 + 23 + 3 pad + 4 CRC = 32 bytes
        byte[] s = Arrays.copyOf(whole, whole.length - cut);

        FpduFormatException e = failure(s, true);

        assertThat(e.code()).isEqualTo(TerminateCode.LLP_TCP);
        assertThat(e.offset()).isEqualTo(mark);
    }

    @Test
    void streamEndingInsideTheLengthField() {
        FpduBuilder b = prefix(false);
        int mark = b.size();
        byte[] whole = b.send(2, HELLO).bytes();
        byte[] s = Arrays.copyOf(whole, mark + 1);

        FpduFormatException e = failure(s, false);

        assertThat(e.code()).isEqualTo(TerminateCode.LLP_TCP);
        assertThat(e.offset()).isEqualTo(mark);
    }

    @Test
    void ulpduLengthLongerThanTheRecordingIsTruncation() {
        FpduBuilder b = prefix(true);
        int mark = b.size();
        byte[] s = b.frame(FpduBuilder.untagged(0x41, 0x43, 0, 0, 2, 0, HELLO), 500).bytes();

        FpduFormatException e = failure(s, true);

        assertThat(e.code()).isEqualTo(TerminateCode.LLP_TCP);
        assertThat(e.offset()).isEqualTo(mark);
    }

    @Test
    void sendOnTheReadRequestQueue() {
        FpduBuilder b = prefix(true);
        int mark = b.size();
        byte[] s = b.frame(FpduBuilder.untagged(0x41, 0x43, 1, 0, 2, 0, HELLO)).bytes();

        FpduFormatException e = failure(s, true);

        assertThat(e.code()).isEqualTo(TerminateCode.DDP_UNTAGGED_INVALID_QN);
        assertThat(e.offset()).isEqualTo(mark);
    }

    @Test
    void readRequestOnTheSendQueue() {
        FpduBuilder b = prefix(true);
        int mark = b.size();
        byte[] s = b.frame(FpduBuilder.untagged(0x41, 0x41, 0, 0, 1, 0, FpduBuilder.readRequestPayload(1, 2, 3, 4, 5))).bytes();

        FpduFormatException e = failure(s, true);

        assertThat(e.code()).isEqualTo(TerminateCode.DDP_UNTAGGED_INVALID_QN);
        assertThat(e.offset()).isEqualTo(mark);
    }

    @Test
    void sendWithTheTaggedBit() {
        FpduBuilder b = prefix(true);
        int mark = b.size();
        byte[] s = b.frame(FpduBuilder.tagged(0xC1, 0x43, 7, 0, HELLO)).bytes();

        FpduFormatException e = failure(s, true);

        assertThat(e.code()).isEqualTo(TerminateCode.DDP_CATASTROPHIC);
        assertThat(e.offset()).isEqualTo(mark);
    }

    @Test
    void readRequestOfWrongSize() {
        byte[] payload = FpduBuilder.readRequestPayload(1, 2, 3, 4, 5);
        FpduBuilder b = prefix(true);
        int mark = b.size();
        byte[] shortRr = b.frame(FpduBuilder.untagged(0x41, 0x41, 1, 0, 1, 0, Arrays.copyOf(payload, 27))).bytes();
        FpduBuilder b2 = prefix(true);
        byte[] longRr = b2.frame(FpduBuilder.untagged(0x41, 0x41, 1, 0, 1, 0, Arrays.copyOf(payload, 29))).bytes();

        FpduFormatException tooShort = failure(shortRr, true);
        FpduFormatException tooLong = failure(longRr, true);

        assertThat(tooShort.code()).isEqualTo(TerminateCode.RDMAP_CATASTROPHIC_STREAM);
        assertThat(tooShort.offset()).isEqualTo(mark);
        assertThat(tooLong.code()).isEqualTo(TerminateCode.DDP_UNTAGGED_TOO_LONG);
        assertThat(tooLong.offset()).isEqualTo(mark);
    }

    @Test
    void terminateWithoutControlWord() {
        FpduBuilder b = prefix(true);
        int mark = b.size();
        byte[] s = b.frame(FpduBuilder.untagged(0x41, 0x47, 2, 0, 1, 0, new byte[3])).bytes();

        FpduFormatException e = failure(s, true);

        assertThat(e.code()).isEqualTo(TerminateCode.RDMAP_CATASTROPHIC_STREAM);
        assertThat(e.offset()).isEqualTo(mark);
    }

    @Test
    void malformedMpaFrames() {
        byte[] good = FpduBuilder.reply(false, 1, 1).bytes();

        byte[] shortHeader = Arrays.copyOf(good, 19);
        byte[] shortPrivateData = Arrays.copyOf(good, 23);
        byte[] badKey = good.clone();
        badKey[0] = 'X';
        byte[] badRevision = good.clone();
        badRevision[17] = 3;

        for (byte[] s : new byte[][] {shortHeader, shortPrivateData, badKey, badRevision, new byte[0]}) {
            FpduFormatException e = failure(s, false);
            assertThat(e.code()).isEqualTo(TerminateCode.LLP_INVALID_MPA);
            assertThat(e.offset()).isZero();
        }
        assertThat(failure(shortHeader, false)).hasMessageContaining("MPA header has 19 bytes, needs 20");
        assertThat(failure(shortPrivateData, false)).hasMessageContaining("announces 4 bytes of private data");
        assertThatThrownBy(() -> FpduDecoder.decode(badKey, false)).hasCauseInstanceOf(MpaException.class);
        assertThat(FpduDecoder.decode(good, false).fpdus()).isEmpty();
    }
}

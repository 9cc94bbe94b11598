package dev.tandem.iwarp.wire;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * What the decoder tells a person reading a dump: each fault's message names the fault that was
 * found first, with the numbers that show it (the Terminate code alone is checked by
 * {@link FpduDecoderMalformedTest}).
 */
class FpduDecoderDiagnosticsTest {
    private static final byte[] HELLO = "hello".getBytes(StandardCharsets.US_ASCII);

    private static FpduFormatException failure(byte[] stream) {
        FpduFormatException e = catchThrowableOfType(FpduFormatException.class, () -> FpduDecoder.decode(stream, true));
        assertThat(e).as("decoder must reject the stream").isNotNull();
        return e;
    }

    @Test
    void aStreamOfOnlyTheMpaFrameHasNoFpdus() {
        FpduDecoder.Decoded d = FpduDecoder.decode(FpduBuilder.reply(true, 4, 4).bytes(), true);
        assertThat(d.fpdus()).isEmpty();
        assertThat(d.summary()).isEqualTo("no FPDUs");
    }

    @Test
    void privateDataCutShortSaysHowMuchArrived() {
        byte[] whole = FpduBuilder.reply(true, 4, 4).bytes();   // 20-byte header + 4 bytes of IRD/ORD words
        FpduFormatException e = failure(Arrays.copyOf(whole, MpaFrame.HEADER_LENGTH + 1));
        assertThat(e.code()).isEqualTo(TerminateCode.LLP_INVALID_MPA);
        assertThat(e.getMessage()).contains("announces 4 bytes of private data").contains("ends after 1");
    }

    @Test
    void aStreamEndingAfterTheLengthFieldSaysHowLongTheFpduWouldBe() {
        byte[] s = FpduBuilder.reply(true, 4, 4).send(1, HELLO).bytes();
        int start = 24;
        FpduFormatException e = failure(Arrays.copyOf(s, start + 2));
        assertThat(e.code()).isEqualTo(TerminateCode.LLP_TCP);
        assertThat(e.offset()).isEqualTo(start);
        assertThat(e.getMessage()).as("the length field is complete: the FPDU is what is cut")
                .contains("ULPDU_LENGTH 23").contains("needs 32 bytes").contains("ends after 2");
        FpduFormatException one = failure(Arrays.copyOf(s, start + 1));
        assertThat(one.getMessage()).contains("inside the ULPDU_LENGTH field (1 of 2 bytes)");
    }

    @Test
    void aUlpduShorterThanAnyDdpHeaderIsNamedBeforeItsControlBytesAreRead() {
        byte[] s = FpduBuilder.reply(true, 4, 4).frame(new byte[] {0x41, 0x43}).bytes();
        FpduFormatException e = failure(s);
        assertThat(e.code()).isEqualTo(TerminateCode.DDP_CATASTROPHIC);
        assertThat(e.getMessage()).startsWith("ULPDU_LENGTH 2 is shorter than any DDP header (14 bytes tagged) at offset 24");
        FpduFormatException one = failure(FpduBuilder.reply(true, 4, 4).frame(new byte[] {0x41}).bytes());
        assertThat(one.getMessage()).startsWith("ULPDU_LENGTH 1 is shorter than any DDP header");
        byte[] write = FpduBuilder.tagged(0xC1, 0x40, 0x1000, 0, new byte[0]);
        FpduFormatException tagged = failure(FpduBuilder.reply(true, 4, 4).frame(Arrays.copyOf(write, 10)).bytes());
        assertThat(tagged.code()).isEqualTo(TerminateCode.DDP_CATASTROPHIC);
        assertThat(tagged.getMessage()).startsWith("ULPDU_LENGTH 10 is shorter than any DDP header (14 bytes tagged) at offset 24");
    }

    @Test
    void anUntaggedSegmentLongEnoughForATaggedHeaderNamesTheUntaggedOne() {
        byte[] send = FpduBuilder.untagged(0x41, 0x43, 0, 0, 1, 0, new byte[0]);
        FpduFormatException e = failure(FpduBuilder.reply(true, 4, 4).frame(Arrays.copyOf(send, 16)).bytes());
        assertThat(e.code()).isEqualTo(TerminateCode.DDP_CATASTROPHIC);
        assertThat(e.getMessage()).startsWith("ULPDU_LENGTH 16 is shorter than the 18-byte untagged DDP header at offset 24");
    }

    @Test
    void aTBitThatContradictsTheOpcodeNamesBoth() {
        FpduFormatException sendTagged = failure(FpduBuilder.reply(true, 4, 4)
                .frame(FpduBuilder.tagged(0xC1, 0x43, 0x1000, 0, HELLO)).bytes());
        assertThat(sendTagged.code()).isEqualTo(TerminateCode.DDP_CATASTROPHIC);
        assertThat(sendTagged.getMessage()).startsWith("SEND arrived tagged at offset 24");
        FpduFormatException writeUntagged = failure(FpduBuilder.reply(true, 4, 4)
                .frame(FpduBuilder.untagged(0x41, 0x40, 0, 0, 1, 0, HELLO)).bytes());
        assertThat(writeUntagged.getMessage()).startsWith("RDMA_WRITE arrived untagged at offset 24");
    }
}

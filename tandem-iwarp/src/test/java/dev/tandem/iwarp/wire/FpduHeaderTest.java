package dev.tandem.iwarp.wire;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

/** The FPDU header flyweight writes the bytes RFC 5040/5041/5044 lay out and reads them back, at any offset. */
class FpduHeaderTest {
    private static String hex(ByteBuffer b, int from, int to) {
        byte[] out = new byte[to - from];
        b.get(from, out);
        return HexFormat.of().formatHex(out);
    }

    @Test
    void aTaggedHeaderHasItsLengthControlBytesStagAndTo() {
        ByteBuffer b = ByteBuffer.allocate(64);
        FpduHeader h = new FpduHeader().wrap(b, 5);
        int end = h.putTagged(100, true, RdmapOpcode.RDMA_WRITE, 0x1234_5678, 0x0102_0304_0506_0708L);
        assertThat(end).isEqualTo(5 + 2 + 14);
        // ULPDU_LENGTH 114; DDP control T|L|version 1; RDMAP version 1, opcode 0 (Write); STag; TO
        assertThat(hex(b, 5, end)).isEqualTo("0072" + "c1" + "40" + "12345678" + "0102030405060708");
        assertThat(h.ulpduLength()).isEqualTo(114);
        assertThat(h.tagged()).isTrue();
        assertThat(h.last()).isTrue();
        assertThat(h.ddpVersion()).isEqualTo(1);
        assertThat(h.rdmapVersion()).isEqualTo(1);
        assertThat(h.opcode()).isEqualTo(RdmapOpcode.RDMA_WRITE);
        assertThat(h.stag()).isEqualTo(0x1234_5678);
        assertThat(h.to()).isEqualTo(0x0102_0304_0506_0708L);
    }

    @Test
    void anUntaggedHeaderHasQueueMsnAndMo() {
        ByteBuffer b = ByteBuffer.allocate(64);
        FpduHeader h = new FpduHeader().wrap(b, 0);
        int end = h.putUntagged(7, false, RdmapOpcode.SEND_INVALIDATE, 0xAABB_CCDD, FpduDescriptor.QN_SEND, 9, 4096);
        assertThat(end).isEqualTo(20);
        assertThat(hex(b, 0, end)).isEqualTo("0019" + "01" + "44" + "aabbccdd" + "00000000" + "00000009" + "00001000");
        assertThat(h.tagged()).isFalse();
        assertThat(h.last()).isFalse();
        assertThat(h.opcode()).isEqualTo(RdmapOpcode.SEND_INVALIDATE);
        assertThat(h.invalidateStag()).isEqualTo(0xAABB_CCDD);
        assertThat(h.qn()).isEqualTo(FpduDescriptor.QN_SEND);
        assertThat(h.msn()).isEqualTo(9);
        assertThat(h.mo()).isEqualTo(4096);
        assertThat(h.untaggedPayloadOffset()).isEqualTo(end);
    }

    @Test
    void aReadRequestCarriesSinkSizeAndSourceAfterItsUntaggedHeader() {
        ByteBuffer b = ByteBuffer.allocate(128);
        FpduHeader h = new FpduHeader().wrap(b, 3);
        int end = h.putReadRequest(2, 0x0000_0101, 16L, -1, 0x0000_0202, 1L << 40);
        assertThat(end - 3).as("length field, DDP header, Read Request header").isEqualTo(2 + FpduHeader.READ_REQUEST_ULPDU);
        assertThat(h.ulpduLength()).isEqualTo(FpduHeader.READ_REQUEST_ULPDU);
        assertThat(h.opcode()).isEqualTo(RdmapOpcode.READ_REQUEST);
        assertThat(h.qn()).isEqualTo(FpduDescriptor.QN_READ_REQUEST);
        assertThat(h.msn()).isEqualTo(2);
        assertThat(h.last()).isTrue();
        assertThat(h.readSinkStag()).isEqualTo(0x101);
        assertThat(h.readSinkTo()).isEqualTo(16L);
        assertThat(h.readSize()).as("the size is unsigned").isEqualTo(0xFFFF_FFFFL);
        assertThat(h.readSourceStag()).isEqualTo(0x202);
        assertThat(h.readSourceTo()).isEqualTo(1L << 40);
        assertThat(hex(b, h.untaggedPayloadOffset(), end)).isEqualTo("00000101" + "0000000000000010" + "ffffffff" + "00000202" + "0000010000000000");
    }
}

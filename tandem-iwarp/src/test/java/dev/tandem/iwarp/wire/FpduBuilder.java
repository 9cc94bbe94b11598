package dev.tandem.iwarp.wire;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * Builds recorded iWARP streams byte by byte from the RFC layouts, independently of the production
 * encoders: an MPA frame (RFC 5044 section 7.1 with the RFC 6581 words), then FPDUs framed as
 * {@code ULPDU_LENGTH | ULPDU | pad | CRC32C little-endian} (zero CRC field when CRC is off).
 * The ULPDU helpers return the raw DDP segment so that a test can corrupt it before framing.
 */
final class FpduBuilder {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final boolean crc;

    private FpduBuilder(boolean crc) {
        this.crc = crc;
    }

    /** A stream opening with an MPA rev 2 Reply (Enhanced, no markers) with IRD/ORD words. */
    static FpduBuilder reply(boolean crc, int ird, int ord) {
        FpduBuilder b = new FpduBuilder(crc);
        b.out.writeBytes("MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII));
        b.out.write(0x10 | (crc ? 0x40 : 0));
        b.out.write(2);
        b.out.write(0);
        b.out.write(4);
        b.out.write(ird >>> 8);
        b.out.write(ird);
        b.out.write(ord >>> 8);
        b.out.write(ord);
        return b;
    }

    /** A stream without a leading MPA frame: only FPDUs, as sent after the MPA exchange. */
    static FpduBuilder fpdus(boolean crc) {
        return new FpduBuilder(crc);
    }

    /**
     * A stream opening with the initiator's MPA rev 2 Request (Enhanced, no markers, C flag as
     * {@code crc}) carrying the RFC 6581 IRD/ORD words, then {@code applicationData}.
     */
    static FpduBuilder request(boolean crc, int ird, int ord, byte[] applicationData) {
        byte[] pd = new byte[4 + applicationData.length];
        pd[0] = (byte) (ird >>> 8);
        pd[1] = (byte) ird;
        pd[2] = (byte) (ord >>> 8);
        pd[3] = (byte) ord;
        System.arraycopy(applicationData, 0, pd, 4, applicationData.length);
        FpduBuilder b = new FpduBuilder(crc);
        b.mpaFrame("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII), 0x10 | (crc ? 0x40 : 0), 2, pd);
        return b;
    }

    /**
     * A stream opening with any MPA frame, byte for byte: {@code key} (16 bytes), the flags byte,
     * the revision byte, PD_Length = {@code privateData.length}, the private data. For malformed
     * Requests; {@code crc} only says how FPDUs appended later are framed.
     */
    static FpduBuilder mpa(boolean crc, byte[] key, int flags, int revision, byte[] privateData) {
        FpduBuilder b = new FpduBuilder(crc);
        b.mpaFrame(key, flags, revision, privateData);
        return b;
    }

    private void mpaFrame(byte[] key, int flags, int revision, byte[] privateData) {
        out.writeBytes(key);
        out.write(flags);
        out.write(revision);
        out.write(privateData.length >>> 8);
        out.write(privateData.length);
        out.writeBytes(privateData);
    }

    /** Current stream length: the offset at which the next FPDU starts. */
    int size() {
        return out.size();
    }

    byte[] bytes() {
        return out.toByteArray();
    }

    /** Frames a ULPDU: length, the bytes, zero pad to a 4-byte boundary, CRC (or zero). */
    FpduBuilder frame(byte[] ulpdu) {
        return frame(ulpdu, ulpdu.length);
    }

    /** Frames a ULPDU whose ULPDU_LENGTH field says {@code declaredLength} (pad and CRC follow that length). */
    FpduBuilder frame(byte[] ulpdu, int declaredLength) {
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        f.write(declaredLength >>> 8);
        f.write(declaredLength);
        f.writeBytes(ulpdu);
        while (f.size() % 4 != 0) {
            f.write(0);
        }
        byte[] covered = f.toByteArray();
        out.writeBytes(covered);
        int value = 0;
        if (crc) {
            CRC32C c = new CRC32C();
            c.update(covered);
            value = (int) c.getValue();
        }
        out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(value).array());
        return this;
    }

    FpduBuilder send(int msn, byte[] payload) {
        return frame(untagged(0x41, 0x43, 0, 0, msn, 0, payload));
    }

    FpduBuilder write(int stag, long to, boolean last, byte[] payload) {
        return frame(tagged(last ? 0xC1 : 0x81, 0x40, stag, to, payload));
    }

    FpduBuilder readRequest(int msn, int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
        return frame(untagged(0x41, 0x41, 1, 0, msn, 0, readRequestPayload(sinkStag, sinkTo, size, sourceStag, sourceTo)));
    }

    FpduBuilder terminate(int msn, int control) {
        return frame(untagged(0x41, 0x47, 2, 0, msn, 0, ByteBuffer.allocate(4).putInt(control).array()));
    }

    /** An untagged DDP segment: control bytes, RsvdULP, QN, MSN, MO (all big-endian), payload. */
    static byte[] untagged(int ddpControl, int rdmapControl, int qn, int rsvdUlp, int msn, int mo, byte[] payload) {
        return ByteBuffer.allocate(18 + payload.length).put((byte) ddpControl).put((byte) rdmapControl).putInt(rsvdUlp).putInt(qn)
                .putInt(msn).putInt(mo).put(payload).array();
    }

    /** A tagged DDP segment: control bytes, STag, TO (big-endian), payload. */
    static byte[] tagged(int ddpControl, int rdmapControl, int stag, long to, byte[] payload) {
        return ByteBuffer.allocate(14 + payload.length).put((byte) ddpControl).put((byte) rdmapControl).putInt(stag).putLong(to)
                .put(payload).array();
    }

    /** RFC 5040 section 4.4: sink STag, sink TO, size, source STag, source TO. */
    static byte[] readRequestPayload(int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
        return ByteBuffer.allocate(28).putInt(sinkStag).putLong(sinkTo).putInt(size).putInt(sourceStag).putLong(sourceTo).array();
    }
}

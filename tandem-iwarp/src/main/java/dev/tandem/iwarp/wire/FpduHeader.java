package dev.tandem.iwarp.wire;

import java.nio.ByteBuffer;

/**
 * A flyweight over the start of one FPDU in a buffer: the MPA length, the DDP and RDMAP control bytes,
 * the tagged or untagged DDP header and, for a Read Request, the RDMAP header after it, laid out as
 * {@link FpduDescriptor} and {@link ReadRequestDescriptor} draw them. One instance is wrapped around
 * each buffer in turn; reads and writes are absolute and allocate nothing. The buffer must be
 * big-endian (the default).
 */
public final class FpduHeader {
    /** ULPDU_LENGTH of a Read Request: the untagged DDP header and the Read Request header. */
    public static final int READ_REQUEST_ULPDU = FpduDescriptor.UNTAGGED_HEADER_LENGTH + ReadRequestDescriptor.LENGTH;

    private ByteBuffer buffer;
    private int offset;

    /** A flyweight over nothing yet: {@link #wrap} it around a buffer before use. */
    public FpduHeader() {
    }

    /** Points this flyweight at the FPDU starting at {@code offset} of {@code buffer}. */
    public FpduHeader wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    // ---------------------------------------------------------------- writing

    /**
     * Writes the MPA length and a tagged DDP header (RDMA Write or Read Response segment) for
     * {@code payload} bytes; returns the offset right after the header, where the payload goes.
     */
    public int putTagged(int payload, boolean last, int opcode, int stag, long to) {
        buffer.putShort(offset + FpduDescriptor.LENGTH_OFFSET, (short) (FpduDescriptor.TAGGED_HEADER_LENGTH + payload));
        buffer.put(offset + FpduDescriptor.DDP_CONTROL_OFFSET, (byte) FpduDescriptor.ddpControl(true, last));
        buffer.put(offset + FpduDescriptor.RDMAP_CONTROL_OFFSET, (byte) FpduDescriptor.rdmapControl(opcode));
        buffer.putInt(offset + FpduDescriptor.TAGGED_STAG_OFFSET, stag);
        buffer.putLong(offset + FpduDescriptor.TAGGED_TO_OFFSET, to);
        return offset + FpduDescriptor.LENGTH_SIZE + FpduDescriptor.TAGGED_HEADER_LENGTH;
    }

    /**
     * Writes the MPA length and an untagged DDP header (Send, Read Request or Terminate) for
     * {@code payload} bytes; returns the offset right after the header, where the payload goes.
     */
    public int putUntagged(int payload, boolean last, int opcode, int invalidateStag, int qn, int msn, int mo) {
        buffer.putShort(offset + FpduDescriptor.LENGTH_OFFSET, (short) (FpduDescriptor.UNTAGGED_HEADER_LENGTH + payload));
        buffer.put(offset + FpduDescriptor.DDP_CONTROL_OFFSET, (byte) FpduDescriptor.ddpControl(false, last));
        buffer.put(offset + FpduDescriptor.RDMAP_CONTROL_OFFSET, (byte) FpduDescriptor.rdmapControl(opcode));
        buffer.putInt(offset + FpduDescriptor.UNTAGGED_INVALIDATE_STAG_OFFSET, invalidateStag);
        buffer.putInt(offset + FpduDescriptor.UNTAGGED_QN_OFFSET, qn);
        buffer.putInt(offset + FpduDescriptor.UNTAGGED_MSN_OFFSET, msn);
        buffer.putInt(offset + FpduDescriptor.UNTAGGED_MO_OFFSET, mo);
        return offset + FpduDescriptor.LENGTH_SIZE + FpduDescriptor.UNTAGGED_HEADER_LENGTH;
    }

    /**
     * Writes a whole Read Request (RFC 5040 section 4.4) on queue 1 with {@code msn}; returns the
     * offset right after it.
     */
    public int putReadRequest(int msn, int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
        int p = putUntagged(ReadRequestDescriptor.LENGTH, true, RdmapOpcode.READ_REQUEST, 0, FpduDescriptor.QN_READ_REQUEST, msn, 0);
        buffer.putInt(p + ReadRequestDescriptor.SINK_STAG_OFFSET, sinkStag);
        buffer.putLong(p + ReadRequestDescriptor.SINK_TO_OFFSET, sinkTo);
        buffer.putInt(p + ReadRequestDescriptor.SIZE_OFFSET, size);
        buffer.putInt(p + ReadRequestDescriptor.SOURCE_STAG_OFFSET, sourceStag);
        buffer.putLong(p + ReadRequestDescriptor.SOURCE_TO_OFFSET, sourceTo);
        return p + ReadRequestDescriptor.LENGTH;
    }

    // ---------------------------------------------------------------- reading

    /** ULPDU_LENGTH: the DDP header and payload. */
    public int ulpduLength() {
        return buffer.getShort(offset + FpduDescriptor.LENGTH_OFFSET) & 0xFFFF;
    }

    public int ddpControl() {
        return buffer.get(offset + FpduDescriptor.DDP_CONTROL_OFFSET) & 0xFF;
    }

    public int rdmapControl() {
        return buffer.get(offset + FpduDescriptor.RDMAP_CONTROL_OFFSET) & 0xFF;
    }

    public boolean tagged() {
        return (ddpControl() & FpduDescriptor.DDP_TAGGED) != 0;
    }

    public boolean last() {
        return (ddpControl() & FpduDescriptor.DDP_LAST) != 0;
    }

    public int ddpVersion() {
        return ddpControl() & FpduDescriptor.DDP_VERSION_MASK;
    }

    public int rdmapVersion() {
        return rdmapControl() >>> FpduDescriptor.RDMAP_VERSION_SHIFT;
    }

    public int opcode() {
        return rdmapControl() & FpduDescriptor.RDMAP_OPCODE_MASK;
    }

    /** The DDP header's length (with both control bytes) for a segment tagged or not. */
    public static int ddpHeaderLength(boolean tagged) {
        return tagged ? FpduDescriptor.TAGGED_HEADER_LENGTH : FpduDescriptor.UNTAGGED_HEADER_LENGTH;
    }

    /** Tagged: the STag. */
    public int stag() {
        return buffer.getInt(offset + FpduDescriptor.TAGGED_STAG_OFFSET);
    }

    /** Tagged: the tagged offset. */
    public long to() {
        return buffer.getLong(offset + FpduDescriptor.TAGGED_TO_OFFSET);
    }

    /** Untagged: the RsvdULP word, the STag to invalidate of a Send with Invalidate. */
    public int invalidateStag() {
        return buffer.getInt(offset + FpduDescriptor.UNTAGGED_INVALIDATE_STAG_OFFSET);
    }

    public int qn() {
        return buffer.getInt(offset + FpduDescriptor.UNTAGGED_QN_OFFSET);
    }

    public int msn() {
        return buffer.getInt(offset + FpduDescriptor.UNTAGGED_MSN_OFFSET);
    }

    public int mo() {
        return buffer.getInt(offset + FpduDescriptor.UNTAGGED_MO_OFFSET);
    }

    /** Offset of the payload of an untagged segment (where a Read Request or Terminate header starts). */
    public int untaggedPayloadOffset() {
        return offset + FpduDescriptor.LENGTH_SIZE + FpduDescriptor.UNTAGGED_HEADER_LENGTH;
    }

    public int readSinkStag() {
        return buffer.getInt(untaggedPayloadOffset() + ReadRequestDescriptor.SINK_STAG_OFFSET);
    }

    public long readSinkTo() {
        return buffer.getLong(untaggedPayloadOffset() + ReadRequestDescriptor.SINK_TO_OFFSET);
    }

    /** The RDMA Read Message Size, unsigned. */
    public long readSize() {
        return buffer.getInt(untaggedPayloadOffset() + ReadRequestDescriptor.SIZE_OFFSET) & 0xFFFF_FFFFL;
    }

    public int readSourceStag() {
        return buffer.getInt(untaggedPayloadOffset() + ReadRequestDescriptor.SOURCE_STAG_OFFSET);
    }

    public long readSourceTo() {
        return buffer.getLong(untaggedPayloadOffset() + ReadRequestDescriptor.SOURCE_TO_OFFSET);
    }

    /** A Terminate's control word (the first word of its payload). */
    public int terminateControl() {
        return buffer.getInt(untaggedPayloadOffset() + TerminateDescriptor.CONTROL_OFFSET);
    }
}

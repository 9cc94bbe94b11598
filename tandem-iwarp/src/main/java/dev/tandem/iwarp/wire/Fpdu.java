package dev.tandem.iwarp.wire;

/**
 * One decoded FPDU (RFC 5044 section 4) with its DDP (RFC 5041) and RDMAP (RFC 5040) headers, as
 * {@link FpduDecoder} found it in a recorded stream. 32-bit wire fields are kept in {@code int}s:
 * read them with {@link Integer#toUnsignedLong} where the sign matters.
 *
 * @param offset        stream offset of the FPDU's first byte (its ULPDU_LENGTH field)
 * @param ulpduLength   the ULPDU_LENGTH field: DDP header plus payload
 * @param tagged        DDP T bit
 * @param last          DDP L bit (last segment of the message)
 * @param ddpVersion    DDP DV field
 * @param rdmapVersion  RDMAP RV field
 * @param opcode        RDMAP opcode, see {@link RdmapOpcode}
 * @param stag          tagged: the STag; 0 when untagged
 * @param to            tagged: the tagged offset; 0 when untagged
 * @param rsvdUlp       untagged: the RsvdULP word (the STag to invalidate for Send with Invalidate); 0 when tagged
 * @param qn            untagged: queue number; 0 when tagged
 * @param msn           untagged: message sequence number; 0 when tagged
 * @param mo            untagged: message offset; 0 when tagged
 * @param payloadOffset stream offset of the first byte after the DDP header
 * @param payloadLength bytes after the DDP header (for Read Requests and Terminates this is the RDMAP header)
 * @param crc           the CRC field read little-endian, so it equals {@code (int) CRC32C.getValue()} when valid
 * @param crcStatus     whether {@code crc} was checked and what was found
 * @param readRequest   the Read Request fields for opcode {@link RdmapOpcode#READ_REQUEST}, else null
 * @param terminate     the Terminate control word for opcode {@link RdmapOpcode#TERMINATE}, else null
 */
public record Fpdu(int offset, int ulpduLength, boolean tagged, boolean last, int ddpVersion, int rdmapVersion, int opcode,
                   int stag, long to, int rsvdUlp, int qn, int msn, int mo, int payloadOffset, int payloadLength, int crc,
                   CrcStatus crcStatus, ReadRequest readRequest, Terminate terminate) {

    /** Result of the CRC check of one FPDU. */
    public enum CrcStatus {
        /** CRC in use and the field matches CRC32C over ULPDU_LENGTH, ULPDU and pad. */
        VALID,
        /** CRC in use and the field does not match (only reported by a lenient decoder). */
        INVALID,
        /** CRC not negotiated on this stream: the field was not checked. */
        NOT_CHECKED
    }

    /** The RDMA Read Request header (RFC 5040 section 4.4), see {@link ReadRequestDescriptor}. */
    public record ReadRequest(int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
    }

    /**
     * The Terminate control word (RFC 5040 section 4.8): {@code Layer(4) EType(4) ECode(8) M D R Rsvd(13)}.
     *
     * @param control the whole 32-bit word
     * @param code    the layer / type / code triple, or null when it is not a standard one
     * @param m       DDP Segment Length valid
     * @param d       the terminated DDP header is included
     * @param r       the terminated RDMAP header is included
     */
    public record Terminate(int control, TerminateCode code, boolean m, boolean d, boolean r) {
        public static Terminate of(int control) {
            return new Terminate(control, TerminateCode.fromBits(control >>> 16), (control & TerminateDescriptor.FLAG_M) != 0,
                    (control & TerminateDescriptor.FLAG_D) != 0, (control & TerminateDescriptor.FLAG_R) != 0);
        }

        public int layer() {
            return control >>> 28;
        }

        public int errorType() {
            return (control >>> 24) & 0x0F;
        }

        public int errorCode() {
            return (control >>> 16) & 0xFF;
        }
    }

    /** DDP header size of this FPDU: 14 tagged, 18 untagged. */
    public int headerLength() {
        return tagged ? FpduDescriptor.TAGGED_HEADER_LENGTH : FpduDescriptor.UNTAGGED_HEADER_LENGTH;
    }

    /** Pad bytes between the ULPDU and the CRC. */
    public int padLength() {
        return FpduDescriptor.padLength(ulpduLength);
    }

    /** Whole size on the wire, from ULPDU_LENGTH through the CRC. */
    public int length() {
        return FpduDescriptor.fpduLength(ulpduLength);
    }

    /** Stream offset just past this FPDU's CRC. */
    public int end() {
        return offset + length();
    }

    public String opcodeName() {
        return RdmapOpcode.name(opcode);
    }

    /** A one-line human description. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("@%d %s %s%s ulpdu=%d", offset, opcodeName(), tagged ? "T" : "-", last ? "L" : "-", ulpduLength));
        if (tagged) {
            sb.append(String.format(" stag=0x%08x to=0x%016x", stag, to));
        } else {
            sb.append(String.format(" qn=%d msn=%d mo=%d", qn, Integer.toUnsignedLong(msn), Integer.toUnsignedLong(mo)));
            if (rsvdUlp != 0) {
                sb.append(String.format(" rsvdulp=0x%08x", rsvdUlp));
            }
        }
        sb.append(" payload=").append(payloadLength);
        if (readRequest != null) {
            sb.append(String.format(" sink=0x%08x/0x%016x size=%d source=0x%08x/0x%016x", readRequest.sinkStag(), readRequest.sinkTo(),
                    Integer.toUnsignedLong(readRequest.size()), readRequest.sourceStag(), readRequest.sourceTo()));
        }
        if (terminate != null) {
            sb.append(String.format(" term=%s%s%s%s", terminate.code() == null
                            ? String.format("(layer=%d etype=%d ecode=0x%02x)", terminate.layer(), terminate.errorType(), terminate.errorCode())
                            : terminate.code().describe(),
                    terminate.m() ? " M" : "", terminate.d() ? " D" : "", terminate.r() ? " R" : ""));
        }
        sb.append(String.format(" crc=0x%08x %s", crc, crcStatus));
        return sb.toString();
    }
}

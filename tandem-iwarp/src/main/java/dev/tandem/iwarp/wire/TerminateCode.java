package dev.tandem.iwarp.wire;

/**
 * The layer / error type / error code triples of Terminate messages (RFC 5040 section 7.2,
 * RFC 5041 section 7.2, RFC 5044 section 8, RFC 6581 section 9).
 */
public enum TerminateCode {
    RDMAP_INVALID_STAG(Layer.RDMAP, 1, 0x00),
    RDMAP_BASE_BOUNDS(Layer.RDMAP, 1, 0x01),
    RDMAP_ACCESS_RIGHTS(Layer.RDMAP, 1, 0x02),
    RDMAP_STAG_NOT_ASSOCIATED(Layer.RDMAP, 1, 0x03),
    RDMAP_TO_WRAP(Layer.RDMAP, 1, 0x04),
    /** Remote protection error: STag cannot be invalidated (what Linux siw sends). */
    RDMAP_CANNOT_INVALIDATE_PROTECTION(Layer.RDMAP, 1, 0x09),
    RDMAP_UNSPECIFIED_PROTECTION(Layer.RDMAP, 1, 0xFF),
    RDMAP_INVALID_VERSION(Layer.RDMAP, 2, 0x05),
    RDMAP_UNEXPECTED_OPCODE(Layer.RDMAP, 2, 0x06),
    RDMAP_CATASTROPHIC_STREAM(Layer.RDMAP, 2, 0x07),
    RDMAP_CATASTROPHIC_GLOBAL(Layer.RDMAP, 2, 0x08),
    RDMAP_CANNOT_INVALIDATE(Layer.RDMAP, 2, 0x09),
    RDMAP_UNSPECIFIED(Layer.RDMAP, 2, 0xFF),
    RDMAP_CATASTROPHIC_LOCAL(Layer.RDMAP, 0, 0x00),

    DDP_CATASTROPHIC(Layer.DDP, 0, 0x00),
    DDP_TAGGED_INVALID_STAG(Layer.DDP, 1, 0x00),
    DDP_TAGGED_BASE_BOUNDS(Layer.DDP, 1, 0x01),
    DDP_TAGGED_STAG_NOT_ASSOCIATED(Layer.DDP, 1, 0x02),
    DDP_TAGGED_TO_WRAP(Layer.DDP, 1, 0x03),
    DDP_TAGGED_INVALID_VERSION(Layer.DDP, 1, 0x04),
    DDP_UNTAGGED_INVALID_QN(Layer.DDP, 2, 0x01),
    DDP_UNTAGGED_NO_BUFFER(Layer.DDP, 2, 0x02),
    DDP_UNTAGGED_MSN_RANGE(Layer.DDP, 2, 0x03),
    DDP_UNTAGGED_INVALID_MO(Layer.DDP, 2, 0x04),
    DDP_UNTAGGED_TOO_LONG(Layer.DDP, 2, 0x05),
    DDP_UNTAGGED_INVALID_VERSION(Layer.DDP, 2, 0x06),

    LLP_TCP(Layer.LLP, 0, 0x01),
    LLP_CRC(Layer.LLP, 0, 0x02),
    LLP_MARKER(Layer.LLP, 0, 0x03),
    LLP_INVALID_MPA(Layer.LLP, 0, 0x04),
    LLP_LOCAL_CATASTROPHIC(Layer.LLP, 0, 0x05),
    LLP_INSUFFICIENT_IRD(Layer.LLP, 0, 0x06),
    LLP_NO_MATCHING_RTR(Layer.LLP, 0, 0x07);

    /** The layer field of a Terminate. */
    public enum Layer {
        RDMAP(0), DDP(1), LLP(2);

        public final int value;

        Layer(int value) {
            this.value = value;
        }
    }

    private final Layer layer;
    private final int errorType;
    private final int errorCode;

    TerminateCode(Layer layer, int errorType, int errorCode) {
        this.layer = layer;
        this.errorType = errorType;
        this.errorCode = errorCode;
    }

    public Layer layer() {
        return layer;
    }

    public int errorType() {
        return errorType;
    }

    public int errorCode() {
        return errorCode;
    }

    /** {@code layer<<12 | etype<<8 | ecode}: the 16 bits as they stand on the wire. */
    public int bits() {
        return (layer.value << 12) | (errorType << 8) | errorCode;
    }

    /** The code for wire bits {@code layer<<12 | etype<<8 | ecode}, or null when no standard code matches. */
    public static TerminateCode fromBits(int bits) {
        for (TerminateCode c : values()) {
            if (c.bits() == (bits & 0xFFFF)) {
                return c;
            }
        }
        return null;
    }

    /** True for the remote protection errors that map to REM_ACCESS_ERR. */
    public boolean isProtectionError() {
        return (layer == Layer.RDMAP && errorType == 1) || (layer == Layer.DDP && errorType == 1 && errorCode <= 0x03);
    }

    public String describe() {
        return name() + String.format("(layer=%d etype=%d ecode=0x%02x)", layer.value, errorType, errorCode);
    }
}

package dev.tandem.iwarp.wire;

/**
 * Layout of the Terminate payload (RFC 5040 section 4.8), carried untagged on queue 2.
 * Offsets are from the start of the payload.
 *
 * <pre>
 * | Layer(4) | EType(4) | ECode(8) | M | D | R | Rsvd(13) |
 * | DDP segment length (16, valid when M) | offending DDP header (14 or 18, if D) | RDMAP header (28, if R) |
 * </pre>
 */
public final class TerminateDescriptor {
    public static final int CONTROL_OFFSET = 0;
    public static final int CONTROL_SIZE = 4;
    public static final int FLAG_M = 1 << 15;
    public static final int FLAG_D = 1 << 14;
    public static final int FLAG_R = 1 << 13;
    public static final int SEGMENT_LENGTH_OFFSET = 4;
    public static final int HEADER_OFFSET = 6;
    /** Largest Terminate payload: control, length, untagged header and a Read Request header. */
    public static final int MAX_LENGTH = HEADER_OFFSET + FpduDescriptor.UNTAGGED_HEADER_LENGTH + ReadRequestDescriptor.LENGTH;

    private TerminateDescriptor() {
    }

    /** The control word; M (segment length valid) is set whenever a header is quoted, as Linux siw expects. */
    public static int control(TerminateCode code, boolean headerIncluded, boolean rdmapHeaderIncluded) {
        boolean quoted = headerIncluded || rdmapHeaderIncluded;
        return (code.bits() << 16) | (quoted ? FLAG_M : 0) | (headerIncluded ? FLAG_D : 0) | (rdmapHeaderIncluded ? FLAG_R : 0);
    }
}

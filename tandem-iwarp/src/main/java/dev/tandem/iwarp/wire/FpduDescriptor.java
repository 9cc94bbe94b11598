package dev.tandem.iwarp.wire;

/**
 * Layout of one MPA FPDU carrying a DDP segment with its RDMAP header (RFC 5044 section 4,
 * RFC 5041 section 4, RFC 5040 section 4). Offsets are from the first byte of the FPDU.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |        ULPDU_LENGTH           |T|L| Rsvd  |DV |RV |R|  Opcode |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * | tagged:   STag (32)                                            |
 * |           TO (64)                                              |
 * | untagged: RsvdULP / invalidate STag (32) | QN (32) | MSN (32) | MO (32) |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * | payload ...                   | PAD (0..3) | CRC32C (32, little-endian) |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * ULPDU_LENGTH counts the DDP header and payload (not itself, the pad or the CRC); the CRC covers
 * ULPDU_LENGTH, the ULPDU and the pad.
 */
public final class FpduDescriptor {
    public static final int LENGTH_OFFSET = 0;
    public static final int LENGTH_SIZE = 2;
    public static final int DDP_CONTROL_OFFSET = 2;
    public static final int RDMAP_CONTROL_OFFSET = 3;

    public static final int TAGGED_STAG_OFFSET = 4;
    public static final int TAGGED_TO_OFFSET = 8;
    /** DDP tagged header including both control bytes. */
    public static final int TAGGED_HEADER_LENGTH = 14;

    public static final int UNTAGGED_INVALIDATE_STAG_OFFSET = 4;
    public static final int UNTAGGED_QN_OFFSET = 8;
    public static final int UNTAGGED_MSN_OFFSET = 12;
    public static final int UNTAGGED_MO_OFFSET = 16;
    /** DDP untagged header including both control bytes. */
    public static final int UNTAGGED_HEADER_LENGTH = 18;

    public static final int CRC_SIZE = 4;
    /** Largest ULPDU_LENGTH the 16-bit field can carry. */
    public static final int MAX_ULPDU = 0xFFFF;

    /** DDP control byte: T (tagged). */
    public static final int DDP_TAGGED = 0x80;
    /** DDP control byte: L (last segment of the message). */
    public static final int DDP_LAST = 0x40;
    /** DDP control byte: the 2-bit DDP version mask; version 1. */
    public static final int DDP_VERSION_MASK = 0x03;
    public static final int DDP_VERSION = 1;
    /** DDP control byte bits that must be zero. */
    public static final int DDP_RESERVED_MASK = 0x3C;

    /** RDMAP control byte: the 2-bit RDMAP version (top bits); version 1. */
    public static final int RDMAP_VERSION_SHIFT = 6;
    public static final int RDMAP_VERSION = 1;
    public static final int RDMAP_OPCODE_MASK = 0x0F;
    public static final int RDMAP_RESERVED_MASK = 0x30;

    /** Queue numbers of untagged DDP messages. */
    public static final int QN_SEND = 0;
    public static final int QN_READ_REQUEST = 1;
    public static final int QN_TERMINATE = 2;

    private FpduDescriptor() {
    }

    /** Pad bytes after a ULPDU of {@code ulpduLength} so that 2 + ULPDU + pad is a multiple of 4. */
    public static int padLength(int ulpduLength) {
        return (4 - ((LENGTH_SIZE + ulpduLength) & 3)) & 3;
    }

    /** Whole FPDU size on the wire for a ULPDU of {@code ulpduLength}. */
    public static int fpduLength(int ulpduLength) {
        return LENGTH_SIZE + ulpduLength + padLength(ulpduLength) + CRC_SIZE;
    }

    public static int ddpControl(boolean tagged, boolean last) {
        return (tagged ? DDP_TAGGED : 0) | (last ? DDP_LAST : 0) | DDP_VERSION;
    }

    public static int rdmapControl(int opcode) {
        return (RDMAP_VERSION << RDMAP_VERSION_SHIFT) | (opcode & RDMAP_OPCODE_MASK);
    }
}

package dev.tandem.iwarp.wire;

/** RDMAP opcodes (RFC 5040 section 4.3). */
public final class RdmapOpcode {
    public static final int RDMA_WRITE = 0;
    public static final int READ_REQUEST = 1;
    public static final int READ_RESPONSE = 2;
    public static final int SEND = 3;
    public static final int SEND_INVALIDATE = 4;
    public static final int SEND_SE = 5;
    public static final int SEND_SE_INVALIDATE = 6;
    public static final int TERMINATE = 7;
    /** Highest opcode of RFC 5040; RFC 7306 opcodes are not supported yet. */
    public static final int MAX = TERMINATE;

    private static final String[] NAMES = {
        "RDMA_WRITE", "READ_REQUEST", "READ_RESPONSE", "SEND", "SEND_INVALIDATE", "SEND_SE", "SEND_SE_INVALIDATE", "TERMINATE"};

    private RdmapOpcode() {
    }

    public static String name(int opcode) {
        return opcode >= 0 && opcode < NAMES.length ? NAMES[opcode] : "UNKNOWN(" + opcode + ")";
    }

    /** True for the opcodes carried tagged (Write and Read Response). */
    public static boolean isTagged(int opcode) {
        return opcode == RDMA_WRITE || opcode == READ_RESPONSE;
    }

    public static boolean isSend(int opcode) {
        return opcode >= SEND && opcode <= SEND_SE_INVALIDATE;
    }

    public static boolean isSolicited(int opcode) {
        return opcode == SEND_SE || opcode == SEND_SE_INVALIDATE;
    }

    public static boolean invalidates(int opcode) {
        return opcode == SEND_INVALIDATE || opcode == SEND_SE_INVALIDATE;
    }
}

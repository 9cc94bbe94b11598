package dev.tandem.iwarp.wire;

/**
 * Layout of the RDMA Read Request payload (RFC 5040 section 4.4), which follows the untagged
 * DDP header on queue 1. Offsets are from the start of the payload.
 *
 * <pre>
 * | Data Sink STag (32) | Data Sink TO (64) | RDMA Read Message Size (32) |
 * | Data Source STag (32) | Data Source TO (64) |
 * </pre>
 */
public final class ReadRequestDescriptor {
    public static final int SINK_STAG_OFFSET = 0;
    public static final int SINK_TO_OFFSET = 4;
    public static final int SIZE_OFFSET = 12;
    public static final int SOURCE_STAG_OFFSET = 16;
    public static final int SOURCE_TO_OFFSET = 20;
    public static final int LENGTH = 28;

    private ReadRequestDescriptor() {
    }
}

package dev.tandem.tools.perf.rdma;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The status block each side keeps in its registered region, right after its two areas (so at
 * offset {@code 2 * area}, which the peer knows from the hello). Words are 8-byte big-endian.
 *
 * <pre>
 *  offset  0               8               16              24              32 .. 64
 *         +---------------+---------------+---------------+---------------+-----------+
 *         | progress word | probe landing | control out   | control in    | (unused)  |
 *         +---------------+---------------+---------------+---------------+-----------+
 * </pre>
 * <ul>
 * <li>progress word: this side's count of times it advanced (reaped completions, saw a watched
 * byte). The peer reads it with its liveness probes, so it must not move unless the application does.</li>
 * <li>probe landing: where this side's probe Read places the peer's progress word.</li>
 * <li>control out / in: the 8-byte payload of control Sends ("done" with a count) and where
 * control receives land.</li>
 * </ul>
 */
final class StatusBlock {
    static final int BYTES = 64;
    static final int PROGRESS = 0;
    static final int PROBE_LANDING = 8;
    static final int CONTROL_OUT = 16;
    static final int CONTROL_IN = 24;
    static final int WORD = 8;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN);
    private static final VarHandle WORD_HANDLE = LONG.varHandle();

    private final MemorySegment segment;
    private final long base;
    private long progress;

    /** @param base the block's offset in {@code segment} (8-byte aligned) */
    StatusBlock(MemorySegment segment, long base) {
        this.segment = segment;
        this.base = base;
    }

    /** Where the status block of a region with areas of {@code area} bytes starts. */
    static long offsetIn(int area) {
        return 2L * area;
    }

    /** Offset of this block in its region. */
    long base() {
        return base;
    }

    /** This side advanced: one store, which a probing peer sees. */
    void advance() {
        WORD_HANDLE.setRelease(segment, base + PROGRESS, ++progress);
    }

    /** The peer's progress word as this side's last probe read it. */
    long probed() {
        return (long) WORD_HANDLE.getAcquire(segment, base + PROBE_LANDING);
    }

    void controlOut(long value) {
        segment.set(LONG, base + CONTROL_OUT, value);
    }

    long controlIn() {
        return segment.get(LONG, base + CONTROL_IN);
    }
}

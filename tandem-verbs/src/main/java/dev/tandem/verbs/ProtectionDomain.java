package dev.tandem.verbs;

import java.lang.foreign.MemorySegment;

/**
 * A protection domain: regions, windows and QPs of one PD may be used together; a peer may only
 * touch a region or window through a QP of the same PD.
 */
public interface ProtectionDomain extends AutoCloseable {
    RdmaDevice device();

    /** Registers {@code segment} with {@link Access} flags; the STag key starts at 0. */
    MemoryRegion registerMemory(MemorySegment segment, int access);

    /** Allocates a type-2 memory window, unbound until a {@link WorkRequest.BindWindow} is posted. */
    MemoryWindow allocateMemoryWindow();

    QueuePair createQueuePair(QueuePairConfig config);

    SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge);

    @Override
    void close();
}

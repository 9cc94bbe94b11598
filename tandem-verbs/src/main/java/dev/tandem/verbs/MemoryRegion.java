package dev.tandem.verbs;

import java.lang.foreign.MemorySegment;

/**
 * Registered memory: a {@link MemorySegment} the adapter may read and write by STag. Tagged
 * offsets into it are zero-based.
 */
public interface MemoryRegion extends AutoCloseable {
    ProtectionDomain pd();

    MemorySegment segment();

    default long length() {
        return segment().byteSize();
    }

    int access();

    /** Local key (same value as {@link #rkey()}). */
    int lkey();

    /** Remote key a peer names in RDMA Write/Read. */
    int rkey();

    /**
     * Re-registers the region with new access rights under a fresh STag (lkey and rkey change), so
     * that every rkey a peer still holds stops working. Returns the new STag.
     */
    int reregister(int access);

    boolean isValid();

    /**
     * Deregisters the region. Work already posted that points into it is not refused here but
     * checked when it is used: a Receive that data then arrives for completes {@code LOC_PROT_ERR}
     * with nothing placed in the region, and the connection ends (as Linux siw checks at placement).
     */
    @Override
    void close();
}

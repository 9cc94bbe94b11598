package dev.tandem.provider;

import dev.tandem.verbs.Access;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One live STag of the adapter's {@link StagTable}: the state a peer's tagged access is checked
 * against. A region entry is fixed at registration (reregister replaces it with an entry under a
 * fresh STag); a window entry keeps its index and changes its key and range with every bind.
 * Fields are public and volatile: written by verbs on application threads (and by the transport when
 * it binds or invalidates a window), read by the transport on its hot path.
 */
public final class StagEntry {
    public final int index;
    public final KitProtectionDomain pd;
    public final boolean window;
    public volatile int key;
    public volatile boolean valid;
    public volatile int access;
    /** Region: its memory. Window: the bound region's memory. */
    public volatile KitMemoryRegion region;
    /** Window: offset of the window in the bound region; region: 0. */
    public volatile long base;
    public volatile long length;
    /** Window: the QP it is bound to. */
    public volatile KitQueuePair boundQp;

    StagEntry(int index, KitProtectionDomain pd, boolean window) {
        this.index = index;
        this.pd = pd;
        this.window = window;
    }

    public int stag() {
        return (index << 8) | key;
    }

    /** The whole region's memory as a buffer (one per region, shared read-only knowledge). */
    public MemorySegment segment() {
        KitMemoryRegion r = region;
        return r == null ? null : r.segment();
    }

    public ByteBuffer buffer() {
        KitMemoryRegion r = region;
        return r == null ? null : r.buffer();
    }

    public boolean allows(int required) {
        return Access.allows(access, required);
    }
}

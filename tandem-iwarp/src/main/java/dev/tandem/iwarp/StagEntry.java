package dev.tandem.iwarp;

import dev.tandem.verbs.Access;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One live STag of the adapter's {@link StagTable}: the state a peer's tagged access is checked
 * against. A region entry is fixed at registration (reregister replaces it with an entry under a
 * fresh STag); a window entry keeps its index and changes its key and range with every bind.
 * Fields are volatile: written by verbs on application threads, read by the engine.
 */
final class StagEntry {
    final int index;
    final IwProtectionDomain pd;
    final boolean window;
    volatile int key;
    volatile boolean valid;
    volatile int access;
    /** Region: its memory. Window: the bound region's memory. */
    volatile IwMemoryRegion region;
    /** Window: offset of the window in the bound region; region: 0. */
    volatile long base;
    volatile long length;
    /** Window: the QP it is bound to. */
    volatile IwQueuePair boundQp;

    StagEntry(int index, IwProtectionDomain pd, boolean window) {
        this.index = index;
        this.pd = pd;
        this.window = window;
    }

    int stag() {
        return (index << 8) | key;
    }

    /** The whole region's memory as a buffer (one per region, shared read-only knowledge). */
    MemorySegment segment() {
        IwMemoryRegion r = region;
        return r == null ? null : r.segment();
    }

    ByteBuffer buffer() {
        IwMemoryRegion r = region;
        return r == null ? null : r.buffer;
    }

    boolean allows(int required) {
        return Access.allows(access, required);
    }
}

package dev.tandem.failover;

import dev.tandem.verbs.MemoryRegion;

import java.lang.foreign.MemorySegment;

/**
 * Registers the layer's own memory (headers, mailboxes, INLINE copies) in a session's protection domain,
 * on every adapter of it, so that any path's QP can gather from it or the peer write into it.
 */
@FunctionalInterface
interface InternalMemory {
    /** {@code segment} registered with {@code access} ({@link dev.tandem.verbs.Access} bits). */
    MemoryRegion register(MemorySegment segment, int access);
}

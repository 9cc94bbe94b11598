package dev.tandem.iwarp;

import dev.tandem.verbs.QueueFullException;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The adapter's STag index space: index → {@link StagEntry}. Index 0 is never used so that a
 * zero STag is always invalid. Lookups are lock-free; allocation and release are rare and locked.
 */
final class StagTable {
    private final AtomicReferenceArray<StagEntry> entries;
    private int next = 1;
    private int live;

    StagTable(int capacity) {
        entries = new AtomicReferenceArray<>(capacity);
    }

    int capacity() {
        return entries.length();
    }

    synchronized StagEntry allocate(IwProtectionDomain pd, boolean window) {
        int n = entries.length();
        for (int i = 0; i < n; i++) {
            int idx = next;
            next = next + 1 >= n ? 1 : next + 1;
            if (idx != 0 && entries.get(idx) == null) {
                StagEntry e = new StagEntry(idx, pd, window);
                entries.set(idx, e);
                live++;
                return e;
            }
        }
        throw new QueueFullException("all " + (n - 1) + " STag indices of the adapter are in use; deregister regions or windows first");
    }

    synchronized void release(StagEntry e) {
        e.valid = false;
        if (entries.compareAndSet(e.index, e, null)) {
            live--;
        }
    }

    synchronized int live() {
        return live;
    }

    /** The entry at the STag's index, or null; the caller checks key, validity and rights. */
    StagEntry lookup(int stag) {
        int idx = stag >>> 8;
        return idx < entries.length() ? entries.get(idx) : null;
    }
}

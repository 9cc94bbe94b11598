package dev.tandem.provider;

import dev.tandem.verbs.MemoryWindow;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.STag;

/** A type-2 memory window; its state lives in its {@link StagEntry} and changes only through the send queue. */
public final class KitMemoryWindow implements MemoryWindow, TrackedResource {
    private final KitProtectionDomain pd;
    private final StagEntry entry;
    private volatile boolean closed;

    KitMemoryWindow(KitProtectionDomain pd) {
        this.pd = pd;
        this.entry = pd.core().stags().allocate(pd, true);
        entry.valid = false;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    /** The kit's own PD (the same object as {@link #pd()}). */
    public KitProtectionDomain kitPd() {
        return pd;
    }

    /** Its STag's entry: the bound range and rights, changed only through the send queue. */
    public StagEntry entry() {
        return entry;
    }

    @Override
    public ResourceKind kind() {
        return ResourceKind.MW;
    }

    @Override
    public long number() {
        return entry.stag() & 0xFFFF_FFFFL;
    }

    @Override
    public int rkey() {
        return entry.stag();
    }

    @Override
    public boolean isBound() {
        return entry.valid && !closed;
    }

    public boolean isClosed() {
        return closed;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            pd.core().stags().release(entry);
            pd.forget(this);
        }
    }

    @Override
    public String toString() {
        return "MemoryWindow[stag=" + STag.format(entry.stag()) + (isBound() ? ", bound" : ", unbound") + "]";
    }
}

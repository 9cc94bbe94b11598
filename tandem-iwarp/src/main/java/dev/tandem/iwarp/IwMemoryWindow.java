package dev.tandem.iwarp;

import dev.tandem.verbs.MemoryWindow;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.STag;

/** A type-2 memory window; its state lives in its {@link StagEntry} and changes only through the send queue. */
final class IwMemoryWindow implements MemoryWindow {
    private final IwProtectionDomain pd;
    final StagEntry entry;
    private volatile boolean closed;

    IwMemoryWindow(IwProtectionDomain pd) {
        this.pd = pd;
        this.entry = pd.device().stags().allocate(pd, true);
        entry.valid = false;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    IwProtectionDomain iwPd() {
        return pd;
    }

    @Override
    public int rkey() {
        return entry.stag();
    }

    @Override
    public boolean isBound() {
        return entry.valid && !closed;
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            pd.device().stags().release(entry);
            pd.forget(this);
        }
    }

    @Override
    public String toString() {
        return "MemoryWindow[stag=" + STag.format(entry.stag()) + (isBound() ? ", bound" : ", unbound") + "]";
    }
}

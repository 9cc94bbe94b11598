package dev.tandem.failover;

import dev.tandem.provider.ResourceLimits;
import dev.tandem.verbs.MemoryWindow;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.STag;

/**
 * A type-2 window allocated on every adapter of its session under one STag index. A bind runs on
 * the adapter that carries the QP it is posted to; the window is bound while it is bound there.
 */
final class FailoverMemoryWindow implements MemoryWindow {
    private final FailoverProtectionDomain pd;
    private final MemoryWindow[] under;
    /** The adapter of the last bind, where the window's current key lives. */
    private volatile int boundOn;
    private volatile boolean closed;
    /** The STag it was allocated under (index and first key), to allocate it again on an adapter that comes back. */
    private int allocated;

    FailoverMemoryWindow(FailoverProtectionDomain pd) {
        this.pd = pd;
        FailoverDevice device = pd.failoverDevice();
        this.under = new MemoryWindow[device.adapterCount()];
        device.limits.take(ResourceLimits.Kind.STAG);
        try {
            allocated = device.keys().sameStag(() -> {
                for (int k = 0; k < under.length; k++) {
                    if (pd.under(k) != null && device.usable(k)) {
                        under[k] = pd.under(k).allocateMemoryWindow();
                    }
                }
            });
        } catch (RuntimeException e) {
            closeUnder();
            device.limits.giveBack(ResourceLimits.Kind.STAG);
            throw e;
        }
        for (int k = 0; k < under.length; k++) {
            if (under[k] != null) {
                boundOn = k;
                break;
            }
        }
    }

    /** This window on adapter {@code k}, or null. */
    MemoryWindow under(int k) {
        return under[k];
    }

    /** Adapter {@code k} failed: its window there goes. */
    synchronized void release(int k) {
        MemoryWindow w = under[k];
        under[k] = null;
        if (w != null) {
            try {
                w.close();
            } catch (RuntimeException e) {
                // the adapter drops it on reset
            }
        }
    }

    /** Adapter {@code k} is back: the window is allocated there again (unbound). */
    synchronized void rebuild(int k) {
        if (closed || under[k] != null || pd.under(k) == null) {
            return;
        }
        pd.failoverDevice().keys().again(allocated, () -> under[k] = pd.under(k).allocateMemoryWindow());
    }

    /** A bind of it was posted on adapter {@code k}. */
    void bindingOn(int k) {
        boundOn = k;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public int rkey() {
        MemoryWindow w = under[boundOn];
        return w == null ? 0 : w.rkey();
    }

    @Override
    public boolean isBound() {
        MemoryWindow w = under[boundOn];
        return !closed && w != null && w.isBound();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeUnder();
        pd.failoverDevice().limits.giveBack(ResourceLimits.Kind.STAG);
        pd.forget(this);
    }

    private void closeUnder() {
        for (MemoryWindow w : under) {
            if (w != null) {
                try {
                    w.close();
                } catch (RuntimeException e) {
                    // a failed adapter drops its windows when it is reset or closed
                }
            }
        }
    }

    @Override
    public String toString() {
        return "MemoryWindow[stag=" + STag.format(rkey()) + (isBound() ? ", bound" : "") + ", on " + pd.failoverDevice().name() + "]";
    }
}

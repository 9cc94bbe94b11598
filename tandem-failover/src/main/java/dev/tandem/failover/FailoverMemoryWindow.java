package dev.tandem.failover;

import dev.tandem.provider.ResourceLimits;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.MemoryWindow;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

/**
 * A type-2 window allocated on every adapter of its session under one STag index. A bind runs on
 * the adapter that carries the QP it is posted to; the window is bound while it is bound there. It
 * remembers its last completed bind, so that a fail-over of the QP it is bound to binds it again,
 * under the same STag, on the new path ({@link #rebindOn}); an invalidation forgets it.
 */
final class FailoverMemoryWindow implements MemoryWindow {
    private final FailoverProtectionDomain pd;
    private final MemoryWindow[] under;
    /** The adapter of the last bind, where the window's current key lives. */
    private volatile int boundOn;
    private volatile boolean closed;
    /** The STag it was allocated under (index and first key), to allocate it again on an adapter that comes back. */
    private int allocated;
    /** The last bind that completed, while the window is valid; null while unbound or invalidated. */
    private volatile Binding binding;
    /** A move could not bind it again: it is not bound, whatever its adapter window says. */
    private volatile boolean closedUnderMove;

    /** A completed bind: through which QP, of what, and the key it gave. */
    record Binding(FailoverQueuePair qp, MemoryRegion region, long offset, long length, int access, int key) {
    }

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
        Quietly.close(w);
    }

    /** Adapter {@code k} is back: the window is allocated there again (unbound). */
    synchronized void rebuild(int k) {
        if (closed || under[k] != null || pd.under(k) == null) {
            return;
        }
        pd.failoverDevice().keys().again(allocated, () -> under[k] = pd.under(k).allocateMemoryWindow());
    }

    /** The adapter where its current key lives. */
    int boundOn() {
        return boundOn;
    }

    /** A bind of it was posted on adapter {@code k}. */
    void bindingOn(int k) {
        boundOn = k;
    }

    /** A bind of it through {@code qp} completed: what a fail-over of {@code qp} binds again on the new path. */
    void bound(FailoverQueuePair qp, WorkRequest.BindWindow b) {
        binding = new Binding(qp, b.region(), b.offset(), b.windowLength(), b.access(), b.newKey());
        closedUnderMove = false;
    }

    /** Whether {@code stag} is the STag its last bind gave it. */
    boolean holds(int stag) {
        Binding b = binding;
        return b != null && stag == STag.of(STag.index(allocated), b.key());
    }

    /** Its STag was invalidated (a Local Invalidate, or the peer's Send with Invalidate): nothing to bind again. */
    void invalidated() {
        binding = null;
    }

    /** The STag it was allocated under (its index is the window's for good). */
    int allocatedStag() {
        return allocated;
    }

    /** It could not be bound again after a move: it no longer says it is bound, and nothing binds it again. */
    void lostBinding() {
        binding = null;
        closedUnderMove = true;
    }

    /** A bind of it again through {@code qp} on adapter {@code k} failed: see {@link #lostBinding}. */
    void reboundFailed(FailoverQueuePair qp, int k) {
        Binding b = binding;
        if (b != null && b.qp() == qp && boundOn == k) {
            lostBinding();
        }
    }

    /**
     * The bind that makes it valid again on adapter {@code k}, for {@code qp}'s path there after a
     * fail-over: the last binding, under the same STag and key, on a fresh window there (a window left
     * bound to the stale QP of an earlier path there cannot be bound again). Null when it is not bound
     * through {@code qp}, or adapter {@code k} cannot hold it.
     */
    synchronized WorkRequest.BindWindow rebindOn(int k, FailoverQueuePair qp, long wrId) {
        Binding b = binding;
        if (closed || b == null || b.qp() != qp || pd.under(k) == null) {
            return null;
        }
        try {
            // closed and made again while its STag is pinned, so that the node keeps holding it in between
            pd.failoverDevice().keys().again(allocated, () -> {
                release(k); // stale with the QP it was bound to
                under[k] = pd.under(k).allocateMemoryWindow();
            });
        } catch (RuntimeException e) {
            System.getLogger("dev.tandem.failover").log(System.Logger.Level.WARNING, "window " + STag.format(allocated)
                    + " cannot be made again on adapter " + k + " to be bound there: " + e.getMessage());
            return null;
        }
        boundOn = k;
        return new WorkRequest.BindWindow(wrId, under[k], b.region(), b.offset(), b.length(), b.access(), b.key(), WrFlags.SIGNALED);
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
        return !closed && !closedUnderMove && w != null && w.isBound();
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
        for (int k = 0; k < under.length; k++) {
            release(k);
        }
    }

    @Override
    public String toString() {
        return "MemoryWindow[stag=" + STag.format(rkey()) + (isBound() ? ", bound" : "") + ", on " + pd.failoverDevice().name() + "]";
    }
}

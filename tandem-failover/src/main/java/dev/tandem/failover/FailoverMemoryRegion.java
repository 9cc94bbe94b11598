package dev.tandem.failover;

import dev.tandem.provider.ResourceLimits;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.STag;

import java.lang.foreign.MemorySegment;

/**
 * A region registered on every adapter of its session under one STag, drawn from the node key
 * table: so a peer's rkey works on whichever adapter the connection runs over after a fail-over,
 * and an application's gather list names it on any of them.
 */
final class FailoverMemoryRegion implements MemoryRegion {
    private final FailoverProtectionDomain pd;
    private final MemorySegment segment;
    private final MemoryRegion[] under;
    /** Counts against the application's maxMemoryRegions (the layer's own regions do not). */
    private final boolean application;
    private volatile int access;
    private volatile int stag;
    private volatile boolean closed;

    FailoverMemoryRegion(FailoverProtectionDomain pd, MemorySegment segment, int access, boolean application) {
        Access.validate(access);
        this.pd = pd;
        this.segment = segment;
        this.application = application;
        this.access = access;
        FailoverDevice device = pd.failoverDevice();
        this.under = new MemoryRegion[device.adapterCount()];
        if (application) {
            device.limits.take(ResourceLimits.Kind.STAG);
        }
        try {
            this.stag = device.keys().sameStag(() -> {
                for (int k = 0; k < under.length; k++) {
                    if (pd.under(k) != null && device.usable(k)) {
                        under[k] = pd.under(k).registerMemory(segment, access);
                    }
                }
            }, !application);
        } catch (RuntimeException e) {
            closeUnder();
            if (application) {
                device.limits.giveBack(ResourceLimits.Kind.STAG);
            }
            throw e;
        }
    }

    FailoverDevice failoverDevice() {
        return pd.failoverDevice();
    }

    /** This region on adapter {@code k}, or null. */
    MemoryRegion under(int k) {
        return under[k];
    }

    /** Adapter {@code k} failed: its registration goes (so the adapter's reset finds nothing of ours). */
    synchronized void release(int k) {
        MemoryRegion r = under[k];
        under[k] = null;
        Quietly.close(r);
    }

    /** Adapter {@code k} is back: the region is registered there again, under the STag its peers know. */
    synchronized void rebuild(int k) {
        if (closed || under[k] != null || pd.under(k) == null) {
            return;
        }
        pd.failoverDevice().keys().again(stag, () -> under[k] = pd.under(k).registerMemory(segment, access));
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public int lkey() {
        return stag;
    }

    @Override
    public int rkey() {
        return stag;
    }

    @Override
    public synchronized int reregister(int newAccess) {
        if (closed) {
            throw new ResourceClosedException("memory region " + STag.format(stag) + " is deregistered");
        }
        Access.validate(newAccess);
        stag = pd.failoverDevice().keys().sameStag(() -> {
            for (MemoryRegion r : under) {
                if (r != null) {
                    r.reregister(newAccess);
                }
            }
        });
        access = newAccess;
        return stag;
    }

    /** Valid while registered on every adapter that holds it (an invalidate on any of them ends it). */
    @Override
    public boolean isValid() {
        if (closed) {
            return false;
        }
        for (MemoryRegion r : under) {
            if (r != null && !r.isValid()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeUnder();
        if (application) {
            pd.failoverDevice().limits.giveBack(ResourceLimits.Kind.STAG);
        }
        pd.forget(this);
    }

    private void closeUnder() {
        for (int k = 0; k < under.length; k++) {
            release(k);
        }
    }

    @Override
    public String toString() {
        return "MemoryRegion[stag=" + STag.format(stag) + ", length=" + segment.byteSize() + ", access=" + Access.describe(access)
                + ", on " + pd.failoverDevice().name() + "]";
    }
}

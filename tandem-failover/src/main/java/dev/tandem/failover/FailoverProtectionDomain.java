package dev.tandem.failover;

import dev.tandem.provider.ResourceLimits;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.MemoryWindow;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.SharedReceiveQueue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A protection domain on every adapter: the session of one application instance. Its regions,
 * windows, SRQs and QPs are created on every adapter under it. A session is primary on one adapter
 * (the adapters take turns), where its QPs receive; so two healthy adapters carry more than one.
 *
 * <p>It holds the session's proof region: 16 bytes a peer reads (offset 0) to prove what it sent
 * before arrived, and where this side's proofs land (offset 8).
 */
final class FailoverProtectionDomain implements ProtectionDomain {
    /** Where a peer's proof reads (8 bytes). */
    static final long PROOF_SOURCE = 0;
    /** Where this side's proofs land (8 bytes). */
    static final long PROOF_SINK = 8;

    private final FailoverDevice device;
    private final ProtectionDomain[] under;
    private final int primary;
    private final Arena arena = Arena.ofShared();
    private final FailoverMemoryRegion proofRegion;
    private final List<AutoCloseable> children = new ArrayList<>();
    /** The layer's own regions in this domain (proof, headers, mailboxes). */
    private final List<FailoverMemoryRegion> internals = new ArrayList<>();
    private boolean closed;

    FailoverProtectionDomain(FailoverDevice device) {
        this.device = device;
        device.limits.take(ResourceLimits.Kind.PROTECTION_DOMAIN);
        this.under = new ProtectionDomain[device.adapterCount()];
        try {
            for (int k = 0; k < under.length; k++) {
                if (device.usable(k)) {
                    under[k] = device.adapter(k).allocateProtectionDomain();
                }
            }
            this.primary = device.nextPrimary();
            this.proofRegion = registerInternal(arena.allocate(16, 8), Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE);
        } catch (RuntimeException e) {
            closeUnder();
            device.limits.giveBack(ResourceLimits.Kind.PROTECTION_DOMAIN);
            arena.close();
            throw e;
        }
    }

    FailoverDevice failoverDevice() {
        return device;
    }

    /** This session's PD on adapter {@code k}, or null when the adapter could not carry work when it was made. */
    ProtectionDomain under(int k) {
        return under[k];
    }

    /** The adapter this session's QPs receive on. */
    int primary() {
        return primary;
    }

    FailoverMemoryRegion proofRegion() {
        return proofRegion;
    }

    /** A region of the layer's own, under one STag on every adapter; not counted against the application's maxMemoryRegions. */
    FailoverMemoryRegion registerInternal(MemorySegment segment, int access) {
        FailoverMemoryRegion r = new FailoverMemoryRegion(this, segment, access, false);
        synchronized (this) {
            internals.add(r);
        }
        return r;
    }

    synchronized <T extends AutoCloseable> T remember(T child) {
        if (closed) {
            throw new ResourceClosedException("protection domain of " + device.name() + " is closed");
        }
        children.add(child);
        return child;
    }

    /** Its shared receive queues open now. */
    synchronized List<FailoverSharedReceiveQueue> sharedReceiveQueues() {
        List<FailoverSharedReceiveQueue> l = new ArrayList<>();
        for (AutoCloseable c : children) {
            if (c instanceof FailoverSharedReceiveQueue s) {
                l.add(s);
            }
        }
        return l;
    }

    /** Its windows open now. */
    synchronized List<FailoverMemoryWindow> windows() {
        List<FailoverMemoryWindow> l = new ArrayList<>();
        for (AutoCloseable c : children) {
            if (c instanceof FailoverMemoryWindow w) {
                l.add(w);
            }
        }
        return l;
    }

    /**
     * This session's region under {@code r}'s lkey over the same memory (a region registered by another
     * device of the node under the same STag, as devices given one STag source do), or null.
     */
    synchronized FailoverMemoryRegion twinOf(MemoryRegion r) {
        for (AutoCloseable c : children) {
            if (c instanceof FailoverMemoryRegion f && f.lkey() == r.lkey() && f.segment().address() == r.segment().address()
                    && f.segment().byteSize() == r.segment().byteSize()) {
                return f;
            }
        }
        return null;
    }

    /** Whether a region of this session has lkey {@code lkey}. */
    synchronized boolean holdsLkey(int lkey) {
        for (AutoCloseable c : children) {
            if (c instanceof FailoverMemoryRegion f && f.lkey() == lkey) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code stag} names a window of this session (its invalidate goes where the window is bound). */
    boolean isWindow(int stag) {
        for (FailoverMemoryWindow w : windows()) {
            if (dev.tandem.verbs.STag.index(w.allocatedStag()) == dev.tandem.verbs.STag.index(stag)) {
                return true;
            }
        }
        return false;
    }

    /** An STag of this session was invalidated: a window it named is no longer bound (nothing to bind again after a fail-over). */
    void invalidated(int stag) {
        for (FailoverMemoryWindow w : windows()) {
            if (w.holds(stag)) {
                w.invalidated();
            }
        }
    }

    synchronized void forget(AutoCloseable child) {
        children.remove(child);
        internals.remove(child);
    }

    /** Adapter {@code k} failed: everything of this session there goes, QPs first, so its reset finds nothing of ours. */
    void release(int k) {
        List<AutoCloseable> all;
        List<FailoverMemoryRegion> own;
        synchronized (this) {
            all = new ArrayList<>(children);
            own = new ArrayList<>(internals);
        }
        all.sort((a, b) -> Integer.compare(FailoverDevice.closeOrder(a), FailoverDevice.closeOrder(b)));
        for (AutoCloseable c : all) {
            switch (c) {
                case FailoverQueuePair q -> q.setup().release(k);
                case FailoverMemoryWindow w -> w.release(k);
                case FailoverMemoryRegion r -> r.release(k);
                case FailoverSharedReceiveQueue s -> s.release(k);
                default -> { }
            }
        }
        for (FailoverMemoryRegion r : own) {
            r.release(k);
        }
        ProtectionDomain p = under[k];
        under[k] = null;
        Quietly.close(p);
    }

    /** Adapter {@code k} is back: the session is made there again (regions under their STags), QPs last, unconnected. */
    void rebuild(int k) {
        synchronized (this) {
            if (closed) {
                return; // closed meanwhile: nothing of it is made again (close let go of every adapter's PD)
            }
            if (under[k] == null) {
                under[k] = device.adapter(k).allocateProtectionDomain();
            }
        }
        List<AutoCloseable> all;
        List<FailoverMemoryRegion> own;
        synchronized (this) {
            all = new ArrayList<>(children);
            own = new ArrayList<>(internals);
        }
        for (FailoverMemoryRegion r : own) {
            r.rebuild(k);
        }
        all.sort((a, b) -> Integer.compare(FailoverDevice.closeOrder(b), FailoverDevice.closeOrder(a)));
        for (AutoCloseable c : all) {
            switch (c) {
                case FailoverMemoryWindow w -> w.rebuild(k);
                case FailoverMemoryRegion r -> r.rebuild(k);
                case FailoverSharedReceiveQueue s -> s.rebuild(k);
                default -> { }
            }
        }
    }

    void checkOpen() {
        device.checkOpen();
        synchronized (this) {
            if (closed) {
                throw new ResourceClosedException("protection domain of " + device.name() + " is closed");
            }
        }
    }

    @Override
    public RdmaDevice device() {
        return device;
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, int access) {
        checkOpen();
        if (segment == null) {
            throw new InvalidArgumentException("registerMemory: segment is null");
        }
        return remember(new FailoverMemoryRegion(this, segment, access, true));
    }

    @Override
    public MemoryWindow allocateMemoryWindow() {
        checkOpen();
        return remember(new FailoverMemoryWindow(this));
    }

    @Override
    public QueuePair createQueuePair(QueuePairConfig config) {
        checkOpen();
        return remember(new FailoverQueuePair(this, config));
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge) {
        checkOpen();
        return remember(new FailoverSharedReceiveQueue(this, maxWr, maxSge));
    }

    /** Closes the domain and what was created in it: QPs first (they use the rest), then windows, regions and SRQs. */
    @Override
    public void close() {
        List<AutoCloseable> left;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            left = new ArrayList<>(children);
            children.clear();
        }
        left.sort((a, b) -> Integer.compare(FailoverDevice.closeOrder(a), FailoverDevice.closeOrder(b)));
        for (AutoCloseable c : left) {
            try {
                c.close();
            } catch (Exception e) {
                System.getLogger("dev.tandem.failover").log(System.Logger.Level.WARNING, "closing " + c + " failed", e);
            }
        }
        proofRegion.close();
        synchronized (this) {
            closeUnder(); // under the lock a rebuild takes: no adapter's PD is made after this
        }
        arena.close();
        device.limits.giveBack(ResourceLimits.Kind.PROTECTION_DOMAIN);
        device.forget(this);
    }

    private void closeUnder() {
        for (ProtectionDomain p : under) {
            Quietly.close(p);
        }
    }

    @Override
    public String toString() {
        return "pd of " + device.name() + " (primary adapter " + primary + ")";
    }
}

package dev.tandem.provider;

import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.MemoryWindow;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.SharedReceiveQueue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A protection domain of an adapter; closing it closes what was created in it. */
public final class KitProtectionDomain implements ProtectionDomain, TrackedResource {
    private final DeviceCore device;
    private final int number;
    private final Set<AutoCloseable> children = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    KitProtectionDomain(DeviceCore device) {
        this.device = device;
        this.number = device.ras().nextNumber(ResourceKind.PD);
    }

    @Override
    public RdmaDevice device() {
        return device.device();
    }

    /** The adapter's core this PD belongs to. */
    public DeviceCore core() {
        return device;
    }

    @Override
    public ResourceKind kind() {
        return ResourceKind.PD;
    }

    @Override
    public long number() {
        return number;
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, int access) {
        device.enter();
        try {
            checkOpen();
            return remember(device.create(ResourceKind.MR, () -> new KitMemoryRegion(this, segment, access)));
        } finally {
            device.leave();
        }
    }

    @Override
    public MemoryWindow allocateMemoryWindow() {
        device.enter();
        try {
            checkOpen();
            return remember(device.create(ResourceKind.MW, () -> new KitMemoryWindow(this)));
        } finally {
            device.leave();
        }
    }

    @Override
    public QueuePair createQueuePair(QueuePairConfig config) {
        device.enter();
        try {
            checkOpen();
            if (config == null) {
                throw new InvalidArgumentException("createQueuePair: config is null");
            }
            return remember(device.newQueuePair(this, config));
        } finally {
            device.leave();
        }
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge) {
        device.enter();
        try {
            checkOpen();
            return remember(device.create(ResourceKind.SRQ, () -> new KitSharedReceiveQueue(this, maxWr, maxSge)));
        } finally {
            device.leave();
        }
    }

    private <T extends TrackedResource> T remember(T child) {
        children.add(child);
        device.track(child);
        return child;
    }

    /** A resource of this PD closed. */
    public void forget(TrackedResource child) {
        children.remove(child);
        device.untrack(child);
    }

    /** Throws when this PD or its adapter is closed (or the adapter failed). */
    public void checkOpen() {
        if (closed) {
            throw new ResourceClosedException("protection domain of " + device.name() + " is closed");
        }
        device.checkOpen();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<AutoCloseable> all = new ArrayList<>(children);
        // QPs first (they reference regions), then windows, regions and SRQs.
        all.sort(DeviceCore.CLOSE_ORDER);
        for (AutoCloseable c : all) {
            try {
                c.close();
            } catch (Exception e) {
                device.logger().log(System.Logger.Level.WARNING, "closing " + c + " failed", e);
            }
        }
        device.forget(this);
    }

    @Override
    public String toString() {
        return "ProtectionDomain[" + children.size() + " resources" + (closed ? ", closed" : "") + "]";
    }
}

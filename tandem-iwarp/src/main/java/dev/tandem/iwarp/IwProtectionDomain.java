package dev.tandem.iwarp;

import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.MemoryWindow;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.SharedReceiveQueue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A protection domain of the software adapter; closing it closes what was created in it. */
final class IwProtectionDomain implements ProtectionDomain {
    private final IwarpDevice device;
    private final Set<AutoCloseable> children = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    IwProtectionDomain(IwarpDevice device) {
        this.device = device;
    }

    @Override
    public IwarpDevice device() {
        return device;
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, int access) {
        device.enter();
        try {
            checkOpen();
            return remember(device.create(ResourceLimits.Kind.STAG, () -> new IwMemoryRegion(this, segment, access)));
        } finally {
            device.leave();
        }
    }

    @Override
    public MemoryWindow allocateMemoryWindow() {
        device.enter();
        try {
            checkOpen();
            return remember(device.create(ResourceLimits.Kind.STAG, () -> new IwMemoryWindow(this)));
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
            return remember(device.create(ResourceLimits.Kind.SHARED_RECEIVE_QUEUE, () -> new IwSharedReceiveQueue(this, maxWr, maxSge)));
        } finally {
            device.leave();
        }
    }

    private <T extends AutoCloseable> T remember(T child) {
        children.add(child);
        device.track(child);
        return child;
    }

    void forget(AutoCloseable child) {
        children.remove(child);
        device.untrack(child);
    }

    void checkOpen() {
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
        all.sort(IwarpDevice.CLOSE_ORDER);
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

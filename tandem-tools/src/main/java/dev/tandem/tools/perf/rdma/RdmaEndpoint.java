package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.PerfException;
import dev.tandem.tools.perf.WaitMode;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.Sge;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One side's resources for a perf connection: a PD, one registered region of two areas (receive
 * area at 0, send area at {@code area}), one CQ for both queues, one RC queue pair.
 */
public final class RdmaEndpoint implements AutoCloseable {
    private final Arena arena;
    private final ProtectionDomain pd;
    private final MemorySegment segment;
    private final MemoryRegion mr;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final int area;
    private final CompletionWaiter waiter;

    private RdmaEndpoint(Arena arena, ProtectionDomain pd, MemorySegment segment, MemoryRegion mr, CompletionQueue cq,
                         QueuePair qp, int area, CompletionWaiter waiter) {
        this.arena = arena;
        this.pd = pd;
        this.segment = segment;
        this.mr = mr;
        this.cq = cq;
        this.qp = qp;
        this.area = area;
        this.waiter = waiter;
    }

    /**
     * @param area         bytes of each of the two areas
     * @param sendDepth    send queue slots
     * @param receiveDepth receive queue slots
     */
    public static RdmaEndpoint create(RdmaDevice device, int area, int sendDepth, int receiveDepth, WaitMode wait, String side) {
        DeviceAttributes a = device.attributes();
        if (sendDepth > a.maxQueuePairDepth() || receiveDepth > a.maxQueuePairDepth()) {
            throw new PerfException("this run needs a send queue of " + sendDepth + " and a receive queue of " + receiveDepth
                    + " slots, but adapter " + device.name() + " allows at most " + a.maxQueuePairDepth() + "; lower --tx-depth");
        }
        int cqDepth = sendDepth + receiveDepth;
        if (cqDepth > a.maxCqDepth()) {
            throw new PerfException("this run needs a completion queue of " + cqDepth + " entries, but adapter " + device.name()
                    + " allows at most " + a.maxCqDepth() + "; lower --tx-depth");
        }
        Arena arena = Arena.ofShared();
        ProtectionDomain pd = null;
        MemoryRegion mr = null;
        CompletionQueue cq = null;
        try {
            pd = device.allocateProtectionDomain();
            MemorySegment segment = arena.allocate(2L * area, 64);
            mr = pd.registerMemory(segment, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
            cq = device.createCompletionQueue(cqDepth);
            QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq).withDepths(sendDepth, receiveDepth));
            return new RdmaEndpoint(arena, pd, segment, mr, cq, qp, area,
                    new CompletionWaiter(cq, wait, Math.max(16, Math.min(cqDepth, 256)), side));
        } catch (RuntimeException e) {
            closeQuietly(cq, e);
            closeQuietly(mr, e);
            closeQuietly(pd, e);
            arena.close();
            throw e;
        }
    }

    public QueuePair qp() {
        return qp;
    }

    public int rkey() {
        return mr.rkey();
    }

    public int area() {
        return area;
    }

    MemorySegment segment() {
        return segment;
    }

    CompletionWaiter waiter() {
        return waiter;
    }

    /** Offset of the send area in the region (the receive area starts at 0). */
    int sendOffset() {
        return area;
    }

    Sge receiveSge(long offset, int length) {
        return new Sge(mr, offset, length);
    }

    Sge sendSge(long offset, int length) {
        return new Sge(mr, area + offset, length);
    }

    @Override
    public void close() {
        RuntimeException first = null;
        for (AutoCloseable c : new AutoCloseable[]{qp, mr, cq, pd}) {
            try {
                c.close();
            } catch (Exception e) {
                if (first == null) {
                    first = new PerfException("closing " + c + ": " + e.getMessage(), e);
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        arena.close();
        if (first != null) {
            throw first;
        }
    }

    private static void closeQuietly(AutoCloseable c, RuntimeException into) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception e) {
                into.addSuppressed(e);
            }
        }
    }
}

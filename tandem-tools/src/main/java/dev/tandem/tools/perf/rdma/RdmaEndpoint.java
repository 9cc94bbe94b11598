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
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One side's resources for a perf connection: a PD, one registered region of two areas (receive
 * area at 0, send area at {@code area}) and the {@link StatusBlock} after them, one CQ for both
 * queues, one RC queue pair, and the {@link CompletionWaiter} that waits on them.
 */
public final class RdmaEndpoint implements AutoCloseable {
    private final Arena arena;
    private final ProtectionDomain pd;
    private final MemorySegment segment;
    private final MemoryRegion mr;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final int area;
    private final StatusBlock status;
    private final CompletionWaiter waiter;

    private RdmaEndpoint(Arena arena, ProtectionDomain pd, MemorySegment segment, MemoryRegion mr, CompletionQueue cq,
                         QueuePair qp, int area, StatusBlock status, CompletionWaiter waiter) {
        this.arena = arena;
        this.pd = pd;
        this.segment = segment;
        this.mr = mr;
        this.cq = cq;
        this.qp = qp;
        this.area = area;
        this.status = status;
        this.waiter = waiter;
    }

    /**
     * @param area         bytes of each of the two areas (at least 64, a multiple of 8)
     * @param sendDepth    send queue slots the pattern needs (the waiter's probe slot is added here)
     * @param receiveDepth receive queue slots
     * @param patience     how long waits stay patient with a quiet peer
     */
    public static RdmaEndpoint create(RdmaDevice device, int area, int sendDepth, int receiveDepth, WaitMode wait, String side,
                                      Patience patience) {
        if (area < 64 || area % StatusBlock.WORD != 0) {
            throw new IllegalArgumentException("area " + area + " must be at least 64 bytes and a multiple of 8");
        }
        sendDepth += CompletionWaiter.PROBE_SLOTS;
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
            MemorySegment segment = arena.allocate(StatusBlock.offsetIn(area) + StatusBlock.BYTES, 64);
            mr = pd.registerMemory(segment, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
            cq = device.createCompletionQueue(cqDepth);
            QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq).withDepths(sendDepth, receiveDepth));
            StatusBlock status = new StatusBlock(segment, StatusBlock.offsetIn(area));
            return new RdmaEndpoint(arena, pd, segment, mr, cq, qp, area, status,
                    new CompletionWaiter(cq, qp, wait, Math.max(16, Math.min(cqDepth, 256)), status, patience, side));
        } catch (RuntimeException e) {
            closeQuietly(cq, e);
            closeQuietly(mr, e);
            closeQuietly(pd, e);
            arena.close();
            throw e;
        }
    }

    /** The size of each area for messages up to {@code maxSize} bytes: at least 64, a multiple of 8 (the status block's words are aligned). */
    public static int areaFor(int maxSize) {
        return Math.max(64, (maxSize + StatusBlock.WORD - 1) & -StatusBlock.WORD);
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

    StatusBlock status() {
        return status;
    }

    /** The liveness probe: an 8-byte RDMA Read of the peer's progress word into this side's probe landing. */
    WorkRequest probe(int peerRkey, int peerArea) {
        return new WorkRequest.RdmaRead(CompletionWaiter.PROBE_WR_ID, new Sge(mr, status.base() + StatusBlock.PROBE_LANDING, StatusBlock.WORD),
                StatusBlock.offsetIn(peerArea) + StatusBlock.PROGRESS, peerRkey, WrFlags.SIGNALED);
    }

    /** A control Send carrying this side's control-out word. */
    WorkRequest controlSend(long wrId) {
        return new WorkRequest.Send(wrId, new Sge(mr, status.base() + StatusBlock.CONTROL_OUT, StatusBlock.WORD), WrFlags.SIGNALED);
    }

    /** A receive for a control Send, landing in this side's control-in word. */
    ReceiveRequest controlReceive(long wrId) {
        return new ReceiveRequest(wrId, new Sge(mr, status.base() + StatusBlock.CONTROL_IN, StatusBlock.WORD));
    }

    /** A Send of no bytes: the "stop" and "stopped" marks of the two-sided tests (their data is never empty). */
    WorkRequest emptySend(long wrId) {
        return new WorkRequest.Send(wrId, new Sge(mr, area, 0), WrFlags.SIGNALED);
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

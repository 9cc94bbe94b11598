package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The layer's own copies of INLINE payloads. The verbs let the application reuse an INLINE request's
 * buffer as soon as {@code postSend} returns, yet a fail-over may post the request again long after,
 * until the peer is known to hold it: so the payload is copied at post time into a slot of a region
 * of the layer's (one slot per send-queue position, registered on every adapter), and the request the
 * layer logs and posts gathers from the copy. Its slot is free again when the application polled the
 * request's completion, as the send log's is.
 */
final class InlineCopies implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment;
    private final MemoryRegion region;
    private final int slotSize;

    /** Copies for {@code slots} positions of up to {@code maxInline} bytes; none when {@code maxInline} is 0. */
    InlineCopies(InternalMemory memory, int slots, int maxInline) {
        this.slotSize = maxInline;
        if (maxInline == 0) {
            this.segment = MemorySegment.NULL;
            this.region = null;
            return;
        }
        this.segment = arena.allocate((long) slots * maxInline, 8);
        MemoryRegion r;
        try {
            r = memory.register(segment, Access.LOCAL_WRITE);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
        this.region = r;
    }

    /**
     * {@code request} (an INLINE Send or Write of at most the slot size whose gather list {@link PostChecks}
     * passed) with its payload copied into {@code slot}: the same request, gathering from the copy, no
     * longer INLINE.
     */
    WorkRequest copy(WorkRequest request, int slot) {
        List<Sge> sgl = request.sgl();
        long at = (long) slot * slotSize;
        long to = at;
        for (int i = 0; i < sgl.size(); i++) {
            Sge s = sgl.get(i);
            MemorySegment.copy(s.region().segment(), s.offset(), segment, to, s.length());
            to += s.length();
        }
        List<Sge> copy = List.of(new Sge(region, at, (int) (to - at)));
        int flags = request.flags() & ~WrFlags.INLINE;
        return switch (request) {
            case WorkRequest.Send s -> new WorkRequest.Send(s.wrId(), copy, flags);
            case WorkRequest.SendWithInvalidate s -> new WorkRequest.SendWithInvalidate(s.wrId(), copy, s.invalidateStag(), flags);
            case WorkRequest.RdmaWrite w -> new WorkRequest.RdmaWrite(w.wrId(), copy, w.remoteOffset(), w.rkey(), flags);
            default -> request;
        };
    }

    @Override
    public void close() {
        if (region != null) {
            region.close();
        }
        arena.close();
    }
}

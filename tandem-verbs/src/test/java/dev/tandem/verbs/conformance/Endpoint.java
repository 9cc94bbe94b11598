package dev.tandem.verbs.conformance;

import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.RdmaDevice;

import java.lang.foreign.MemorySegment;

/**
 * One side of a connection: its adapter, PD, CQ (send and receive), a registered region and a QP.
 * After {@link ConformanceBase#connect} it also knows the peer's region key and length, learnt
 * from the connection's private data.
 */
public final class Endpoint {
    public final RdmaDevice device;
    public final ProtectionDomain pd;
    public final CompletionQueue cq;
    public final MemoryRegion region;
    public final QueuePair qp;
    int peerRkey = -1;
    long peerLength = -1;

    Endpoint(RdmaDevice device, ProtectionDomain pd, CompletionQueue cq, MemoryRegion region, QueuePair qp) {
        this.device = device;
        this.pd = pd;
        this.cq = cq;
        this.region = region;
        this.qp = qp;
    }

    /** The region's memory. */
    public MemorySegment mem() {
        return region.segment();
    }

    /** The peer region's rkey, as the peer sent it in private data. */
    public int peerRkey() {
        return peerRkey;
    }

    /** The peer region's length, as the peer sent it in private data. */
    public long peerLength() {
        return peerLength;
    }

    @Override
    public String toString() {
        return device.name() + "/qp" + qp.qpNumber();
    }
}

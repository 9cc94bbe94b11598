package dev.tandem.failover.chaos;

import java.util.random.RandomGenerator;

/**
 * How one end of a connection is set up, drawn from the scenario seed: the shapes applications use
 * differ, and a device must hold its promise for each.
 *
 * @param sendDepth      send queue depth (what may be outstanding, unsignalled requests included)
 * @param receiveCredits receive buffers kept for the peer's messages: the peer's credits
 * @param maxInline      the QP's maxInlineData
 * @param signalAll      the QP signals every request
 * @param oneCq          one CQ for sends and receives (else one each)
 * @param reads          RDMA Reads outstanding at most
 * @param window         a type-2 memory window over the landing slots, bound through the connection: the peer's
 *                       named Writes go through it or through the region, at random
 */
record EndShape(int sendDepth, int receiveCredits, int maxInline, boolean signalAll, boolean oneCq, int reads, boolean window) {
    static EndShape draw(RandomGenerator r, boolean windows) {
        int[] inline = {64, 128, 256, 512};
        return new EndShape(12 + r.nextInt(37), 6 + r.nextInt(19), inline[r.nextInt(inline.length)], r.nextInt(6) == 0,
                r.nextBoolean(), 1 + r.nextInt(4), r.nextBoolean() && windows);
    }

    /** Completions the end's CQ must hold at once (both queues when it has one CQ). */
    int sendCqDepth() {
        return sendDepth + 8 + (oneCq ? receiveCredits : 0);
    }

    int receiveCqDepth() {
        return receiveCredits + 8;
    }
}

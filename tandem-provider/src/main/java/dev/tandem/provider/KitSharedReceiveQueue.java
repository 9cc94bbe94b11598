package dev.tandem.provider;

import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueueFullException;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.ResourceInUseException;
import dev.tandem.verbs.SharedReceiveQueue;

/** Receive buffers shared by the QPs of one PD, with the one-shot limit event. */
public final class KitSharedReceiveQueue implements SharedReceiveQueue, TrackedResource {
    private final KitProtectionDomain pd;
    private final int maxWr;
    private final int maxSge;
    private final MpmcRing<ReceiveRequest> ring;
    private volatile int limit;
    private volatile boolean closed;
    /** The QPs created with this SRQ: it cannot be closed under them. */
    private final UseCount users = new UseCount();
    private final SrqCounters counters;

    KitSharedReceiveQueue(KitProtectionDomain pd, int maxWr, int maxSge) {
        Validation.checkSharedReceiveQueue(maxWr, maxSge, pd.core().attributes());
        this.pd = pd;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.ring = new MpmcRing<>(maxWr);
        this.counters = new SrqCounters(pd.core().ras());
    }

    /** Number of this SRQ within its adapter, as its counter labels show it ({@code <adapter> srq <n> ...}). */
    @Override
    public long number() {
        return counters.number;
    }

    @Override
    public ResourceKind kind() {
        return ResourceKind.SRQ;
    }

    /** The QPs created with this SRQ: it cannot be closed under them. */
    public UseCount users() {
        return users;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public int maxWr() {
        return maxWr;
    }

    @Override
    public int maxSge() {
        return maxSge;
    }

    @Override
    public void postReceive(ReceiveRequest request) {
        pd.core().enter();
        try {
            postReceiveInside(request);
        } finally {
            pd.core().leave();
        }
    }

    private void postReceiveInside(ReceiveRequest request) {
        if (closed) {
            throw new ResourceClosedException("shared receive queue is closed");
        }
        Validation.checkReceive(request, pd, maxSge, "shared receive queue", -1);
        if (ring.size() >= maxWr || !ring.offer(request)) {
            throw new QueueFullException("shared receive queue is full (" + maxWr + " buffers posted); wait for receives to complete");
        }
        counters.posted(ring.size());
    }

    /** Takes the next buffer for an arriving Send (engine side), firing the limit event if armed. */
    public ReceiveRequest take() {
        ReceiveRequest r = ring.poll();
        if (r != null) {
            counters.consumed();
        }
        int l = limit;
        if (r != null && l > 0 && ring.size() < l) {
            limit = 0;
            pd.core().raise(AsyncEventType.SRQ_LIMIT_REACHED, this, "posted buffers dropped below the armed limit of " + l);
        }
        return r;
    }

    @Override
    public int posted() {
        return ring.size();
    }

    @Override
    public void armLimit(int newLimit) {
        pd.core().enter();
        try {
            armLimitInside(newLimit);
        } finally {
            pd.core().leave();
        }
    }

    private void armLimitInside(int newLimit) {
        Validation.checkSrqLimit(newLimit, maxWr);
        limit = newLimit;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        int n = users.close();
        if (n > 0) {
            throw new dev.tandem.verbs.ResourceInUseException("shared receive queue " + number() + " of " + pd.core().name() + " is used by " + n
                    + " queue pair(s); close them before the SRQ (it stays open)");
        }
        closed = true;
        counters.close(); // before its slot goes back: an SRQ that closed makes room for the next in full
        pd.forget(this);
    }

    @Override
    public String toString() {
        return "SharedReceiveQueue[maxWr=" + maxWr + ", posted=" + ring.size() + "]";
    }
}

package dev.tandem.failover;

import dev.tandem.provider.ResourceLimits;
import dev.tandem.provider.Validation;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.SharedReceiveQueue;

/**
 * A shared receive queue on every adapter of its session. Receives go to the one on the session's
 * primary adapter (a buffer may be taken once only), each behind its fail-over header slot; the QPs
 * that use it receive there, and their peers send over the path that ends there.
 *
 * <p>A buffer must never be posted on two adapters at once: then two messages could land in it. So the
 * receives leave an adapter that still works only when no other connection receives through it there,
 * and an adapter they left alive keeps them posted (verbs cannot take a receive back from an SRQ): it is
 * <em>stale</em> until its SRQ is made anew, which happens when its link comes back (its paths failed
 * with the link, so their QPs can go with the SRQ) or its reset; receives never move to a stale adapter.
 */
final class FailoverSharedReceiveQueue implements SharedReceiveQueue {
    private final FailoverProtectionDomain pd;
    private final SharedReceiveQueue[] under;
    private final int maxWr;
    private final int maxSge;
    private final ReceiveLog log;
    private volatile boolean closed;
    /** The adapter where receives are posted: the session's primary, until a fail-over moves them. */
    private volatile int adapter;
    /** Per adapter: its SRQ may still hold receives posted before they moved off it. */
    private final boolean[] stale;
    /** The connections that take their receives from it. */
    private final java.util.Set<FailoverQueuePair> users = java.util.concurrent.ConcurrentHashMap.newKeySet();

    FailoverSharedReceiveQueue(FailoverProtectionDomain pd, int maxWr, int maxSge) {
        FailoverDevice device = pd.failoverDevice();
        Validation.checkSharedReceiveQueue(maxWr, maxSge, device.attributes());
        this.pd = pd;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.under = new SharedReceiveQueue[device.adapterCount()];
        this.stale = new boolean[device.adapterCount()];
        this.adapter = pd.primary();
        device.limits.take(ResourceLimits.Kind.SHARED_RECEIVE_QUEUE);
        ReceiveLog l = null;
        try {
            for (int k = 0; k < under.length; k++) {
                if (pd.under(k) != null && device.usable(k)) {
                    under[k] = pd.under(k).createSharedReceiveQueue(maxWr, maxSge + 1);
                    device.own(under[k], this);
                }
            }
            l = new ReceiveLog(pd, 2 * maxWr);
        } catch (RuntimeException e) {
            closeUnder();
            device.limits.giveBack(ResourceLimits.Kind.SHARED_RECEIVE_QUEUE);
            throw e;
        }
        this.log = l;
    }

    /** Adapter {@code k} failed: the SRQ there goes (receives posted on it are not moved: see the note on SRQs). */
    synchronized void release(int k) {
        SharedReceiveQueue q = under[k];
        under[k] = null;
        stale[k] = false; // what was posted there goes with it
        if (q != null) {
            pd.failoverDevice().disown(q);
            Quietly.close(q);
        }
    }

    /** Adapter {@code k} is back: the SRQ is created there again. */
    synchronized void rebuild(int k) {
        if (closed || under[k] != null || pd.under(k) == null) {
            return;
        }
        under[k] = pd.under(k).createSharedReceiveQueue(maxWr, maxSge + 1);
        pd.failoverDevice().own(under[k], this);
    }

    /** This SRQ on adapter {@code k}, or null. */
    SharedReceiveQueue under(int k) {
        return under[k];
    }

    /** The adapter where receives are posted. */
    int adapter() {
        return adapter;
    }

    /** {@code qp} takes its receives from it. */
    void attach(FailoverQueuePair qp) {
        users.add(qp);
    }

    void detach(FailoverQueuePair qp) {
        users.remove(qp);
    }

    /**
     * Moves the receives not taken yet to adapter {@code k} for {@code mover}'s fail-over (the first of
     * its QPs to fail over moves them, after rebuilding its own completions from their headers; the
     * others find them there). Null when they are on adapter {@code k} now; else why they cannot go
     * there, and they stay where they are.
     */
    synchronized String moveTo(int k, FailoverQueuePair mover) {
        if (adapter == k) {
            return null;
        }
        if (under[k] == null) {
            return "adapter " + k + " has no shared receive queue now (it failed)";
        }
        if (stale[k]) {
            return "adapter " + k + "'s shared receive queue still holds receives posted before they moved off it";
        }
        int from = adapter;
        boolean fromWorks = under[from] != null && pd.failoverDevice().usable(from);
        if (fromWorks) {
            for (FailoverQueuePair u : users) {
                if (u != mover && u.receiveAdapter() == from && u.connected() && !u.migrating()) {
                    return "QP " + u.qpNumber() + " still receives through it on adapter " + from
                            + ", which works: its buffers would be posted on two adapters";
                }
            }
        }
        for (int slot : log.inOrder()) {
            try {
                under[k].postReceive(log.onAdapter(slot));
            } catch (RuntimeException e) {
                return "adapter " + k + " refused a receive: " + e.getMessage();
            }
        }
        stale[from] = under[from] != null;
        adapter = k;
        return null;
    }

    /**
     * The link of adapter {@code k} came back: if receives were left posted there, its SRQ is made anew.
     * The QPs of its connections there go first (their paths failed with the link; the healer sets them
     * up again on fresh QPs that take their receives from the new SRQ).
     */
    synchronized void refresh(int k) {
        if (!stale[k] || adapter == k || under[k] == null || closed) {
            return;
        }
        for (FailoverQueuePair u : users) {
            u.setup().release(k);
        }
        release(k);
        rebuild(k);
        for (FailoverQueuePair u : users) {
            u.setup().rebuild(k);
        }
    }

    ReceiveLog log() {
        return log;
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
        if (closed) {
            throw new ResourceClosedException("shared receive queue is closed");
        }
        if (request == null) {
            throw new InvalidArgumentException("postReceive: request is null");
        }
        if (request.sgl().size() > maxSge) {
            throw new InvalidArgumentException("SRQ receive wrId " + request.wrId() + ": " + request.sgl().size()
                    + " SGEs exceed the queue's maxSge " + maxSge);
        }
        ReceiveRequest wire = log.claim(request, "shared receive queue");
        try {
            under[adapter()].postReceive(wire);
        } catch (RuntimeException e) {
            log.unclaim((int) wire.wrId());
            throw e;
        }
    }

    @Override
    public int posted() {
        return under[adapter()].posted();
    }

    @Override
    public void armLimit(int limit) {
        under[adapter()].armLimit(limit);
    }

    /**
     * Closes the queue.
     *
     * @throws dev.tandem.verbs.ResourceInUseException while QPs created with it are open (it stays open)
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        under[adapter()].close(); // refuses while QPs use it, before anything else changed
        closed = true;
        closeUnder();
        log.close();
        pd.failoverDevice().limits.giveBack(ResourceLimits.Kind.SHARED_RECEIVE_QUEUE);
        pd.forget(this);
    }

    private void closeUnder() {
        for (int k = 0; k < under.length; k++) {
            release(k);
        }
    }

    @Override
    public String toString() {
        return "SharedReceiveQueue[maxWr=" + maxWr + ", on " + pd.failoverDevice().name() + " adapter " + adapter() + "]";
    }
}

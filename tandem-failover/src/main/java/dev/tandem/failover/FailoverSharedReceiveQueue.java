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

    FailoverSharedReceiveQueue(FailoverProtectionDomain pd, int maxWr, int maxSge) {
        FailoverDevice device = pd.failoverDevice();
        Validation.checkSharedReceiveQueue(maxWr, maxSge, device.attributes());
        this.pd = pd;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.under = new SharedReceiveQueue[device.adapterCount()];
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

    /**
     * Moves the receives not taken yet to adapter {@code k} (its adapter failed; the first of its QPs to
     * fail over moves them, after rebuilding its own completions from their headers); false when there
     * is no SRQ there. The QPs that use it then receive on adapter {@code k}.
     */
    synchronized boolean moveTo(int k) {
        if (adapter == k) {
            return true;
        }
        if (under[k] == null) {
            return false;
        }
        for (int slot : log.inOrder()) {
            try {
                under[k].postReceive(log.onAdapter(slot));
            } catch (RuntimeException e) {
                return false;
            }
        }
        adapter = k;
        return true;
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

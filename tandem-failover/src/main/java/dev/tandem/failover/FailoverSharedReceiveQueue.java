package dev.tandem.failover;

import dev.tandem.provider.ResourceLimits;
import dev.tandem.provider.Validation;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.ResourceInUseException;
import dev.tandem.verbs.SharedReceiveQueue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A shared receive queue on every adapter of its session. Receives are posted on one adapter's
 * ({@link #adapter()}: a buffer may be taken once only), each behind its fail-over header slot; the QPs
 * that use it receive there, on a path that ends at that adapter.
 *
 * <p>When a connection's receive path fails, its receives stay where they are if another of its paths
 * ends at the same adapter (a cross path): only its completions are settled ({@link #moveFor}). Else the
 * whole queue moves, for all its connections at once, as the seed document says (the receives move
 * after the last connection of the SRQ moved): every path of every connection that ends at the old
 * adapter fails, each connection's completions are rebuilt from the headers in the buffers (its own
 * session's, up to its peer's arrival mark), and only then are the buffers posted on the new adapter;
 * each connection then tells its peer where it receives now. A buffer is never posted on two adapters
 * at once: the old adapter's SRQ, which may still hold them (verbs cannot take a receive back), is made
 * anew at once when its adapter still works, before any path there is set up again.
 */
final class FailoverSharedReceiveQueue implements SharedReceiveQueue {
    private final FailoverProtectionDomain pd;
    private final AtomicReferenceArray<SharedReceiveQueue> under;
    private final int maxWr;
    private final int maxSge;
    private final ReceiveLog log;
    private volatile boolean closed;
    /** The adapter where receives are posted: the session's primary, until a move takes them elsewhere. */
    private volatile int adapter;
    /** The receives are being moved: posts are only logged until they are posted on the new adapter. */
    private boolean moving;
    /** The limit the application armed and no event has answered yet (0: none): a move arms it again where the receives go. */
    private int armed;
    /** The connections that take their receives from it. */
    private final Set<FailoverQueuePair> users = ConcurrentHashMap.newKeySet();

    FailoverSharedReceiveQueue(FailoverProtectionDomain pd, int maxWr, int maxSge) {
        FailoverDevice device = pd.failoverDevice();
        Validation.checkSharedReceiveQueue(maxWr, maxSge, device.attributes());
        this.pd = pd;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.under = new AtomicReferenceArray<>(device.adapterCount());
        this.adapter = pd.primary();
        device.limits.take(ResourceLimits.Kind.SHARED_RECEIVE_QUEUE);
        ReceiveLog l = null;
        try {
            for (int k = 0; k < under.length(); k++) {
                if (pd.under(k) != null && device.usable(k)) {
                    SharedReceiveQueue s = pd.under(k).createSharedReceiveQueue(maxWr, maxSge + 1);
                    under.set(k, s);
                    device.own(s, this);
                }
            }
            l = new ReceiveLog(pd::registerInternal, maxWr);
        } catch (RuntimeException e) {
            closeUnder();
            device.limits.giveBack(ResourceLimits.Kind.SHARED_RECEIVE_QUEUE);
            throw e;
        }
        this.log = l;
    }

    /** Adapter {@code k} failed: the SRQ there goes; receives posted there (with no connection to move them) go to another adapter. */
    void release(int k) {
        SharedReceiveQueue q = under.getAndSet(k, null);
        if (q != null) {
            pd.failoverDevice().disown(q);
            Quietly.close(q);
        }
        synchronized (this) {
            if (adapter == k && !closed && !moving) {
                for (int y = 0; y < under.length(); y++) {
                    if (under.get(y) != null && pd.failoverDevice().usable(y)) {
                        log.nextEpoch();
                        adapter = y;
                        postUnposted();
                        rearm();
                        break;
                    }
                }
            }
        }
    }

    /** Adapter {@code k} is back: the SRQ is created there again. */
    synchronized void rebuild(int k) {
        if (closed || under.get(k) != null || pd.under(k) == null) {
            return;
        }
        SharedReceiveQueue s = pd.under(k).createSharedReceiveQueue(maxWr, maxSge + 1);
        under.set(k, s);
        pd.failoverDevice().own(s, this);
    }

    /** This SRQ on adapter {@code k}, or null. */
    SharedReceiveQueue under(int k) {
        return under.get(k);
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

    ReceiveLog log() {
        return log;
    }

    /**
     * {@code mover}'s receive path failed ({@code cause}); the monitor thread runs this. Its receives stay
     * on this SRQ's adapter when one of its paths ends there still; else the whole queue moves to an
     * adapter where it has a live path, with every connection of the queue.
     */
    void moveFor(FailoverQueuePair mover, String cause) {
        int x = adapter;
        Path here = livePathOn(mover, x);
        if (here != null && pd.failoverDevice().usable(x)) {
            int rebuilt = settle(mover);
            mover.lock.lock();
            try {
                if (!mover.connected()) {
                    return;
                }
                here = livePathOn(mover, x);
                if (here == null) {
                    mover.ends().noPathLeft("no path is left to receive on at adapter " + x + ": " + cause);
                    return;
                }
                mover.paths.receive = here.id;
            } finally {
                mover.lock.unlock();
            }
            mover.moves().receivesMovedTo(here, rebuilt, 0);
            return;
        }
        int y = chooseAdapter(mover, x);
        if (y < 0) {
            mover.lock.lock();
            try {
                mover.ends().noPathLeft("no path is left to an adapter that can take the shared receive queue's receives: " + cause);
            } finally {
                mover.lock.unlock();
            }
            return;
        }
        moveAll(x, y, "its shared receive queue moves from adapter " + x + " to adapter " + y + " (" + cause + ")");
    }

    /** The path of {@code qp} that is up and ends at adapter {@code k} (its receive path if it is one), or null. */
    private static Path livePathOn(FailoverQueuePair qp, int k) {
        Path best = null;
        for (Path p : qp.paths.all()) {
            if (p.local == k && p.runs()) {
                if (best == null || p.id == qp.paths.send) {
                    best = p;
                }
            }
        }
        return best;
    }

    /** An adapter other than {@code x} that works, has this SRQ, and where {@code mover} has a live path; -1 when none. */
    private int chooseAdapter(FailoverQueuePair mover, int x) {
        for (int y = 0; y < under.length(); y++) {
            if (y != x && under.get(y) != null && pd.failoverDevice().usable(y) && livePathOn(mover, y) != null) {
                return y;
            }
        }
        return -1;
    }

    /** Rebuilds {@code qp}'s completions from the headers in the buffers, after what its adapters still report. */
    private static int settle(FailoverQueuePair qp) {
        int[] n = new int[1];
        qp.receiveCq.locked(() -> {
            qp.receiveCq.drain();
            if (qp.peer != null) {
                n[0] = qp.receiving.rebuild(qp.mail().bound(), qp.receiveCq);
            }
        });
        return n[0];
    }

    /** Moves every receive from adapter {@code x} to adapter {@code y}, with every connection of the queue. */
    private void moveAll(int x, int y, String cause) {
        synchronized (this) {
            if (moving) {
                return;
            }
            moving = true;
        }
        List<FailoverQueuePair> connected = new ArrayList<>();
        for (FailoverQueuePair u : users) {
            if (u.connected()) {
                connected.add(u);
                u.lock.lock();
                try {
                    u.moves().receivesMoving(true);
                } finally {
                    u.lock.unlock();
                }
            }
        }
        // no path ends at x any more: nothing more is placed in a buffer posted there
        for (FailoverQueuePair u : connected) {
            for (Path p : u.paths.on(x)) {
                u.moves().failover(p, null, cause);
            }
        }
        int[] rebuilt = new int[connected.size()];
        for (int i = 0; i < connected.size(); i++) {
            rebuilt[i] = settle(connected.get(i));
        }
        int reposted;
        synchronized (this) {
            log.nextEpoch();
            adapter = y;
            moving = false;
            reposted = postUnposted();
            rearm();
        }
        refresh(x);
        for (int i = 0; i < connected.size(); i++) {
            FailoverQueuePair u = connected.get(i);
            Path to;
            u.lock.lock();
            try {
                if (!u.connected()) {
                    continue;
                }
                to = livePathOn(u, y);
                if (to == null) {
                    u.ends().noPathLeft("no path is left to adapter " + y + ", where its shared receive queue's receives went");
                    continue;
                }
                u.paths.receive = to.id;
            } finally {
                u.lock.unlock();
            }
            u.moves().receivesMovedTo(to, rebuilt[i], reposted);
        }
    }

    /** Posts every logged receive not posted in this epoch on the adapter's SRQ; returns how many. Lock held. */
    private int postUnposted() {
        SharedReceiveQueue s = under.get(adapter);
        if (s == null) {
            return 0;
        }
        int n = 0;
        for (int slot : log.inOrder()) {
            if (log.unposted(slot)) {
                try {
                    s.postReceive(log.onAdapter(slot));
                    n++;
                } catch (RuntimeException e) {
                    return n; // the adapter failed as well: its failure moves the receives again
                }
            }
        }
        return n;
    }

    /**
     * The receives were posted on another adapter: the limit the application armed is armed there, or, when
     * fewer receives than it are left already, its event is raised now (the adapter's own would come only at
     * the next arrival). Lock held.
     */
    private void rearm() {
        int limit = armed;
        SharedReceiveQueue s = under.get(adapter);
        if (limit == 0 || s == null) {
            return;
        }
        int posted = log.pending();
        if (posted < limit) {
            armed = 0;
            pd.failoverDevice().raise(new AsyncEvent(AsyncEventType.SRQ_LIMIT_REACHED, this,
                    "posted buffers dropped below the armed limit of " + limit + " (" + posted + " left after a move)"));
            return;
        }
        try {
            s.armLimit(limit);
        } catch (RuntimeException e) {
            // the adapter is failing as well: its move arms the limit again
        }
    }

    /**
     * An adapter's SRQ under this one reported its armed limit reached: whether the application hears of it (once per
     * {@link #armLimit}; a stale adapter's report after the limit was answered is dropped).
     */
    synchronized boolean limitReached() {
        if (armed == 0) {
            return false;
        }
        armed = 0;
        return true;
    }

    /**
     * The receives left adapter {@code x} while it works (or while only its link is down): its SRQ still
     * holds them, so it is made anew, after the QPs that use it there (their paths failed; they are set up
     * again, on the new SRQ, by the healer). While it is being made, no path there can be set up.
     */
    private void refresh(int x) {
        SharedReceiveQueue old = under.getAndSet(x, null);
        if (old == null) {
            return;
        }
        for (FailoverQueuePair u : users) {
            u.setup().release(x);
        }
        pd.failoverDevice().disown(old);
        Quietly.close(old);
        synchronized (this) {
            if (closed || pd.under(x) == null) {
                return;
            }
            try {
                SharedReceiveQueue s = pd.under(x).createSharedReceiveQueue(maxWr, maxSge + 1);
                under.set(x, s);
                pd.failoverDevice().own(s, this);
            } catch (RuntimeException e) {
                System.getLogger("dev.tandem.failover").log(System.Logger.Level.WARNING, "the shared receive queue cannot be made again on adapter "
                        + x + " of " + pd.failoverDevice().name() + ": " + e.getMessage());
            }
        }
    }

    /** A receive whose buffer got a duplicate (or another connection's message) goes back to the queue. */
    synchronized void repost(ReceiveRequest r) {
        if (closed) {
            return;
        }
        int slot = log.claim(r, "shared receive queue", Integer.MAX_VALUE);
        SharedReceiveQueue s = under.get(adapter);
        if (!moving && s != null) {
            try {
                s.postReceive(log.onAdapter(slot));
            } catch (RuntimeException e) {
                // the adapter is failing: the move posts it
            }
        }
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
        PostChecks.receive(request, pd, maxSge, "shared receive queue", -1);
        synchronized (this) {
            int slot = log.claim(request, "shared receive queue", maxWr);
            SharedReceiveQueue s = under.get(adapter);
            if (moving || s == null) {
                return; // logged: the move posts it where the receives go
            }
            try {
                s.postReceive(log.onAdapter(slot));
            } catch (RuntimeException e) {
                if (pd.failoverDevice().usable(adapter)) {
                    log.unclaim(slot);
                    throw e;
                }
                // the adapter is failing: its move posts it
            }
        }
    }

    @Override
    public int posted() {
        return log.pending();
    }

    /** Arms the limit event (one shot), here and, after a move, on the adapter the receives went to. */
    @Override
    public void armLimit(int limit) {
        if (closed) {
            throw new ResourceClosedException("shared receive queue is closed");
        }
        Validation.checkSrqLimit(limit, maxWr);
        synchronized (this) {
            armed = limit;
            SharedReceiveQueue s = under.get(adapter);
            if (!moving && s != null) {
                try {
                    s.armLimit(limit);
                } catch (RuntimeException e) {
                    // the adapter is failing: its move arms the limit where the receives go
                }
            }
        }
    }

    /**
     * Closes the queue.
     *
     * @throws ResourceInUseException while QPs created with it are open (it stays open)
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (!users.isEmpty()) {
                throw new ResourceInUseException("shared receive queue on " + pd.failoverDevice().name() + " is used by " + users.size()
                        + " open queue pairs; close them first (it stays open)");
            }
            closed = true;
        }
        closeUnder();
        log.close();
        pd.failoverDevice().limits.giveBack(ResourceLimits.Kind.SHARED_RECEIVE_QUEUE);
        pd.forget(this);
    }

    private void closeUnder() {
        for (int k = 0; k < under.length(); k++) {
            SharedReceiveQueue q = under.getAndSet(k, null);
            if (q != null) {
                pd.failoverDevice().disown(q);
                Quietly.close(q);
            }
        }
    }

    @Override
    public String toString() {
        return "SharedReceiveQueue[maxWr=" + maxWr + ", on " + pd.failoverDevice().name() + " adapter " + adapter() + "]";
    }
}

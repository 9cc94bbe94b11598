package dev.tandem.iwarp;

import dev.tandem.provider.KitProtectionDomain;
import dev.tandem.provider.KitQueuePair;
import dev.tandem.provider.LiveResource;
import dev.tandem.provider.ThreadingMode;
import dev.tandem.provider.Transport;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.QueuePairConfig;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One iWARP adapter's engine side, as the kit's core sees it through {@link Transport}: its live
 * connections, the duty cycle over them (receive, transmit, tear down) that the engine thread and
 * polling application threads take turns on under one progress lock, who is polling, and the
 * {@link EngineAgent} whose thread serves the adapter.
 */
final class IwTransport implements Transport {
    /** How long after the last application poll the engine keeps leaving an adapter to the pollers. */
    private static final long POLLER_GRACE_NANOS = 10_000_000;
    /** How long a connection reset waits for a running duty cycle to end before it goes on without holding progress. */
    private static final long HOLD_NANOS = 1_000_000_000;
    private static final VarHandle POLLS;

    static {
        try {
            POLLS = MethodHandles.lookup().findVarHandle(IwTransport.class, "polls", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final IwarpDevice device;
    private final IwarpConfig config;
    private final AtomicBoolean progressLock = new AtomicBoolean();
    private volatile EngineAgent agent;
    private volatile IwQueuePair[] active = new IwQueuePair[0];
    /** Application polls so far (opaque increments; any change means a poller is active). */
    private long polls;
    /** Engine side: the poll count last seen and when it last changed (System.nanoTime). */
    private long pollsSeen;
    private long pollsChangedAt = System.nanoTime() - POLLER_GRACE_NANOS;
    private volatile boolean pollersActive;
    /** The adapter failed: no duty cycle runs until the reset restarts the transport. */
    private volatile boolean frozen;
    private volatile boolean pollerLeft;

    IwTransport(IwarpDevice device, IwarpConfig config) {
        this.device = device;
        this.config = config;
    }

    /** Starts serving the adapter: on its own engine thread, or on the process's shared one. */
    void start() {
        agent = config.threading() == ThreadingMode.DEDICATED ? EngineAgent.dedicated(this) : EngineAgent.shared(this);
    }

    IwarpDevice device() {
        return device;
    }

    IwarpConfig config() {
        return config;
    }

    // ---------------------------------------------------------------- what the core asks

    @Override
    public KitQueuePair createQueuePair(KitProtectionDomain pd, QueuePairConfig qpConfig, int qpNumber) {
        return new IwQueuePair(device, pd, qpConfig, qpNumber);
    }

    @Override
    public boolean progressOnPoll() {
        return config.progressOnPoll();
    }

    /** An application thread polled a CQ of this adapter; it drives progress itself (see {@link Transport#notePoll()}). */
    @Override
    public void notePoll() {
        POLLS.setOpaque(this, (long) POLLS.getOpaque(this) + 1);
    }

    /**
     * One duty cycle over every live connection: receive, transmit, and tear down streams that
     * ended. Exclusive: the engine thread and polling application threads take turns.
     */
    @Override
    public int progress() {
        return Math.max(0, tryProgress());
    }

    /** A thread stops polling to block: the engine takes the adapter over at once. */
    @Override
    public void pollerLeaving() {
        pollerLeft = true;
        pollersActive = false;
        agent.wakeUnlessWaitingOnSockets();
    }

    /**
     * Takes the progress lock (no duty cycle runs while it is held), waiting up to {@code nanos};
     * false when it stayed busy. Pair a true result with {@link #releaseProgress()}.
     */
    @Override
    public boolean holdProgress(long nanos) {
        long deadline = System.nanoTime() + nanos;
        while (!progressLock.compareAndSet(false, true)) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
    }

    @Override
    public void releaseProgress() {
        progressLock.set(false);
    }

    @Override
    public void adapterFailed(String cause, List<LiveResource> live) {
        for (LiveResource r : live) {
            if (r.resource() instanceof IwListener l) {
                // a failed adapter takes no connection: its listeners stop and reset their handshakes
                l.adapterFailed();
            } else if (r.resource() instanceof IwQueuePair qp) {
                qp.resetConnect();
                // a failed adapter does not close its connections in order: its peers see them reset
                // (through a downed link nothing goes out: the close waits for the link, as any close does)
                Connection c = qp.connection();
                if (c != null && !device.link().isDown()) {
                    c.abort();
                }
                qp.fail(Failure.lost(AsyncEventType.QP_FATAL, "adapter " + device.name() + " failed: " + cause));
            }
        }
        // connects waiting for a downed link give up now
        device.link().wakeWaiters();
        // the aborted sockets reset their peers only once deregistered: now, not at the engine's next selection
        agent.deregisterClosed();
    }

    /**
     * The adapter failed: no duty cycle runs from now on; waits (bounded) for one that is running to end,
     * so that nothing is placed, completed or sent after this returns.
     */
    @Override
    public void freeze() {
        frozen = true;
        awaitCycle();
    }

    /** Waits (bounded) until a duty cycle that is running now has ended. */
    void awaitCycle() {
        if (holdProgress(HOLD_NANOS)) {
            releaseProgress();
        }
    }

    /** Starts a new engine thread if the one serving the adapter died; a frozen adapter (it failed and was reset) runs again. */
    @Override
    public void restart() {
        frozen = false;
        if (!agent.isAlive()) {
            agent.remove(this);
            start();
        }
    }

    @Override
    public void stop(boolean quiesced) {
        for (IwQueuePair qp : active) {
            qp.close();
        }
        // a downed link holds back the closes it parked: the adapter is gone, so they go now
        device.link().release();
        agent.remove(this);
        device.stopped(quiesced);
    }

    // ---------------------------------------------------------------- connections and the duty cycle

    /** A QP's connection is established: the duty cycle serves it from now on. */
    synchronized void activate(IwQueuePair qp) {
        IwQueuePair[] a = Arrays.copyOf(active, active.length + 1);
        a[a.length - 1] = qp;
        active = a;
        agent.register(qp.connection());
    }

    synchronized void deactivate(IwQueuePair qp) {
        IwQueuePair[] a = active;
        int n = 0;
        IwQueuePair[] b = new IwQueuePair[a.length];
        for (IwQueuePair q : a) {
            if (q != qp) {
                b[n++] = q;
            }
        }
        if (n != a.length) {
            active = Arrays.copyOf(b, n);
        }
    }

    /**
     * Aborts every connection of the adapter with an RST (a reset from the network), then moves its QP
     * to ERROR as a lost connection does; closes parked on a downed link are aborted too. Holds progress
     * meanwhile, so that no duty cycle is inside a receive when its QP fails. Returns how many were reset.
     */
    int resetConnections(String why) {
        boolean held = holdProgress(HOLD_NANOS);
        int n = 0;
        try {
            for (IwQueuePair qp : active) {
                Connection c = qp.connection();
                if (c != null && c.abort()) {
                    qp.connectionLost(new IOException(why));
                    n++;
                }
            }
            n += device.link().abortParked();
        } finally {
            if (held) {
                releaseProgress();
            }
        }
        // the aborted sockets reset their peers only once deregistered: now, not at the engine's next selection
        agent.deregisterClosed();
        return n;
    }

    /**
     * The adapter's link went down: the engine stops watching its sockets, and the call waits for a duty
     * cycle that started before (it may still be reading or writing) to end, so that none moves a byte
     * after linkDown returned.
     */
    void linkWentDown() {
        agent.linkChanged();
        awaitCycle();
    }

    /** The adapter's link came up: the engine watches its sockets again and runs a cycle, which resumes the traffic. */
    void linkCameUp() {
        agent.linkChanged();
    }

    /** The connections the duty cycle serves (dumps list them). */
    IwQueuePair[] active() {
        return active;
    }

    /** One duty cycle, or -1 when another thread is running one right now. */
    int tryProgress() {
        if (!progressLock.compareAndSet(false, true)) {
            return -1;
        }
        int work = 0;
        RuntimeException fault = null;
        try {
            if (frozen) {
                return 0; // a failed adapter moves nothing
            }
            for (IwQueuePair qp : active) {
                Connection c = qp.connection();
                if (c == null) {
                    continue;
                }
                work += c.rx.poll();
                work += c.tx.poll();
                IOException refused = c.writeFailure();
                if (refused != null && !qp.inError()) {
                    work += c.rx.afterWriteFailure(refused);
                }
                if (qp.inError() && c.tearDownIfDue()) {
                    // a QP the transmitter failed in this cycle may still hold a half-filled Receive
                    // that only the receiver can complete: the receiver's poll of a failed QP flushes it
                    c.rx.poll();
                    deactivate(qp);
                    work++;
                }
            }
        } catch (RuntimeException e) {
            fault = e;
            work++;
        } finally {
            progressLock.set(false);
        }
        if (fault != null) {
            // outside the lock: the fatal error's snapshot takes it to read consistent state
            engineFault(fault);
        }
        return work;
    }

    /** True when some connection has bytes it could not write yet (the engine must not block on reads only). */
    boolean hasPendingOutput() {
        for (IwQueuePair qp : active) {
            Connection c = qp.connection();
            if (c != null && c.tx.hasPendingOutput()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Engine side, once per cycle: are application threads polling (a poll within the grace time)? While
     * they are, the engine leaves the adapter to them: they drive progress from their polls.
     */
    boolean refreshPollers(long now) {
        long p = (long) POLLS.getOpaque(this);
        if (pollerLeft) {
            pollerLeft = false;
            pollsSeen = p;
            pollsChangedAt = now - POLLER_GRACE_NANOS;
        } else if (p != pollsSeen) {
            pollsSeen = p;
            pollsChangedAt = now;
        }
        boolean polling = now - pollsChangedAt < POLLER_GRACE_NANOS;
        pollersActive = polling;
        return polling;
    }

    /** True while application threads drive progress themselves (as last seen by the engine). */
    boolean pollersActive() {
        return pollersActive;
    }

    /** Ends a wait of the engine thread serving this adapter. */
    void wake() {
        agent.wake();
    }

    // ---------------------------------------------------------------- the engine thread

    /** Name of the engine thread serving this adapter. */
    String threadName() {
        return agent.threadName();
    }

    /** True while the engine thread serving this adapter runs. */
    boolean isRunning() {
        return agent.isAlive();
    }

    /** Kills the engine thread serving this adapter with {@code e} (fault injection for tests). */
    void injectCrash(Error e) {
        agent.injectCrash(e);
    }

    /**
     * A duty cycle threw: an internal invariant broke (a bug). The engine cannot trust this adapter's
     * state any more, so the adapter fails (fatal error); the engine thread goes on with the others.
     */
    void engineFault(Throwable t) {
        device.logger().log(System.Logger.Level.ERROR, device.name() + ": engine duty cycle failed", t);
        device.core().fatal("engine invariant broken: " + t);
    }

    /** The engine thread serving this adapter died. */
    void engineDied(String thread, Throwable t) {
        device.core().fatal("engine thread " + thread + " died: " + t);
    }

    /**
     * Checks the markers of the off-heap structures this adapter writes (every section of the process's
     * RAS file); a bad one is a fatal adapter error. The engine thread calls it every 100 ms.
     */
    void checkStructures() {
        device.core().checkStructures();
    }

    @Override
    public String toString() {
        return "IwTransport[" + device.name() + "]";
    }
}

package dev.tandem.iwarp;

import dev.tandem.iwarp.ras.EngineCounters;
import dev.tandem.provider.IdleStrategy;
import dev.tandem.provider.IdleStrategyKind;

import java.io.IOException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * One named engine thread running the duty cycles ({@link IwTransport}) of the adapters assigned to it (one in DEDICATED
 * mode, all of the process's SHARED adapters otherwise), counting them in {@link EngineCounters}.
 * When idle it waits on a {@link Selector}
 * over its connections' sockets, so arriving data wakes it at once; the sockets of an adapter whose link
 * is down are not watched (their data must wait, and would end every wait). Its owner stops it: the adapter
 * in DEDICATED mode, the last adapter to leave in SHARED mode.
 */
final class EngineAgent implements IdleStrategy.Waiter {
    private static final Object SHARED_LOCK = new Object();
    private static final Consumer<SelectionKey> IGNORE = key -> { };
    private static EngineAgent shared;

    private final String name;
    private final IdleStrategy idle;
    private final CopyOnWriteArrayList<IwTransport> adapters = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<Connection> registrations = new ConcurrentLinkedQueue<>();
    private final Selector selector;
    private final Thread thread;
    private final EngineCounters counters;
    private volatile boolean running = true;
    private volatile boolean waiting;
    /** How often the engine checks the markers of the structures it writes (the RAS file's sections). */
    private static final long STRUCTURE_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private long structuresCheckedAt = System.nanoTime();
    /** Some adapter's link changed: the engine sets its sockets' interest anew (read while up, nothing while down). */
    private volatile boolean interestStale;
    /** A fault injected by a test: the engine thread throws it at the top of its next cycle and dies. */
    private volatile Error crash;
    private volatile IwTransport[] snapshot = new IwTransport[0];
    /** This cycle found an adapter being worked by another thread (a poller): waiting on socket readiness would spin. */
    private boolean othersWorking;

    private EngineAgent(String name, IdleStrategyKind idleKind, long slowCycleNanos) {
        this.name = name;
        this.idle = IdleStrategy.of(idleKind);
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new IllegalStateException("cannot open a selector for engine " + name + ": " + e.getMessage(), e);
        }
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this::run);
        this.counters = new EngineCounters(name, slowCycleNanos);
    }

    static EngineAgent dedicated(IwTransport adapter) {
        EngineAgent a = new EngineAgent("tandem-engine-" + adapter.device().name(), adapter.config().idle(), adapter.config().slowCycleNanos());
        a.add(adapter);
        a.thread.start();
        return a;
    }

    /** The process's shared agent, started on first use; the idle strategy of its first user wins. */
    static EngineAgent shared(IwTransport adapter) {
        synchronized (SHARED_LOCK) {
            if (shared == null || !shared.isAlive()) {
                shared = new EngineAgent("tandem-engine-shared", adapter.config().idle(), adapter.config().slowCycleNanos());
                shared.add(adapter);
                shared.thread.start();
            } else {
                shared.add(adapter);
            }
            return shared;
        }
    }

    private void add(IwTransport d) {
        adapters.add(d);
        snapshot = adapters.toArray(new IwTransport[0]);
    }

    /** Removes an adapter; stops the thread when it served the last one. */
    void remove(IwTransport d) {
        boolean stop;
        synchronized (SHARED_LOCK) {
            adapters.remove(d);
            snapshot = adapters.toArray(new IwTransport[0]);
            stop = adapters.isEmpty();
            if (stop && shared == this) {
                shared = null;
            }
        }
        if (stop) {
            running = false;
            wake();
            if (Thread.currentThread() != thread) {
                try {
                    thread.join(TimeUnit.SECONDS.toMillis(5));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** Watches a new connection's socket for readiness. */
    void register(Connection c) {
        registrations.add(c);
        wake();
    }

    /**
     * An adapter's link went down or up: its sockets stop or start being watched for reads, so that bytes
     * a peer sends into a downed link do not end every wait at once (the engine would spin).
     */
    void linkChanged() {
        interestStale = true;
        wake();
    }

    /** Ends a wait of the engine thread (cheap when it is not waiting). */
    void wake() {
        if (waiting) {
            selector.wakeup();
        }
        LockSupport.unpark(thread);
    }

    /**
     * Finishes the close of sockets this engine watched and that were closed since its last selection,
     * from the calling thread, now. java.nio closes a registered non-blocking channel only when a selection
     * deregisters its key, and for a socket aborted with SO_LINGER 0 it sends nothing before (no FIN, no
     * RST): an engine that spins, parks for a poller or waits on pending output would hold the RST back
     * until the adapter closed. A selection the engine is inside is ended first (it holds the selector).
     */
    void deregisterClosed() {
        selector.wakeup();
        try {
            selector.selectNow(IGNORE);
        } catch (ClosedSelectorException e) {
            // the engine thread ended: closing its selector deregistered (and so closed) every socket
        } catch (IOException e) {
            System.getLogger(EngineAgent.class.getName()).log(System.Logger.Level.WARNING,
                    "engine " + name + ": deregistering closed sockets failed; they close at its next selection: " + e);
        }
        // the selection cleared a wake-up that may have been meant for the engine thread: give it again
        wake();
    }

    /** Wakes the engine thread if it is parked; one waiting on socket readiness wakes by itself when data arrives. */
    void wakeUnlessWaitingOnSockets() {
        if (!waiting) {
            LockSupport.unpark(thread);
        }
    }

    /** Makes the engine thread die with {@code e} at its next cycle (fault injection for tests). */
    void injectCrash(Error e) {
        crash = e;
        wake();
    }

    String threadName() {
        return name;
    }

    boolean isAlive() {
        return thread.isAlive();
    }

    private void run() {
        Throwable died = null;
        try {
            while (running) {
                if (crash != null) {
                    Error e = crash;
                    crash = null;
                    throw e;
                }
                int work = registerNew();
                if (interestStale) {
                    interestStale = false;
                    refreshInterest();
                }
                IwTransport[] ds = snapshot;
                long now = System.nanoTime();
                if (now - structuresCheckedAt > STRUCTURE_CHECK_NANOS) {
                    structuresCheckedAt = now;
                    for (IwTransport d : ds) {
                        d.checkStructures();
                    }
                }
                othersWorking = false;
                for (IwTransport d : ds) {
                    if (d.refreshPollers(now)) {
                        // an application thread drives this adapter from its polls: competing for
                        // the progress lock on 2 cores only gets the lock holder descheduled
                        othersWorking = true;
                        continue;
                    }
                    try {
                        int w = d.tryProgress();
                        if (w < 0) {
                            othersWorking = true;
                        } else {
                            work += w;
                        }
                    } catch (RuntimeException | Error e) {
                        d.engineFault(e);
                    }
                }
                if (work > 0) {
                    counters.workingCycle(System.nanoTime() - now);
                } else {
                    counters.idleCycle();
                }
                idle.idle(work, this);
            }
        } catch (Throwable t) {
            died = t;
            System.getLogger(EngineAgent.class.getName()).log(System.Logger.Level.ERROR, "engine thread " + name + " died", t);
        } finally {
            if (died != null) {
                for (IwTransport d : snapshot) {
                    d.engineDied(name, died);
                }
            }
            try {
                selector.close();
            } catch (IOException e) {
                System.getLogger(EngineAgent.class.getName()).log(System.Logger.Level.DEBUG, "closing selector of " + name + ": " + e);
            }
            counters.close();
        }
    }

    private int registerNew() {
        int n = 0;
        Connection c;
        while ((c = registrations.poll()) != null) {
            try {
                c.channel.register(selector, interest(c), c);
                n++;
            } catch (ClosedChannelException e) {
                // closed before the engine saw it: nothing to watch
            }
        }
        return n;
    }

    private static int interest(Connection c) {
        return c.link.isDown() ? 0 : SelectionKey.OP_READ;
    }

    /** Sets every watched socket's interest from its adapter's link (engine thread). */
    private void refreshInterest() {
        for (SelectionKey key : selector.keys()) {
            if (key.attachment() instanceof Connection c) {
                try {
                    int want = interest(c);
                    if (key.interestOps() != want) {
                        key.interestOps(want);
                    }
                } catch (CancelledKeyException e) {
                    // the socket closed meanwhile: nothing to watch
                }
            }
        }
    }

    @Override
    public void await(long nanos) {
        if (othersWorking) {
            // another thread is reading these sockets: they stay readable until it is done, so a
            // wait on readiness would return at once and spin
            LockSupport.parkNanos(nanos);
            return;
        }
        for (IwTransport d : snapshot) {
            if (d.hasPendingOutput()) {
                // bytes waiting for socket space: readiness to read says nothing about that
                LockSupport.parkNanos(nanos);
                return;
            }
        }
        waiting = true;
        try {
            // set before the last check: a wake() after this point ends the select at once
            if (!running || !registrations.isEmpty()) {
                return;
            }
            selector.select(IGNORE, Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
        } catch (IOException e) {
            LockSupport.parkNanos(nanos);
        } finally {
            waiting = false;
        }
    }
}

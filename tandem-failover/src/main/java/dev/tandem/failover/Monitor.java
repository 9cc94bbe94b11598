package dev.tandem.failover;

import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventSubscription;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.ResourceClosedException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The fail-over device's threads. The monitor ({@code tandem-failover-monitor-DEVICE}) runs every step
 * of every fail-over, in order, and the periodic duties: a heartbeat on each path of each connection,
 * the mailboxes (a peer's REPORT or MIGRATED), the proof a batch of Sends and Writes is due after
 * {@link FailoverConfig#proofAfter()}, and a sweep of first-level CQs nobody polled for
 * {@value #IDLE_MS} ms (so their completions, and an overflow, show without a poll). Pumps block on
 * what the adapters report and hand it to the monitor: one for the adapters' CQ events
 * ({@code tandem-failover-cq-DEVICE}), one per adapter for its async events
 * ({@code tandem-failover-events-DEVICE-k}). The healer ({@code tandem-failover-healer-DEVICE}) sets up
 * again the paths that failed, once their adapters work. The device stops them all when it closes.
 */
final class Monitor {
    static final int IDLE_MS = 50;
    private static final long IDLE = TimeUnit.MILLISECONDS.toNanos(IDLE_MS);
    /** How often mailboxes are read while no fail-over runs (one runs: every millisecond): a peer that moved first is followed within it. */
    private static final long MAILBOX = TimeUnit.MILLISECONDS.toNanos(2);
    private static final long BUSY = TimeUnit.MILLISECONDS.toNanos(1);
    private static final Duration PUMP_WAIT = Duration.ofMillis(200);
    private static final System.Logger LOG = System.getLogger("dev.tandem.failover");
    static final int HEAL_MS = 200;
    private static final Duration REJOIN_WAIT = Duration.ofMillis(500);
    private final Object healerWake = new Object();

    private final FailoverDevice device;
    private final AsyncEventSubscription[] subscriptions;
    private final LinkedBlockingQueue<Runnable> work = new LinkedBlockingQueue<>();
    private final Set<FailoverQueuePair> unproven = ConcurrentHashMap.newKeySet();
    private final Set<FailoverQueuePair> connections = ConcurrentHashMap.newKeySet();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;
    private long lastSweep;
    private long lastHeartbeat;
    /** When the duties last ran (overdue probes are checked each time). */
    private long lastCheck;
    private long lastMailbox;

    Monitor(FailoverDevice device) {
        this.device = device;
        this.subscriptions = new AsyncEventSubscription[device.adapterCount()];
        for (int k = 0; k < subscriptions.length; k++) {
            subscriptions[k] = device.adapter(k).subscribeAsyncEvents();
        }
        threads.add(Thread.ofPlatform().daemon().name("tandem-failover-monitor-" + device.name()).unstarted(this::run));
        threads.add(Thread.ofPlatform().daemon().name("tandem-failover-cq-" + device.name()).unstarted(this::pumpCompletions));
        threads.add(Thread.ofPlatform().daemon().name("tandem-failover-healer-" + device.name()).unstarted(this::runHealer));
        for (int k = 0; k < subscriptions.length; k++) {
            int adapter = k;
            threads.add(Thread.ofPlatform().daemon().name("tandem-failover-events-" + device.name() + "-" + k)
                    .unstarted(() -> pumpEvents(adapter)));
        }
    }

    void start() {
        long now = System.nanoTime();
        lastSweep = lastHeartbeat = lastMailbox = lastCheck = now;
        threads.forEach(Thread::start);
    }

    /** The threads (for tests that prove they stop). */
    List<Thread> threads() {
        return List.copyOf(threads);
    }

    /** Runs {@code step} on the monitor thread, after what was submitted before. */
    void submit(Runnable step) {
        if (running) {
            work.add(step);
        }
    }

    /** Path {@code p} of {@code qp} failed in its transport (adapter QP {@code from} showed it): the monitor moves the connection. */
    void failover(FailoverQueuePair qp, Path p, QueuePair from, String cause) {
        submit(() -> qp.moves().failover(p, from, cause));
    }

    /** {@code qp} has Sends or Writes no proof covers yet. */
    void watch(FailoverQueuePair qp) {
        unproven.add(qp);
    }

    void unwatch(FailoverQueuePair qp) {
        unproven.remove(qp);
    }

    /** {@code qp} is connected: its paths get heartbeats, its mailbox is read. */
    void connected(FailoverQueuePair qp) {
        connections.add(qp);
    }

    /** The connections it watches now (for dumps). */
    List<FailoverQueuePair> connections() {
        return List.copyOf(connections);
    }

    void forget(FailoverQueuePair qp) {
        connections.remove(qp);
        unproven.remove(qp);
    }

    private void run() {
        while (running) {
            Runnable step;
            try {
                step = work.poll(nextDuty(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                return;
            }
            while (step != null) {
                runQuietly(step);
                step = work.poll();
            }
            duties();
        }
    }

    private long nextDuty() {
        for (FailoverQueuePair qp : connections) {
            if (qp.migrating()) {
                return BUSY;
            }
        }
        long wait = Math.min(MAILBOX, device.config().heartbeat().toNanos());
        return unproven.isEmpty() ? wait : Math.min(wait, device.config().proofAfter().toNanos());
    }

    private void duties() {
        long now = System.nanoTime();
        boolean busy = false;
        for (FailoverQueuePair qp : connections) {
            busy |= qp.migrating();
        }
        if (busy || now - lastMailbox >= MAILBOX) {
            lastMailbox = now;
            for (FailoverQueuePair qp : connections) {
                runQuietly(qp.mail()::check);
                runQuietly(() -> qp.moves().moveTimedOut(now));
            }
        }
        long beat = device.config().heartbeat().toNanos();
        // this thread ran late (the process stalled: a pause, a starved CPU) when a whole heartbeat passed since it
        // last looked: probes in flight meanwhile say nothing about their paths, since this side's own engines may
        // not have run to take their answers
        boolean slipped = now - lastCheck > beat;
        lastCheck = now;
        boolean probe = now - lastHeartbeat >= beat;
        if (probe) {
            lastHeartbeat = now;
        }
        for (FailoverQueuePair qp : connections) {
            runQuietly(probe ? () -> qp.heartbeats().beat(now, slipped) : () -> qp.heartbeats().check(now, slipped));
        }
        long proofAfter = device.config().proofAfter().toNanos();
        for (FailoverQueuePair qp : unproven) {
            if (!qp.proofs().proveIfOlderThan(proofAfter)) {
                unproven.remove(qp);
            }
        }
        if (now - lastSweep >= IDLE) {
            lastSweep = now;
            for (FirstLevelCq first : device.firstLevelCqs()) {
                runQuietly(() -> first.sweep(IDLE));
            }
        }
    }

    private static void runQuietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "fail-over step failed", e);
        }
    }

    /** Wakes the healer: an adapter came back, or a connection has backup paths to set up. */
    void heal() {
        synchronized (healerWake) {
            healerWake.notifyAll();
        }
    }

    /** The healer: sets up again, every {@value #HEAL_MS} ms (or at once when an adapter came back), the paths that failed. */
    private void runHealer() {
        while (running) {
            for (FailoverQueuePair qp : connections) {
                if (!running) {
                    return;
                }
                try {
                    qp.setup().rejoin(REJOIN_WAIT);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "rejoin failed", e);
                }
            }
            synchronized (healerWake) {
                try {
                    healerWake.wait(HEAL_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private void pumpCompletions() {
        while (running) {
            CompletionQueue cq;
            try {
                cq = device.adapterEvents.await(PUMP_WAIT);
            } catch (ResourceClosedException e) {
                return;
            }
            if (cq != null && device.ownerOf(cq) instanceof FirstLevelCq first) {
                runQuietly(first::adapterEvent);
            }
        }
    }

    private void pumpEvents(int k) {
        while (running) {
            AsyncEvent e = subscriptions[k].poll(PUMP_WAIT);
            if (e != null) {
                submit(() -> handle(k, e));
            }
        }
    }

    /** An event of adapter {@code k}: a failure moves connections; the rest goes on as the device's own, naming its resources. */
    private void handle(int k, AsyncEvent e) {
        AsyncEventType type = e.type();
        if (type == AsyncEventType.DEVICE_FATAL || type == AsyncEventType.PORT_ERROR) {
            String cause = (type == AsyncEventType.DEVICE_FATAL ? "adapter " + k + " failed: " : "adapter " + k + " lost its link: ")
                    + e.detail();
            device.tell(new FailoverEvent.PathDown(System.nanoTime(), k, cause));
            for (FailoverQueuePair qp : connections) {
                runQuietly(() -> qp.moves().adapterDown(k, cause));
            }
            if (type == AsyncEventType.DEVICE_FATAL) {
                device.releaseAdapter(k);
            }
            return;
        }
        if (type == AsyncEventType.PORT_ACTIVE) {
            if (device.usable(k)) {
                device.rebuildAdapter(k);
                device.tell(new FailoverEvent.PathUp(System.nanoTime(), k));
                heal();
            }
            return;
        }
        Object resource = e.resource();
        FailoverDevice.Route route = resource instanceof QueuePair q ? device.routeOf(k, q.qpNumber()) : null;
        Object mine = route != null ? route.qp() : device.ownerOf(resource);
        if (route != null) {
            FailoverQueuePair qp = route.qp();
            Path p = route.path();
            if (!p.holds((QueuePair) resource)) {
                return; // a QP the path has left since
            }
            if (failure(type)) {
                p.endReported = (QueuePair) resource; // its completions are all in its CQ: the adapter raises its end after them
            }
            if (failure(type) && qp.brokenPath(p)) {
                qp.moves().failover(p, (QueuePair) resource, e.detail());
                return;
            }
            if (failure(type) && type != AsyncEventType.DISCONNECTED && qp.carries(p)) {
                qp.workErrorEvent = type; // the error of the work: the first post after it reports it
            }
            if (!qp.reports(p, type)) {
                return;
            }
        }
        if (mine instanceof FailoverSharedReceiveQueue srq && type == AsyncEventType.SRQ_LIMIT_REACHED && !srq.limitReached()) {
            return; // answered already (a move armed it on another adapter too)
        }
        if (mine != null) {
            device.raise(new AsyncEvent(type, mine, e.detail()));
        }
    }

    /** Whether an event of an adapter QP says it failed (the others, such as COMMUNICATION_ESTABLISHED, never move a connection). */
    private static boolean failure(AsyncEventType type) {
        return switch (type) {
            case QP_FATAL, QP_REQUEST_ERROR, QP_ACCESS_ERROR, DISCONNECTED -> true;
            default -> false;
        };
    }

    /** Stops the threads and waits (bounded) for them to end. */
    void stop() {
        running = false;
        heal();
        for (AsyncEventSubscription s : subscriptions) {
            s.close();
        }
        device.adapterEvents.close();
        for (Thread t : threads) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                throw new IllegalStateException("thread " + t.getName() + " of " + device.name() + " did not stop within 5 s");
            }
        }
    }
}

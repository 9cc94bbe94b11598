package dev.tandem.failover.chaos;

import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.LinkControl;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.ResetReport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@link FaultPlan} on its own named thread, through the adapters' {@link AdapterControl} and
 * {@link LinkControl} only. After each fault of a survivable kind it waits (bounded) until every
 * connection has all its paths again before the next: a fault may then never take a node's last
 * adapter. Every action goes into its log with the time since the traffic started.
 */
final class FaultInjector implements Runnable {
    static final Duration HEAL = Duration.ofSeconds(5);
    /** How long a fault may take to be noticed (a silent link: detection, and a margin). */
    private static final Duration NOTICE = Duration.ofSeconds(1);
    static final Duration RESET_OWNERS = Duration.ofSeconds(5);

    private final FaultPlan plan;
    private final Fabric fabric;
    private final TrafficClock clock;
    private final Findings findings;
    private final boolean survivable;
    private final Thread thread = new Thread(this, "chaos-faults");
    private final CountDownLatch done = new CountDownLatch(1);
    private final List<String> log = new ArrayList<>();
    private final List<java.nio.file.Path> dumps = new ArrayList<>();
    private volatile long lastFaultNanos;

    FaultInjector(FaultPlan plan, Fabric fabric, TrafficClock clock, Findings findings) {
        this.plan = plan;
        this.fabric = fabric;
        this.clock = clock;
        this.findings = findings;
        this.survivable = fabric.spec.kind().survivable();
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    Thread thread() {
        return thread;
    }

    /** Waits up to {@code bound} for the plan to finish; true when it did. */
    boolean awaitDone(Duration bound) throws InterruptedException {
        return done.await(bound.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** When the last fault was injected (System.nanoTime), 0 before any. */
    long lastFaultNanos() {
        return lastFaultNanos;
    }

    @Override
    public void run() {
        try {
            for (FaultPlan.Timed t : plan.steps()) {
                if (!clock.pause(Duration.ofMillis(t.delayMs()))) {
                    break;
                }
                inject(t.fault());
                if (survivable && !awaitBack("after " + t.fault())) {
                    break;
                }
            }
        } catch (RuntimeException | Error e) {
            findings.add(Check.HARNESS, "the fault thread died: " + e);
        } finally {
            done.countDown();
        }
    }

    private void inject(FaultPlan.Fault f) {
        switch (f) {
            case FaultPlan.Fault.Fatal(int node, int adapter, int resetAfterMs) -> {
                fatal(node, adapter);
                wait(resetAfterMs);
                reset(node, adapter);
            }
            case FaultPlan.Fault.LinkFlap(int node, int adapter, int upAfterMs) -> {
                act("link down " + at(node, adapter), () -> link(node, adapter).linkDown());
                wait(upAfterMs);
                act("link up " + at(node, adapter), () -> link(node, adapter).linkUp());
            }
            case FaultPlan.Fault.ConnectionReset(int node, int adapter) ->
                    act("reset connections of " + at(node, adapter), () -> note("  " + link(node, adapter).resetConnections() + " reset"));
            case FaultPlan.Fault.CrossDouble(int resetAfterMs) -> {
                together(() -> fatal(Nodes.A, 0), () -> fatal(Nodes.B, 1));
                wait(resetAfterMs);
                reset(Nodes.A, 0);
                reset(Nodes.B, 1);
            }
            case FaultPlan.Fault.WholeNode(int node) -> together(() -> fatal(node, 0), () -> fatal(node, 1));
            case FaultPlan.Fault.SecondWhenBack(FaultPlan.Fault first, FaultPlan.Fault second) -> {
                inject(first);
                if (awaitBack("after the first fault " + first)) {
                    inject(second);
                }
            }
        }
    }

    /** Runs both faults at the same moment, each on a thread of its own (an injection may take a while: it writes a dump). */
    private void together(Runnable first, Runnable second) {
        CountDownLatch gate = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (Runnable r : List.of(first, second)) {
            Thread t = new Thread(() -> {
                try {
                    gate.await();
                    r.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "chaos-faults-together-" + threads.size());
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        gate.countDown();
        for (Thread t : threads) {
            try {
                t.join(RESET_OWNERS.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                findings.add(Check.HARNESS, t.getName() + " did not inject its fault within " + RESET_OWNERS.toSeconds() + "s");
            }
        }
    }

    private void fatal(int node, int adapter) {
        act("fatal " + at(node, adapter), () -> {
            AdapterControl c = control(node, adapter);
            c.injectFatalError("chaos: fatal " + at(node, adapter));
            c.lastFatalDump().ifPresent(this::dumped);
        });
        lastFaultNanos = System.nanoTime();
    }

    private synchronized void dumped(java.nio.file.Path p) {
        dumps.add(p);
    }

    /** The dumps the adapters wrote at the fatal errors injected (a few MB each). */
    synchronized List<java.nio.file.Path> dumps() {
        return List.copyOf(dumps);
    }

    private void reset(int node, int adapter) {
        act("reset " + at(node, adapter), () -> {
            ResetReport r = control(node, adapter).reset(RESET_OWNERS);
            note("  reset " + at(node, adapter) + " took " + r.resetDuration().toMillis() + "ms, rogue " + r.rogueResources().size()
                    + ", stuck threads " + r.stuckThreads());
        });
    }

    /**
     * Waits (bounded) until the devices took the fault in and every connection has all its paths again: a
     * reset connection or a blip is seen only as its failures are handled, so "back" means set up again after
     * that, not "not noticed yet" (a fault nobody notices within {@link #NOTICE}, a short blip, is simply over).
     */
    boolean awaitBack(String when) {
        fabric.events.await(() -> !fabric.allPathsUp(), NOTICE);
        return awaitPaths(when);
    }

    /** Waits (bounded) until every connection has all its paths; a {@link Check#HEAL} finding when not. */
    boolean awaitPaths(String when) {
        if (fabric.events.await(fabric::allPathsUp, HEAL)) {
            note("paths all up " + when);
            return true;
        }
        findings.add(Check.HEAL, "paths not back within " + HEAL.toSeconds() + "s " + when + ": " + fabric.paths());
        return false;
    }

    /** The random delay before undoing a fault; it runs also when the scenario aborts, so the fault is undone. */
    private void wait(int ms) {
        try {
            Thread.sleep(ms); // the schedule's randomness, not a wait for a condition
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void act(String what, Runnable action) {
        note(what);
        try {
            action.run();
        } catch (RuntimeException e) {
            findings.add(Check.EXCEPTION, "fault injection '" + what + "' threw " + e);
        }
    }

    private synchronized void note(String what) {
        log.add("+" + clock.millisSinceStart() + "ms " + what);
    }

    synchronized List<String> log() {
        return List.copyOf(log);
    }

    private static String at(int node, int adapter) {
        return Nodes.name(node) + "." + adapter;
    }

    private RdmaDevice adapter(int node, int adapter) {
        return fabric.node(node).adapters().get(adapter);
    }

    private AdapterControl control(int node, int adapter) {
        if (adapter(node, adapter) instanceof AdapterControl c) {
            return c;
        }
        throw new IllegalStateException(at(node, adapter) + " has no AdapterControl");
    }

    private LinkControl link(int node, int adapter) {
        if (adapter(node, adapter) instanceof LinkControl c) {
            return c;
        }
        throw new IllegalStateException(at(node, adapter) + " has no LinkControl");
    }

    /** Brings every adapter back: links up, failed adapters reset; each step logged. */
    void restoreAll() {
        for (int n = Nodes.A; n <= Nodes.B; n++) {
            for (int k = 0; k < fabric.node(n).adapters().size(); k++) {
                int node = n;
                int adapter = k;
                if (!link(n, k).isLinkUp()) {
                    act("restore: link up " + at(n, k), () -> link(node, adapter).linkUp());
                }
                if (control(n, k).fatalCause().isPresent()) {
                    reset(n, k);
                }
            }
        }
    }
}

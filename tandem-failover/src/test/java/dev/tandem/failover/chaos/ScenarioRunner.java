package dev.tandem.failover.chaos;

import dev.tandem.verbs.QpState;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Runs one scenario from start to finish and hands back everything it found: opens the fabric, waits
 * for every path, starts the drivers and the fault thread, lets traffic run (longer while faults are
 * still being undone), checks how the connections ended where both adapters of a node died, drains,
 * brings every adapter back, runs the final checks, closes everything and compares threads and
 * descriptors with before. Every wait is bounded; nothing it finds stops it early.
 */
final class ScenarioRunner {
    static final Duration SET_UP_PATHS = Duration.ofSeconds(10);
    static final Duration FAULTS_MAX = Duration.ofSeconds(60);
    static final Duration TAIL = Duration.ofMillis(300);
    static final Duration END_BOUND = Duration.ofSeconds(5);
    static final Duration DRAIN = Duration.ofSeconds(8);
    static final Duration JOIN_SLACK = Duration.ofSeconds(3);
    static final Duration CLOSE = Duration.ofSeconds(30);
    static final Duration LEFTOVERS = Duration.ofSeconds(5);

    private ScenarioRunner() {
    }

    static ScenarioResult run(ScenarioSpec spec) {
        long began = System.nanoTime();
        ResourceProbe before = ResourceProbe.take();
        TrafficClock clock = new TrafficClock();
        Findings findings = new Findings(clock);
        Fabric fabric = Fabric.of(spec, findings, clock);
        FaultInjector faults = null;
        try {
            fabric.build();
            if (!fabric.events.await(fabric::allPathsUp, SET_UP_PATHS)) {
                findings.add(Check.HEAL, "paths not all up " + SET_UP_PATHS.toSeconds() + "s after set-up: " + fabric.paths());
            }
            clock.begin();
            fabric.drivers.forEach(Driver::start);
            faults = new FaultInjector(FaultPlan.of(spec), fabric, clock, findings);
            faults.start();
            traffic(spec, fabric, faults, clock, findings);
        } catch (Exception | Error e) {
            findings.add(Check.HARNESS, "scenario stopped: " + e + " at " + firstFrames(e.getStackTrace(), 4));
        } finally {
            stopThreads(fabric, faults, clock, findings);
        }
        finalChecks(spec, fabric, faults, findings);
        List<String> events = fabric.events == null ? List.of() : fabric.events.lines();
        int migrated = fabric.events == null ? 0 : fabric.events.migrated();
        long pause = fabric.events == null ? 0 : fabric.events.maxPauseMillis();
        long delivered = Arrays.stream(fabric.streams).flatMap(Arrays::stream).mapToLong(s -> s.delivered).sum();
        closeAll(fabric, findings);
        ResourceProbe.check(before, LEFTOVERS, findings);
        if (faults != null && !Boolean.getBoolean("tandem.chaos.keepDumps")) {
            deleteDumps(faults.dumps()); // a dump per injected fatal error: a long run would fill the disk
        }
        return new ScenarioResult(spec, findings.counts(), findings.kept(), faults == null ? List.of() : faults.log(), events, delivered,
                migrated, pause, Duration.ofNanos(System.nanoTime() - began));
    }

    /** Runs traffic for its time and until the faults are done; for a dead node, waits for the connections to end; then drains. */
    private static void traffic(ScenarioSpec spec, Fabric fabric, FaultInjector faults, TrafficClock clock, Findings findings)
            throws InterruptedException {
        clock.pause(spec.traffic());
        if (!faults.awaitDone(FAULTS_MAX)) {
            findings.add(Check.HARNESS, "the fault plan did not finish within " + FAULTS_MAX.toSeconds() + "s");
        }
        if (spec.kind() == FaultKind.BOTH_ADAPTERS_OF_A_NODE) {
            long since = faults.lastFaultNanos();
            Duration left = Duration.ofNanos(Math.max(0, since + END_BOUND.toNanos() - System.nanoTime()));
            if (!fabric.events.await(() -> fabric.ends.stream().allMatch(e -> e.qp().state() == QpState.ERROR), left)) {
                for (EndPoint e : fabric.ends) {
                    if (e.qp().state() != QpState.ERROR) {
                        findings.add(Check.END, e.name() + ": QP " + e.qp().qpNumber() + " still " + e.qp().state() + " "
                                + END_BOUND.toSeconds() + "s after both adapters of a node failed: " + e.describe());
                    }
                }
            }
        } else if (spec.faults() > 0) {
            clock.pause(TAIL); // traffic goes on a little after the last fault was undone
        }
        clock.drain(DRAIN);
    }

    /** Joins the drivers (by the drain deadline) and the fault thread; a thread that does not stop is a finding with its stack. */
    private static void stopThreads(Fabric fabric, FaultInjector faults, TrafficClock clock, Findings findings) {
        if (!clock.draining()) {
            clock.drain(DRAIN);
        }
        long deadline = System.nanoTime() + DRAIN.plus(JOIN_SLACK).toNanos();
        for (Driver d : fabric.drivers) {
            Thread t = d.thread();
            if (!t.isAlive() && t.getState() == Thread.State.NEW) {
                continue;
            }
            join(t, deadline);
            if (t.isAlive()) {
                findings.add(Check.STALL, t.getName() + " did not stop " + DRAIN.plus(JOIN_SLACK).toSeconds() + "s after the drain began, at "
                        + firstFrames(t.getStackTrace(), 12));
                d.stop();
                clock.abort();
                t.interrupt();
            }
        }
        clock.abort(); // the fault thread stops before its next fault
        if (faults != null && faults.thread().getState() != Thread.State.NEW) {
            join(faults.thread(), System.nanoTime() + FAULTS_MAX.toNanos());
            if (faults.thread().isAlive()) {
                findings.add(Check.HARNESS, "the fault thread did not stop, at " + firstFrames(faults.thread().getStackTrace(), 8));
            }
        }
    }

    /** Brings adapters back, sweeps the ends, and checks each stream's totals and the paths' healing. */
    private static void finalChecks(ScenarioSpec spec, Fabric fabric, FaultInjector faults, Findings findings) {
        if (fabric.nodes[1] == null || fabric.ends.isEmpty() || fabric.ends.getFirst().send() == null) {
            return; // set-up failed: nothing ran
        }
        for (Driver d : fabric.drivers) {
            if (!d.thread().isAlive()) {
                d.ends().forEach(EndPoint::finish); // before adapters are reset: what their CQs still hold is polled and checked
            }
        }
        if (faults != null) {
            faults.restoreAll();
        }
        for (StreamState[] pair : fabric.streams) {
            for (StreamState s : pair) {
                if (spec.kind().survivable()) {
                    if (!s.broken && s.finalCount >= 0 && s.delivered < s.finalCount) {
                        findings.add(Check.LOST, s.name() + ": the receiver got messages up to " + (s.delivered - 1) + " of "
                                + s.finalCount + " sent: " + s);
                    }
                } else if (s.acked >= s.delivered) {
                    findings.add(Check.UNDELIVERED, s.name() + ": the sender saw message " + s.acked + "'s Send complete SUCCESS, the"
                            + " receiver's application got only " + s.delivered + " messages: " + s);
                }
            }
        }
        Duration heal = findings.count(Check.HEAL) > 0 ? Duration.ZERO : FaultInjector.HEAL; // waited once already: look, do not wait again
        if (spec.kind().survivable() && !fabric.events.await(fabric::allPathsUp, heal)) {
            findings.add(Check.HEAL, "paths not back " + heal.toSeconds() + "s after every adapter was restored: "
                    + fabric.paths());
        }
        fabric.events.pump(Duration.ZERO);
    }

    /** Closes everything on a named thread, bounded: a close that hangs is a finding, not a hung test. */
    private static void closeAll(Fabric fabric, Findings findings) {
        Thread closer = new Thread(() -> fabric.resources.closeAll(findings), "chaos-close");
        closer.setDaemon(true);
        closer.start();
        join(closer, System.nanoTime() + CLOSE.toNanos());
        if (closer.isAlive()) {
            findings.add(Check.CLOSE, "closing did not finish within " + CLOSE.toSeconds() + "s, at " + firstFrames(closer.getStackTrace(), 12));
        }
    }

    private static void deleteDumps(List<java.nio.file.Path> dumps) {
        for (java.nio.file.Path p : dumps) {
            try {
                java.nio.file.Files.deleteIfExists(p);
            } catch (java.io.IOException e) {
                // left for the operator: the report does not depend on it
            }
        }
    }

    private static void join(Thread t, long deadlineNanos) {
        long left = (deadlineNanos - System.nanoTime()) / 1_000_000;
        try {
            t.join(Math.max(1, left));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String firstFrames(StackTraceElement[] stack, int n) {
        return Arrays.stream(stack).limit(n).map(StackTraceElement::toString).collect(Collectors.joining(" < "));
    }
}

package dev.tandem.tools.demo;

import dev.tandem.failover.check.Verdict;
import dev.tandem.tools.lab.Ip;
import dev.tandem.tools.lab.Lab;
import dev.tandem.tools.lab.LabException;
import dev.tandem.tools.lab.LabPlan;
import dev.tandem.tools.lab.LabStatus;
import dev.tandem.tools.lab.Topology;
import dev.tandem.tools.lab.node.LabNode;
import dev.tandem.tools.lab.node.LabNodeException;
import dev.tandem.tools.lab.node.NodePair;
import dev.tandem.tools.lab.node.NodeReport;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BooleanSupplier;

/**
 * The fail-over demo across a lab ({@code tandem demo --lab}): a switched lab of two hosts with two adapters
 * each, node a (the sender of a checked stream) as a process in host 1 and node b (its receiver) in host 2.
 * Midway the cable of a's adapter that carries the connection is pulled; once the connection moved it is
 * plugged in again and the path comes back; the stream runs to its end. Every fail-over event of both
 * nodes is narrated; the verdict is {@link DemoCommand}'s. The lab and the node processes are removed at
 * the end, also when a step fails and on Ctrl-C (a shutdown hook, named {@code demo-lab-cleanup}, removed
 * again by {@link #close()}).
 */
final class LabDemo implements AutoCloseable {
    /** Fail-overs the script causes: the pulled cable. */
    static final int FAILOVERS = 1;
    private static final Duration WAIT = Duration.ofSeconds(15);

    private final PrintWriter out;
    private final boolean quiet;
    private final ProgressLine line;
    private final Ip ip;
    private final String prefix;
    private final Thread cleanup;
    private final List<Double> pauses = new ArrayList<>();
    private long messages;
    private long startMicros;
    private Lab lab;
    private NodePair pair;
    private boolean closed;

    /** Narrates on {@code out} (nothing when {@code quiet}); builds its lab with {@code ip}, its namespaces named {@code prefix-*}. */
    LabDemo(PrintWriter out, boolean quiet, boolean terminal, Ip ip, String prefix) {
        this.out = out;
        this.quiet = quiet;
        this.line = new ProgressLine(out, terminal);
        this.ip = ip;
        this.prefix = LabPlan.checkPrefix(prefix);
        this.cleanup = new Thread(this::close, "demo-lab-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup); // Ctrl-C: the lab and the nodes go too
    }

    /** The prefix of its own lab for this process: {@code tdemo<pid>}. */
    static String ownPrefix() {
        return "tdemo" + ProcessHandle.current().pid();
    }

    /** Runs the whole demo with {@code total} messages. */
    FailoverDemo.Result run(long total) {
        messages = total;
        startMicros = nowMicros();
        LabPlan plan = new LabPlan(prefix, Topology.SWITCHED, 2, 2);
        try {
            say("building lab " + prefix + ": " + plan.describe());
            lab = Lab.up(plan, ip);
            say("starting node a in " + lab.namespace(1) + " and node b in " + lab.namespace(2) + " (a JVM each)");
            pair = NodePair.start(lab, 50, 3, this::tell);
        } catch (LabException | LabNodeException | IOException e) {
            throw new DemoFailure("setting up the lab and nodes a and b failed: " + e.getMessage());
        }
        String failure = null;
        try {
            script();
        } catch (DemoFailure | LabNodeException | LabException e) {
            failure = e.getMessage();
            say("FAILED: " + failure);
        }
        Verdict v;
        try {
            v = pair.finish(failure == null ? messages : pair.sender().half().sent(), WAIT);
        } catch (LabNodeException e) {
            throw new DemoFailure((failure == null ? "" : failure + "; then ") + "reading the verdict failed: " + e.getMessage());
        }
        progress();
        line.finish();
        if (failure == null && v.ending() == Verdict.Ending.STALLED) {
            failure = "the stream stalled: nothing moved for " + WAIT.toSeconds() + " s with " + v.messagesSent() + " sent and "
                    + v.messagesReceived() + " received";
        } else if (failure == null && v.ending() == Verdict.Ending.BROKEN) {
            failure = "the stream broke: the application saw " + v.errors() + " completions in error " + v.errorsByStatus()
                    + "; the fail-over did not hide the pulled cable";
        }
        return new FailoverDemo.Result(v, pauses, failure, FAILOVERS);
    }

    private void script() {
        say("connected: a's QP on adapter " + (pair.carryingAdapter() - 1) + "; streaming " + messages + " messages (each a Write of a "
                + LabNode.SHAPE.blockBytes() + "-byte block, then a " + LabNode.SHAPE.messageBytes()
                + "-byte Send that announces it; all checked)");
        pair.sendUpTo(messages / 2);
        runWhile(() -> pair.sender().half().sent() < messages / 2, messages / 2 + " messages sent");
        int carrying;
        try {
            carrying = pair.carryingAdapterNow(WAIT);
        } catch (LabNodeException e) {
            throw new DemoFailure(e.getMessage());
        }
        pair.sendUpTo(3 * messages / 4); // the application keeps posting through the fail-over
        String target = "h1.a" + carrying;
        int from = pair.events().size();
        say("FAULT: pulling the cable of a's adapter " + (carrying - 1) + " (" + target + ", " + lab.address(1, carrying).getHostAddress()
                + "), which carries the connection: no FIN, no RST");
        long fault = nowMicros();
        lab.fail(target);
        runWhile(() -> find("a", "Migrated", from) < 0, "a's MIGRATED after the pulled cable");
        long moved = pair.events().get(find("a", "Migrated", from)).atEpochMicros();
        runWhile(() -> pair.sender().resumedEpochMicros() < moved && !pair.halves().finished(),
                "the first completion after the fail-over");
        // the first completion after the pause (reports come every few tens of ms: the last one may be later)
        double ms = (Math.max(pair.sender().resumedEpochMicros(), moved) - fault) / 1e3;
        pauses.add(ms);
        say(String.format(Locale.ROOT, "the application's first completion after the fault came %.1f ms after it", ms));
        int healed = pair.events().size();
        lab.heal(target);
        say("cable of " + target + " plugged in again");
        runWhile(() -> find("a", "PathRestored", healed) < 0, "the path on a's adapter " + (carrying - 1) + " to be set up again");
    }

    /** The index of the first event of {@code kind} on {@code node} from {@code from} on, or -1. */
    private int find(String node, String kind, int from) {
        List<NodeReport.Event> events = pair.events();
        for (int i = from; i < events.size(); i++) {
            if (events.get(i).node().equals(node) && events.get(i).kind().equals(kind)) {
                return i;
            }
        }
        return -1;
    }

    /** Reads the nodes' reports (narrating) while {@code condition} holds, for {@link #WAIT} at most. */
    private void runWhile(BooleanSupplier condition, String what) {
        try {
            pair.await(() -> {
                progress();
                if (pair.halves().broken()) {
                    throw new DemoFailure("waiting for " + what + ": the stream broke; the application saw "
                            + pair.halves().verdict(Verdict.Ending.IN_PROGRESS).errorsByStatus());
                }
                return condition.getAsBoolean();
            }, WAIT, what);
        } catch (LabNodeException e) {
            throw new DemoFailure(e.getMessage());
        }
    }

    private void progress() {
        long now = System.nanoTime();
        if (quiet || pair == null || pair.sender() == null || !line.due(now)) {
            return;
        }
        line.update(String.format(Locale.ROOT, "  %6.0f ms  streaming: %d of %d sent, %d received, path on adapter %d",
                (nowMicros() - startMicros) / 1e3, pair.sender().half().sent(), messages, pair.receiver().half().messages(),
                pair.sender().adapter()), now);
    }

    private void tell(NodeReport.Event e) {
        if (!quiet) {
            line.say(String.format(Locale.ROOT, "  %6.0f ms  %s: %s", (e.atEpochMicros() - startMicros) / 1e3, e.node(), e.text()));
        }
    }

    private void say(String text) {
        if (!quiet) {
            line.say(String.format(Locale.ROOT, "  %6.0f ms  %s", (nowMicros() - startMicros) / 1e3, text));
        }
    }

    private static long nowMicros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }

    /** Stops the nodes and removes the lab (whatever of it exists); again does nothing. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (Thread.currentThread() != cleanup) {
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs close too, and finds it done
            }
        }
        try {
            if (pair != null) {
                pair.close();
            }
        } finally {
            try {
                Lab.down(prefix, ip);
            } catch (LabException e) {
                out.println("removing lab " + prefix + " failed: " + e.getMessage() + "; 'tandem lab down --prefix " + prefix
                        + "' removes what is left");
                out.flush();
            }
        }
    }

    /** Whether any namespace of its lab exists (after {@link #close()}, none may). */
    boolean labLeft() {
        return !LabStatus.namespaces(prefix, ip).isEmpty();
    }
}

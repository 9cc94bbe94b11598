package dev.tandem.tools.demo;

import dev.tandem.failover.FailoverDevice;
import dev.tandem.failover.FailoverEvent;
import dev.tandem.failover.FailoverWatch;
import dev.tandem.failover.check.CheckedStream;
import dev.tandem.failover.check.StreamShape;
import dev.tandem.failover.check.Verdict;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.LinkControl;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevices;
import dev.tandem.verbs.RdmaException;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The fail-over demo: nodes a and b in this process, each a fail-over device over two software iWARP
 * adapters on loopback addresses, one connection, and a checked stream of Sends and Writes over it
 * ({@link CheckedStream}). A third of the way in, a's adapter that carries the connection gets a fatal
 * error; once the connection moved, that adapter is reset and its path set up again; two thirds in,
 * the link of the adapter then carrying the connection goes down (a black hole) and later comes back.
 * Every step of both nodes is narrated as it happens; the verdict says what arrived. Every wait is
 * bounded: a step that does not happen in time fails the demo with what was expected. b stops
 * listening once it accepted the connection, as most servers do: failed paths are set up again
 * through the device's own join port.
 */
final class FailoverDemo implements AutoCloseable {
    static final String A = "failover://127.0.1.1+127.0.2.1?node=a&heartbeatMs=50&misses=3";
    static final String B = "failover://127.0.1.2+127.0.2.2?node=b&heartbeatMs=50&misses=3";
    /** Fail-overs the script causes: the fatal error, then the link down. */
    static final int FAILOVERS = 2;
    static final StreamShape SHAPE = StreamShape.sendsAndWrites(1024);
    private static final Duration WAIT = Duration.ofSeconds(10);

    /**
     * How the demo went.
     *
     * @param verdict  what the checked stream proved
     * @param pausesMs each fail-over's pause as the application saw it, in order
     * @param failure  the step that did not happen as expected, or null when the script ran through
     * @param expectedFailovers the fail-overs the script causes
     */
    record Result(Verdict verdict, List<Double> pausesMs, String failure, int expectedFailovers) {
        Result {
            pausesMs = List.copyOf(pausesMs);
        }

        /** A clean verdict after every fail-over the script causes. */
        boolean ok() {
            return failure == null && verdict.clean() && pausesMs.size() == expectedFailovers;
        }
    }

    private final PrintWriter out;
    private final ProgressLine line;
    private final boolean quiet;
    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<Double> pauses = new ArrayList<>();
    private FailoverDevice a;
    private FailoverDevice b;
    private FailoverWatch watchA;
    private FailoverWatch watchB;
    private QueuePair qa;
    private CheckedStream stream;
    private long messages;
    private long start;
    /** Fail-overs of node a so far, and when the last one finished; adapters of a that came up again. */
    private int migrations;
    private long migratedAt;
    private final List<Integer> upAgain = new ArrayList<>();

    /** Narrates on {@code out} (nothing when {@code quiet}); {@code terminal}: a live line rewritten in place. */
    FailoverDemo(PrintWriter out, boolean quiet, boolean terminal) {
        this.out = out;
        this.quiet = quiet;
        this.line = new ProgressLine(out, terminal);
    }

    /** Runs the whole demo with {@code total} messages. */
    Result run(long total) {
        messages = total;
        start = System.nanoTime();
        try {
            setUp();
        } catch (RdmaException | InterruptedException e) {
            throw new DemoFailure("setting up nodes a and b failed: " + e.getMessage());
        }
        String failure = null;
        try {
            script();
        } catch (DemoFailure e) {
            failure = e.getMessage();
            say("FAILED: " + failure);
            stream.stop();
        }
        Verdict v = stream.run(failure == null ? messages : stream.sent(), WAIT, Duration.ofMillis(100), p -> {
            narrate();
            progress(p);
        });
        narrate();
        line.finish();
        if (failure == null && v.ending() == Verdict.Ending.STALLED) {
            failure = "the stream stalled: nothing moved for " + WAIT.toSeconds() + " s with " + v.messagesSent() + " sent and "
                    + v.messagesReceived() + " received";
        } else if (failure == null && v.ending() == Verdict.Ending.BROKEN) {
            failure = brokenText();
        }
        return new Result(v, pauses, failure, FAILOVERS);
    }

    private void setUp() throws InterruptedException {
        a = open(A);
        b = open(B);
        say("nodes up: a over " + a.adapters().get(0).name() + " and " + a.adapters().get(1).name() + ", b over "
                + b.adapters().get(0).name() + " and " + b.adapters().get(1).name());
        watchA = a.watch();
        watchB = b.watch();
        ProtectionDomain pdA = a.allocateProtectionDomain();
        ProtectionDomain pdB = b.allocateProtectionDomain();
        CompletionQueue cqA = a.createCompletionQueue(128);
        CompletionQueue cqB = b.createCompletionQueue(128);
        qa = pdA.createQueuePair(QueuePairConfig.of(cqA).withDepths(SHAPE.window(), 8));
        QueuePair qb = pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(8, SHAPE.window()));
        stream = CheckedStream.between(qa, qb, SHAPE); // before the connection: b's receives are posted first
        open.add(stream);
        Listener l = b.listen(new InetSocketAddress("127.0.1.2", 0), 1);
        AtomicReference<RuntimeException> refused = new AtomicReference<>();
        Thread acceptor = Thread.ofPlatform().name("demo-accept").start(() -> {
            try {
                ConnectionRequest r = l.accept(WAIT);
                r.accept(qb, new byte[0]);
            } catch (RuntimeException e) {
                refused.set(e);
            }
        });
        try (l) {
            qa.connect(l.localAddress(), new byte[0], WAIT);
            acceptor.join(WAIT.toMillis());
        }
        if (acceptor.isAlive() || refused.get() != null) {
            throw new DemoFailure("b did not accept the connection within " + WAIT.toSeconds() + " s"
                    + (refused.get() != null ? ": " + refused.get().getMessage() : ""));
        }
    }

    private void script() {
        say("connected: a's QP on adapter " + a.adapterOf(qa) + "; streaming " + messages + " messages (each a Write of a "
                + SHAPE.blockBytes() + "-byte block, then a " + SHAPE.messageBytes() + "-byte Send that announces it; all checked)");
        int carrying = a.adapterOf(qa);
        runUntilSent(messages / 3);
        stream.sendUpTo(2 * messages / 3); // the application keeps posting through the fail-over
        say("FAULT: fatal error on a's adapter " + carrying + " (" + a.adapters().get(carrying).name() + "), which carries the connection");
        long fault = System.nanoTime();
        // a PCI error arrives on its own, not on the application's thread: the application keeps posting meanwhile
        Thread pci = Thread.ofPlatform().name("demo-pci-error")
                .start(() -> ((AdapterControl) a.adapters().get(carrying)).injectFatalError("demo: simulated PCI error"));
        measurePause(fault, "the first fail-over");
        try {
            pci.join(WAIT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DemoFailure("interrupted while the fatal error was injected");
        }
        say("resetting a's adapter " + carrying + " (the connection keeps running on adapter " + a.adapterOf(qa) + ")");
        ((AdapterControl) a.adapters().get(carrying)).reset(Duration.ofSeconds(5));
        runWhile(() -> !upAgain.contains(carrying), "a's adapter " + carrying + " to come up again after its reset");
        runWhile(() -> a.livePaths(qa) < a.pathCount(qa), "the paths on a's adapter " + carrying + " to be set up again");
        runUntilSent(2 * messages / 3);
        stream.sendUpTo(messages);
        int now = a.adapterOf(qa);
        say("FAULT: link of a's adapter " + now + " (" + a.adapters().get(now).name() + ") goes down: a black hole, no FIN, no RST");
        LinkControl link = (LinkControl) a.adapters().get(now);
        long dark = System.nanoTime();
        link.linkDown();
        measurePause(dark, "the second fail-over");
        upAgain.clear();
        link.linkUp();
        say("link of a's adapter " + now + " is up again");
        runWhile(() -> !upAgain.contains(now), "a's adapter " + now + " to carry work again after link up");
        runWhile(() -> a.livePaths(qa) < a.pathCount(qa), "the paths on a's adapter " + now + " to be set up again");
    }

    /**
     * Streams through a fail-over and records its pause as the application sees it: from the fault to
     * the first completion the application reaps after the connection moved.
     */
    private void measurePause(long fault, String what) {
        int before = migrations;
        runWhile(() -> migrations == before, what + " (MIGRATED on node a)");
        long moved = migratedAt;
        // the first completion after the move; if the phase's messages were all done before it, the move's end
        runWhile(() -> stream.lastCompletionNanos() < moved && !stream.finished(), "the first completion after " + what);
        double ms = (Math.max(stream.lastCompletionNanos(), moved) - fault) / 1e6;
        pauses.add(ms);
        say(String.format(Locale.ROOT, "the application's first completion after the fault came %.1f ms after it", ms));
    }

    private FailoverDevice open(String name) {
        FailoverDevice d = (FailoverDevice) RdmaDevices.open(name);
        open.add(d);
        return d;
    }

    /** Lets the stream send up to {@code n} messages and streams until it did. */
    private void runUntilSent(long n) {
        stream.sendUpTo(n);
        runWhile(() -> stream.sent() < n, n + " messages sent");
    }

    /** Streams (and narrates) while {@code condition} holds, for {@link #WAIT} at most. */
    private void runWhile(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        int idle = 0;
        while (condition.getAsBoolean()) {
            if (stream.broken()) {
                throw new DemoFailure("waiting for " + what + ": " + brokenText());
            }
            if (System.nanoTime() > deadline) {
                throw new DemoFailure("waited " + WAIT.toSeconds() + " s for " + what + "; sent " + stream.sent() + ", received "
                        + stream.received());
            }
            if (stream.step()) {
                idle = 0;
            } else if (++idle > 256) {
                LockSupport.parkNanos(20_000); // nothing moves (a fail-over in progress): leave the cores to the engines
            } else {
                Thread.onSpinWait();
            }
            narrate();
            progress(null);
        }
    }

    private String brokenText() {
        Verdict v = stream.verdict();
        return "the stream broke: the application saw " + v.errors() + " completions in error " + v.errorsByStatus()
                + (v.refused() > 0 ? " and " + v.refused() + " refused posts" : "") + "; the fail-over did not hide the fault";
    }

    private void progress(Verdict p) {
        long now = System.nanoTime();
        if (quiet || !line.due(now)) {
            return;
        }
        long sent = p == null ? stream.sent() : p.messagesSent();
        long received = p == null ? stream.received() : p.messagesReceived();
        line.update(String.format(Locale.ROOT, "  %6.0f ms  streaming: %d of %d sent, %d received, path on adapter %d",
                (now - start) / 1e6, sent, messages, received, a.adapterOf(qa)), now);
    }

    /** Prints what the nodes did since last asked. */
    private void narrate() {
        FailoverEvent e;
        while ((e = watchA.poll(Duration.ZERO)) != null) {
            tell("a", e);
        }
        while ((e = watchB.poll(Duration.ZERO)) != null) {
            tell("b", e);
        }
    }

    private void tell(String node, FailoverEvent e) {
        if (node.equals("a")) {
            switch (e) {
                case FailoverEvent.Migrated m -> {
                    migrations++;
                    migratedAt = m.atNanos();
                }
                case FailoverEvent.PathUp u -> upAgain.add(u.adapter());
                default -> {
                }
            }
        }
        if (!quiet) {
            line.say(String.format(Locale.ROOT, "  %6.0f ms  %s: %s", (e.atNanos() - start) / 1e6, node, FailoverNarration.text(e)));
        }
    }

    private void say(String text) {
        if (!quiet) {
            line.say(String.format(Locale.ROOT, "  %6.0f ms  %s", (System.nanoTime() - start) / 1e6, text));
        }
    }

    @Override
    public void close() {
        for (int i = open.size() - 1; i >= 0; i--) {
            try {
                open.get(i).close();
            } catch (Exception e) {
                out.println("closing " + open.get(i) + " failed: " + e);
            }
        }
    }
}

package dev.tandem.tools.demo;

import dev.tandem.failover.FailoverConfig;
import dev.tandem.failover.FailoverDevice;
import dev.tandem.failover.FailoverEvent;
import dev.tandem.failover.FailoverWatch;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.LinkControl;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The fail-over demo: nodes a and b in this process, each a fail-over device over two software iWARP
 * adapters on loopback addresses, one connection, and a checked stream of Sends and Writes over it.
 * A third of the way in, a's adapter that carries the connection gets a fatal error; once the
 * connection moved, that adapter is reset and its path set up again; two thirds in, the link of the
 * adapter then carrying the connection goes down (a black hole, found by heartbeat) and later comes
 * back. Every step is narrated as it happens; the verdict says what arrived.
 */
final class FailoverDemo implements AutoCloseable {
    static final String A = "failover://127.0.1.1+127.0.2.1?node=a&heartbeatMs=50&misses=3";
    static final String B = "failover://127.0.1.2+127.0.2.2?node=b&heartbeatMs=50&misses=3";
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final PrintWriter out;
    private final boolean quiet;
    private final Arena arena = Arena.ofShared();
    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<Double> pauses = new ArrayList<>();
    private FailoverDevice a;
    private FailoverDevice b;
    private FailoverWatch watchA;
    private FailoverWatch watchB;
    private QueuePair qa;
    private CheckedStream stream;
    private long start;
    /** How many messages the stream may have sent by the end of the phase running now. */
    private long limit;
    /** Fail-overs of node a so far, and when the last one finished. */
    private int migrations;
    private long migratedAt;

    FailoverDemo(PrintWriter out, boolean quiet) {
        this.out = out;
        this.quiet = quiet;
    }

    /** Runs the whole demo; the verdict of the stream. */
    Verdict run(long messages) throws Exception {
        start = System.nanoTime();
        a = open(A);
        b = open(B);
        say("nodes up: a over " + a.adapters().get(0).name() + " and " + a.adapters().get(1).name() + ", b over "
                + b.adapters().get(0).name() + " and " + b.adapters().get(1).name());
        watchA = a.watch();
        watchB = b.watch();
        connect();
        say("connected: a's QP on adapter " + a.adapterOf(qa) + "; streaming " + messages + " messages (a Send after a Write each, checked)");
        long first = messages / 3;
        long second = 2 * messages / 3;
        int carrying = a.adapterOf(qa);
        limit = first;
        runUntil(first);
        say("FAULT: fatal error on a's adapter " + carrying + " (" + a.adapters().get(carrying).name() + "), which carries the connection");
        long fault = System.nanoTime();
        // a PCI error arrives on its own, not on the application's thread: the application keeps posting meanwhile
        Thread pci = Thread.ofPlatform().name("demo-pci-error")
                .start(() -> ((AdapterControl) a.adapters().get(carrying)).injectFatalError("demo: simulated PCI error"));
        limit = second;
        measurePause(fault, "the first fail-over");
        pci.join(WAIT.toMillis());
        say("resetting a's adapter " + carrying + " (the connection keeps running on adapter " + a.adapterOf(qa) + ")");
        ((AdapterControl) a.adapters().get(carrying)).reset(Duration.ofSeconds(5));
        runWhile(() -> a.livePaths(qa) < 2, "the path on adapter " + carrying + " to be set up again");
        runUntil(second);
        int now = a.adapterOf(qa);
        say("FAULT: link of a's adapter " + now + " (" + a.adapters().get(now).name() + ") goes down: a black hole, no FIN, no RST");
        LinkControl link = (LinkControl) a.adapters().get(now);
        long dark = System.nanoTime();
        link.linkDown();
        limit = messages;
        measurePause(dark, "the second fail-over");
        link.linkUp();
        say("link of a's adapter " + now + " is up again");
        runUntil(messages);
        runWhile(() -> stream.step(messages), "the last messages");
        narrate();
        return stream.verdict(pauses);
    }

    /**
     * Streams through a fail-over and records its pause as the application sees it: from the fault to
     * the first completion the application reaps after the connection moved.
     */
    private void measurePause(long fault, String what) {
        int before = migrations;
        runWhile(() -> migrations == before, what);
        long moved = migratedAt;
        // the first completion after the move; if the phase's messages were all done before it, the move's end
        runWhile(() -> stream.lastCompletionNanos() < moved && !(stream.sent() >= limit && stream.idle()),
                "the first completion after " + what);
        double ms = (Math.max(stream.lastCompletionNanos(), moved) - fault) / 1e6;
        pauses.add(ms);
        say(String.format(Locale.ROOT, "the application's first completion after the fault came %.1f ms after it", ms));
    }

    private FailoverDevice open(String name) {
        FailoverDevice d = (FailoverDevice) dev.tandem.verbs.RdmaDevices.open(name);
        open.add(d);
        return d;
    }

    private void connect() throws Exception {
        ProtectionDomain pdA = a.allocateProtectionDomain();
        ProtectionDomain pdB = b.allocateProtectionDomain();
        CompletionQueue cqA = a.createCompletionQueue(4 * CheckedStream.DEPTH);
        CompletionQueue cqB = b.createCompletionQueue(4 * CheckedStream.DEPTH);
        MemoryRegion src = pdA.registerMemory(arena.allocate(CheckedStream.regionBytes(), 64), Access.LOCAL_WRITE);
        MemoryRegion dst = pdB.registerMemory(arena.allocate(CheckedStream.regionBytes(), 64), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        QueuePairConfig config = QueuePairConfig.of(cqA).withDepths(CheckedStream.DEPTH, CheckedStream.DEPTH);
        qa = pdA.createQueuePair(config);
        QueuePair qb = pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(CheckedStream.DEPTH, CheckedStream.DEPTH));
        Listener l = b.listen(new InetSocketAddress("127.0.1.2", 0), 4);
        stream = new CheckedStream(qa, cqA, src, qb, cqB, dst);
        CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
            ConnectionRequest r = l.accept(WAIT);
            r.accept(qb, new byte[0]);
        });
        qa.connect(l.localAddress(), new byte[0], WAIT);
        accepted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void runUntil(long messages) {
        runWhile(() -> stream.sent() < messages, messages + " messages sent");
    }

    /** Streams (and narrates) while {@code condition} holds, within a bound. */
    private void runWhile(java.util.function.BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + WAIT.toNanos() * 2;
        long lastLine = 0;
        while (condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new DemoFailure("waited " + 2 * WAIT.toSeconds() + " s for " + what + "; sent " + stream.sent() + ", received "
                        + stream.received());
            }
            stream.step(limit);
            narrate();
            long t = System.nanoTime();
            if (!quiet && t - lastLine > TimeUnit.MILLISECONDS.toNanos(250)) {
                lastLine = t;
                out.printf(Locale.ROOT, "      ... %d sent, %d received%n", stream.sent(), stream.received());
                out.flush();
            }
        }
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
        String line = switch (e) {
            case FailoverEvent.PathDown d -> "detected: adapter " + d.adapter() + " is down (" + d.cause() + ")";
            case FailoverEvent.Holding h -> "holding the application's posts; moving QP " + h.qpNumber() + " from adapter " + h.fromAdapter()
                    + " to adapter " + h.toAdapter();
            case FailoverEvent.Reported r -> "REPORT sent: LAST RELIABLY SENT " + r.lastReliablySent() + ", LAST RELIABLY RECEIVED "
                    + r.lastReliablyReceived();
            case FailoverEvent.PeerReported r -> "REPORT of the peer: LAST RELIABLY SENT " + r.lastReliablySent()
                    + ", LAST RELIABLY RECEIVED " + r.lastReliablyReceived();
            case FailoverEvent.Moved m -> "moved: " + m.rebuilt() + " receive completions rebuilt, " + m.receivesReposted()
                    + " receives, " + m.sendsReposted() + " Sends and " + m.writesReposted() + " Writes re-posted";
            case FailoverEvent.Migrated m -> {
                if (node.equals("a")) {
                    migrations++;
                    migratedAt = m.atNanos();
                }
                yield String.format(Locale.ROOT, "MIGRATED to adapter %d: the application runs again after a pause of %.1f ms",
                        m.toAdapter(), m.pauseNanos() / 1e6);
            }
            case FailoverEvent.PathUp u -> "adapter " + u.adapter() + " works again";
            case FailoverEvent.PathRestored r -> "path on adapter " + r.adapter() + " set up again: a backup once more";
            case FailoverEvent.NoPathLeft n -> "no path left: " + n.cause();
        };
        if (!quiet) {
            out.printf(Locale.ROOT, "  %6.0f ms  %s: %s%n", (e.atNanos() - start) / 1e6, node, line);
            out.flush();
        }
    }

    private void say(String line) {
        if (!quiet) {
            out.printf(Locale.ROOT, "  %6.0f ms  %s%n", (System.nanoTime() - start) / 1e6, line);
            out.flush();
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
        arena.close();
    }
}

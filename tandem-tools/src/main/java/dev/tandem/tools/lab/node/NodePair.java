package dev.tandem.tools.lab.node;

import dev.tandem.failover.check.StreamHalves;
import dev.tandem.failover.check.Verdict;
import dev.tandem.tools.lab.Lab;
import dev.tandem.tools.lab.Topology;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A checked stream across two hosts of a lab: node a (the sender) on host 1 and node b (the receiver) on
 * host 2, each a {@link LabNode} process with a fail-over device over all of its host's adapters. The
 * owner drives it from one thread: {@link #sendUpTo}, {@link #await} (which reads both nodes' reports and
 * hands every fail-over event to the listener), and {@link #finish}, which joins the two halves into the
 * {@link Verdict}. Every wait is bounded; {@link #close()} stops both processes.
 */
public final class NodePair implements AutoCloseable {
    /** How long a node's JVM may take to start, open its device and connect, on a busy machine. */
    public static final Duration START = Duration.ofSeconds(45);
    /** How long an ended stream waits for the other side's flushes when nothing moves (as {@code CheckedStream}). */
    static final Duration BROKEN_GRACE = Duration.ofSeconds(1);

    private final NodeProcess a;
    private final NodeProcess b;
    private final Consumer<NodeReport.Event> listener;
    private final List<NodeReport.Event> events = new ArrayList<>();
    private NodeReport.SenderState sender;
    private NodeReport.ReceiverState receiver;
    private int port = -1;
    private int connected;
    private long senderReports;
    private long receiverReports;

    private NodePair(NodeProcess a, NodeProcess b, Consumer<NodeReport.Event> listener) {
        this.a = a;
        this.b = b;
        this.listener = listener;
    }

    /**
     * Starts a and b on hosts 1 and 2 of {@code lab} (their JVMs side by side), connects them, and returns once
     * both reported their first half. {@code listener} hears every fail-over event of either node, on the
     * owner's thread; {@code heartbeatMs} and {@code misses} configure the devices' silent-link detection.
     */
    public static NodePair start(Lab lab, int heartbeatMs, int misses, Consumer<NodeReport.Event> listener) throws IOException {
        NodeProcess a = NodeProcess.start(lab, 1, "sender", "a", List.of(device(lab, 1, "a", heartbeatMs, misses)));
        NodeProcess b;
        try {
            b = NodeProcess.start(lab, 2, "receiver", "b", List.of(device(lab, 2, "b", heartbeatMs, misses),
                    lab.address(2, 1).getHostAddress()));
        } catch (IOException | RuntimeException e) {
            a.close();
            throw e;
        }
        NodePair pair = new NodePair(a, b, listener);
        try {
            pair.await(() -> pair.port < 0, START, "b to listen");
            a.send("connect " + lab.address(2, 1).getHostAddress() + " " + pair.port);
            pair.await(() -> pair.connected < 2 || pair.sender == null || pair.receiver == null, START, "a and b to connect");
            return pair;
        } catch (RuntimeException e) {
            pair.close();
            throw e;
        }
    }

    /** The fail-over device of node {@code node} on host {@code host}: every adapter of the host, the lab's topology. */
    static String device(Lab lab, int host, String node, int heartbeatMs, int misses) {
        StringBuilder d = new StringBuilder("failover://");
        for (int k = 1; k <= lab.plan().adapters(); k++) {
            d.append(k == 1 ? "" : "+").append(lab.address(host, k).getHostAddress());
        }
        return d.append("?node=").append(node).append("&topology=").append(lab.plan().topology() == Topology.SWITCHED ? "switched" : "switchless")
                .append("&heartbeatMs=").append(heartbeatMs).append("&misses=").append(misses).toString();
    }

    /** Lets a send until {@code messages} were sent in all. */
    public void sendUpTo(long messages) {
        a.send("send " + messages);
    }

    /** a's latest report (never null once started). */
    public NodeReport.SenderState sender() {
        return sender;
    }

    /** b's latest report (never null once started). */
    public NodeReport.ReceiverState receiver() {
        return receiver;
    }

    /** Every fail-over event either node reported so far, in the order read. */
    public List<NodeReport.Event> events() {
        return List.copyOf(events);
    }

    /** The adapter of a's host that carries the connection, counted from 1 as the lab counts (h1.aK). */
    public int carryingAdapter() {
        return sender.adapter() + 1;
    }

    /**
     * The adapter that carries a's sends now, counted from 1 as the lab counts (h1.aK): from a report a printed
     * after this call (it waits for two more, {@code bound} at most), since the fail-over device may move the
     * send path back once a failed path was restored.
     */
    public int carryingAdapterNow(Duration bound) {
        long after = senderReports + 2;
        await(() -> senderReports < after, bound, "a fresh report of a");
        return carryingAdapter();
    }

    /**
     * The adapter of b's host where a's sends arrive now (b's receive path: cross paths let it differ from
     * a's), counted from 1 as the lab counts (h2.aK): from a report b printed after this call.
     */
    public int receivingAdapterNow(Duration bound) {
        long after = receiverReports + 2;
        await(() -> receiverReports < after, bound, "a fresh report of b");
        return receiver.adapter() + 1;
    }

    /** The latest halves of a and b, joined. */
    public StreamHalves halves() {
        return new StreamHalves(sender.half(), receiver.half());
    }

    /**
     * Reads both nodes' reports while {@code condition} holds, for {@code bound} at most.
     *
     * @throws LabNodeException when the bound passed (saying {@code what} it waited for), a node failed, or one ended
     *                          while still needed
     */
    public void await(BooleanSupplier condition, Duration bound, String what) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (true) {
            pump();
            if (!condition.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new LabNodeException("waited " + bound.toMillis() + " ms for " + what + "; " + where() + "; events: " + recentEvents()
                        + "; a " + a.exitAndErrors() + "; b " + b.exitAndErrors());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    /** Waits, as {@link #await}, for {@code n} messages sent and as many arrived. */
    public void awaitStreamed(long n, Duration bound) {
        await(() -> sender.half().sent() < n || receiver.half().messages() < n, bound, n + " messages sent and received");
    }

    /** The index in {@link #events()} of the first event of {@code kind} on {@code node} from {@code from} on, waiting as {@link #await}. */
    public int awaitEvent(String node, String kind, int from, Duration bound) {
        int[] found = {-1};
        await(() -> {
            for (int i = Math.max(from, 0); i < events.size(); i++) {
                if (events.get(i).node().equals(node) && events.get(i).kind().equals(kind)) {
                    found[0] = i;
                    return false;
                }
            }
            return true;
        }, bound, kind + " on node " + node);
        return found[0];
    }

    /**
     * Lets a send {@code messages} in all and waits until the stream is over: every message reaped on both
     * sides; or a completion in error ended it and both sides drained (or stayed quiet for a second); or
     * nothing moved for {@code stall}. Returns the joined verdict with how it ended.
     */
    public Verdict finish(long messages, Duration stall) {
        sendUpTo(messages);
        long lastMoved = System.nanoTime();
        long seen = -1;
        while (true) {
            pump();
            StreamHalves h = halves();
            boolean current = h.sender().limit() >= messages || h.broken(); // a's report came after it read the command
            if (current && h.finished()) {
                return h.verdict(h.broken() ? Verdict.Ending.BROKEN : Verdict.Ending.COMPLETE);
            }
            long now = System.nanoTime();
            long progress = h.sender().limit() + h.sender().sent() + h.receiver().messages() + h.sender().credits().next()
                    + h.receiver().creditsSucceeded();
            if (progress != seen) {
                seen = progress;
                lastMoved = now;
            } else if (h.broken() && now - lastMoved > BROKEN_GRACE.toNanos()) {
                return h.verdict(Verdict.Ending.BROKEN);
            } else if (now - lastMoved > stall.toNanos()) {
                return h.verdict(Verdict.Ending.STALLED);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    /** Adapter {@code k} of node {@code node} ("a" or "b") gets a fatal error, as a PCI error would give it. */
    public void adapterFails(String node, int k) {
        (node.equals("a") ? a : b).send("fatal " + k);
    }

    /** Adapter {@code k} of node {@code node} is reset after its fatal error (the node waits for it, bounded). */
    public void adapterReset(String node, int k) {
        (node.equals("a") ? a : b).send("reset " + k);
    }

    /** Kills b at once (SIGKILL): the peer process dies mid-stream. */
    public void killReceiver() {
        b.kill();
    }

    /** Where the two stand, in words, for messages. */
    public String where() {
        String s = sender == null ? "a: no report yet" : String.format(Locale.ROOT, "a: %d sent, QP %s on adapter %d", sender.half().sent(),
                sender.qpState(), sender.adapter());
        String r = receiver == null ? "b: no report yet" : String.format(Locale.ROOT, "b: %d received, QP %s on adapter %d",
                receiver.half().messages(), receiver.qpState(), receiver.adapter());
        return s + (a.isAlive() ? "" : " (" + a.exitAndErrors() + ")") + "; " + r + (b.isAlive() ? "" : " (" + b.exitAndErrors() + ")");
    }

    /** The last fail-over events in words, for messages. */
    private String recentEvents() {
        List<String> told = new ArrayList<>();
        for (NodeReport.Event e : events.subList(Math.max(0, events.size() - 24), events.size())) {
            told.add(e.node() + ": " + e.text());
        }
        return told.isEmpty() ? "none" : String.join("; ", told);
    }

    /** Reads what both nodes reported since last time. */
    private void pump() {
        for (NodeProcess p : List.of(a, b)) {
            boolean alive = p.isAlive(); // before the read: what a dead node printed is all read below
            for (NodeReport r : p.poll()) {
                switch (r) {
                    case NodeReport.Ready ready -> {
                        if (p == b) {
                            port = ready.port(); // a's ready says 0: it listens nowhere
                        }
                    }
                    case NodeReport.Connected _ -> connected++;
                    case NodeReport.SenderState s -> {
                        sender = s;
                        senderReports++;
                    }
                    case NodeReport.ReceiverState s -> {
                        receiver = s;
                        receiverReports++;
                    }
                    case NodeReport.Event e -> {
                        events.add(e);
                        listener.accept(e);
                    }
                    case NodeReport.Failed f -> throw new LabNodeException("node " + f.node() + " failed: " + f.what() + "; "
                            + p.exitAndErrors());
                }
            }
            if (!alive && (p == a || connected < 2)) {
                throw new LabNodeException("node " + p.name() + " ended: " + p.exitAndErrors());
            }
        }
    }

    /** Whether a node process still runs (after {@link #close()}, none may). */
    public boolean anyAlive() {
        return a.isAlive() || b.isAlive();
    }

    /** Stops both nodes (stdin closed; killed if they linger). */
    @Override
    public void close() {
        try {
            a.close();
        } finally {
            b.close();
        }
    }
}

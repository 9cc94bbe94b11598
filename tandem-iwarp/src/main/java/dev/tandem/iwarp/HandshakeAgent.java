package dev.tandem.iwarp;

import dev.tandem.iwarp.PendingHandshakes.Closed;
import dev.tandem.iwarp.ras.AdapterRas;
import dev.tandem.iwarp.wire.MpaException;
import dev.tandem.iwarp.wire.MpaFrame;
import dev.tandem.iwarp.wire.NodeKeyBlock;
import dev.tandem.provider.ErrorCause;
import dev.tandem.ras.TraceLevel;
import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.PeerIncarnation;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The thread of one listener ({@code tandem-<adapter>-listen-<port>}): accepts TCP connections and
 * reads their MPA Requests without blocking, all on one selector, so that no client, however idle or
 * slow, holds up another. Each handshake has a deadline, and the listener bounds how many are pending
 * in all and per source address ({@link HandshakeLimits}, bookkept by {@link PendingHandshakes}).
 * Whatever it closes is counted in the adapter's RAS counters and recorded in its error log.
 *
 * <p>A complete Request goes on, on a channel in blocking mode again, to the listener's accept queue;
 * one Tandem refuses (markers, an Enhanced Request without the IRD/ORD words, a malformed node key block,
 * or, on an adapter with node keys, a key of an earlier life of the presenting node) is answered with a
 * reject Reply; a malformed one, or one whose sender closed the connection already (it gave up waiting),
 * is dropped without a Reply, as siw does. The listener owns the agent: its {@link #stop} ends the thread,
 * which closes every handshake still pending.
 *
 * <p>While the adapter's {@link Link} is down the agent takes no connection, reads nothing and answers
 * nothing: it stops watching its sockets and waits for the link (or its stop). Connections that arrive
 * meanwhile wait in the kernel's backlog; once the link is up they are served as usual, and the Request of
 * an initiator that gave up meanwhile is dropped as closed by its peer.
 */
final class HandshakeAgent {
    /** Connections taken per cycle before pending handshakes get their turn again (an accept storm cannot starve them). */
    private static final int ACCEPTS_PER_CYCLE = 256;
    /** How long accepting pauses after accept itself failed (e.g. out of file descriptors), so the thread does not spin. */
    private static final long ACCEPT_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long STOP_WAIT_MILLIS = TimeUnit.SECONDS.toMillis(5);

    /** One connection between its TCP connect and its complete MPA Request. */
    private static final class Handshake {
        final SocketChannel channel;
        final InetSocketAddress remote;
        final MpaFrameReader reader = new MpaFrameReader(false);
        SelectionKey key;

        Handshake(SocketChannel channel, InetSocketAddress remote) {
            this.channel = channel;
            this.remote = remote;
        }

        @Override
        public String toString() {
            return "handshake from " + remote;
        }
    }

    /**
     * A complete Request whose channel waits for its selection key to be deregistered before it can block
     * again; {@code peer} is the life its node key block presented, null when none was admitted.
     */
    private record Completed(Handshake handshake, MpaFrame request, PeerIncarnation peer) {
    }

    private final IwarpDevice device;
    private final AdapterRas ras;
    private final IwListener listener;
    private final Link link;
    /** Wakes the thread when the link changes. */
    private final Runnable wakeOnLinkChange;
    /** Reads the byte after a complete Request: the end of the stream if its sender gave up. */
    private final ByteBuffer probe = ByteBuffer.allocate(1);
    /** The thread stopped watching its sockets for the downed link and must watch them again once it is up. */
    private boolean heldDown;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final SelectionKey acceptKey;
    private final PendingHandshakes<Handshake> pending;
    private final Thread thread;
    /** The causes this agent records, worked out once: under attack it records one per closed handshake. */
    private final ErrorCause timedOut;
    private final ErrorCause sourceFull;
    private final ErrorCause listenerFull;
    private final ErrorCause malformed;
    private final ErrorCause sentBeforeReply;
    private final ErrorCause refusedMarkers;
    private final ErrorCause refusedNoIrdOrd;
    private final String at;
    /** Requests completed in this cycle: handed on once the next selection deregistered their keys. */
    private List<Completed> cancelled = new ArrayList<>();
    private long acceptsResumeAt;
    private boolean acceptsPaused;
    /** Pending handshakes last added to the adapter's {@code handshakes pending} gauge. */
    private int reportedPending;
    private volatile boolean running = true;
    /** The adapter failed: the thread ends by resetting its handshakes (RST), not closing them in order. */
    private volatile boolean resetting;

    /** Starts the thread on {@code server}, a bound listen socket that the listener closes after {@link #stop}. */
    HandshakeAgent(IwarpDevice device, IwListener listener, ServerSocketChannel server, HandshakeLimits limits) throws IOException {
        this.device = device;
        this.ras = device.ras();
        this.listener = listener;
        this.server = server;
        this.pending = new PendingHandshakes<>(limits);
        this.link = device.link();
        this.selector = Selector.open();
        this.wakeOnLinkChange = selector::wakeup;
        try {
            server.configureBlocking(false);
            this.acceptKey = server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            selector.close();
            throw e;
        }
        InetSocketAddress local = listener.localAddress();
        this.at = "listener " + local + ": ";
        this.timedOut = ErrorCause.of(at + "closed a handshake: no complete MPA Request within " + limits.timeout().toMillis()
                + " ms of the TCP connect");
        this.sourceFull = ErrorCause.of(at + "closed the oldest pending handshake of a source address at its limit of "
                + limits.maxPendingPerSource() + " for a newer connection");
        this.listenerFull = ErrorCause.of(at + "closed the oldest pending handshake of the busiest source: the listener is at "
                + "its limit of " + limits.maxPending() + " pending handshakes");
        this.malformed = ErrorCause.of(at + "malformed MPA Request dropped");
        this.sentBeforeReply = ErrorCause.of(at + "dropped an MPA Request whose sender sent more before the Reply");
        this.refusedMarkers = ErrorCause.of(at + "refused an MPA Request: it asked for MPA markers, which Tandem declines");
        this.refusedNoIrdOrd = ErrorCause.of(at + "refused an MPA Request: it is Enhanced but carries no IRD/ORD words (RFC 6581)");
        this.thread = Thread.ofPlatform().daemon().name("tandem-" + device.name() + "-listen-" + local.getPort()).unstarted(this::run);
        link.watch(wakeOnLinkChange);
        thread.start();
    }

    boolean isAlive() {
        return thread.isAlive();
    }

    /** Ends the thread (it closes every pending handshake) and waits up to 5 s for it. */
    void stop() {
        stop(false);
    }

    /**
     * Ends the thread and waits up to 5 s for it; with {@code reset} (the adapter failed) every pending
     * handshake is reset, so that its initiator fails at once instead of waiting for an MPA Reply.
     */
    void stop(boolean reset) {
        resetting = reset;
        running = false;
        selector.wakeup();
        try {
            if (!thread.join(Duration.ofMillis(STOP_WAIT_MILLIS))) {
                device.logger().log(System.Logger.Level.WARNING, thread.getName() + " did not stop within " + STOP_WAIT_MILLIS + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        try {
            while (running) {
                if (link.isDown()) {
                    holdWhileLinkDown();
                    continue;
                }
                if (heldDown) {
                    watchAgain();
                }
                long now = System.nanoTime();
                if (cancelled.isEmpty()) {
                    selector.select(waitMillis(now));
                } else {
                    selector.selectNow();
                }
                if (link.isDown()) {
                    // it went down while the thread waited: what the selection found waits for the link
                    continue;
                }
                // the selection deregistered the keys cancelled in the last cycle: those channels may block again
                List<Completed> ready = cancelled;
                cancelled = new ArrayList<>();
                for (Completed c : ready) {
                    handOn(c);
                }
                now = System.nanoTime();
                serve(now);
                for (Closed<Handshake> c : pending.expire(now)) {
                    drop(c);
                }
                resumeAcceptsIfDue(now);
                reportPending();
            }
        } catch (IOException | RuntimeException | Error e) {
            listener.agentFailed(e);
        } finally {
            shutDown();
        }
    }

    /**
     * The link is down: stops watching every socket (bytes that arrive must not end the wait, or the thread
     * would spin) and waits until the link changes or the listener stops; both wake the selector.
     */
    private void holdWhileLinkDown() throws IOException {
        if (!heldDown) {
            heldDown = true;
            for (SelectionKey key : selector.keys()) {
                if (key.isValid()) {
                    key.interestOps(0);
                }
            }
        }
        selector.select();
        selector.selectedKeys().clear();
    }

    /** The link is up again: watches the listening socket (unless accepts are paused) and every pending handshake. */
    private void watchAgain() {
        heldDown = false;
        for (SelectionKey key : selector.keys()) {
            if (key.isValid()) {
                key.interestOps(key == acceptKey ? (acceptsPaused ? 0 : SelectionKey.OP_ACCEPT) : SelectionKey.OP_READ);
            }
        }
    }

    /** Milliseconds to the next deadline or resumption of accepts (rounded up), 0 (no limit) when there is none. */
    private long waitMillis(long now) {
        long nanos = pending.nanosToNextDeadline(now);
        if (acceptsPaused) {
            long resume = Math.max(0, acceptsResumeAt - now);
            nanos = nanos < 0 ? resume : Math.min(nanos, resume);
        }
        return nanos < 0 ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos + 999_999));
    }

    private void serve(long now) {
        Iterator<SelectionKey> it = selector.selectedKeys().iterator();
        while (it.hasNext() && !link.isDown()) {
            SelectionKey key = it.next();
            it.remove();
            if (!key.isValid()) {
                continue;
            }
            if (key == acceptKey) {
                acceptAll(now);
            } else {
                Handshake h = (Handshake) key.attachment();
                if (readRequest(h)) {
                    pending.remove(h);
                }
            }
        }
    }

    private void acceptAll(long now) {
        for (int i = 0; i < ACCEPTS_PER_CYCLE && !link.isDown(); i++) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException e) {
                running = false;
                return;
            } catch (IOException e) {
                acceptFailed(e, now);
                return;
            }
            if (ch == null) {
                return;
            }
            start(ch, now);
        }
    }

    /** A new connection: reads what it sent already; if its Request is not complete yet, it becomes pending. */
    private void start(SocketChannel ch, long now) {
        Handshake h;
        try {
            ch.configureBlocking(false);
            h = new Handshake(ch, (InetSocketAddress) ch.getRemoteAddress());
        } catch (IOException e) {
            Mpa.closeQuietly(ch);
            return;
        }
        if (readRequest(h)) {
            return;
        }
        for (Closed<Handshake> c : pending.admit(h, h.remote.getAddress(), now)) {
            drop(c);
        }
        try {
            h.key = ch.register(selector, SelectionKey.OP_READ, h);
        } catch (ClosedChannelException e) {
            pending.remove(h);
        }
    }

    /**
     * Reads what arrived of {@code h}'s Request and acts on it once complete.
     *
     * @return true when the handshake is over (handed on, refused, malformed or gone), false while it waits for more
     */
    private boolean readRequest(Handshake h) {
        MpaFrame request;
        try {
            request = h.reader.read(h.channel);
        } catch (MpaException e) {
            ras.mpaRequestsMalformed.incrementAtomic();
            close(h, malformed, h.remote + ": " + e.getMessage());
            return true;
        } catch (IOException e) {
            // a port scanner, a health check, or a client that gave up: nothing to answer
            ras.handshakesClosedByPeer.incrementAtomic();
            Mpa.closeQuietly(h.channel);
            return true;
        }
        if (request == null) {
            return false;
        }
        // a Request Tandem refuses is answered whatever followed it; only one it would hand on must
        // still have its sender, waiting and silent
        Refusal refusal = refusal(request);
        if (refusal != null) {
            ras.mpaRequestsRefused.incrementAtomic();
            // recorded before the Reply goes out: whoever sees the refusal sees its log entry
            device.recordError(h.remote, refusal.why());
            writeQuietly(h.channel, refusal.reply());
            Mpa.closeQuietly(h.channel);
            return true;
        }
        PeerIncarnation peer;
        try {
            peer = admit(request, h.remote);
        } catch (ConnectionException e) {
            // a key of an earlier life (counted and recorded by the exchange): refused, and the Reply says why
            ras.mpaRequestsRefused.incrementAtomic();
            writeQuietly(h.channel, Mpa.reply(request, device.config().crc(), 0, 0, device.nodeKeys().own().refusing(), new byte[0], true));
            Mpa.closeQuietly(h.channel);
            return true;
        }
        if (senderGone(h)) {
            return true;
        }
        if (h.key == null) {
            handOn(new Completed(h, request, peer));
        } else {
            h.key.cancel();
            cancelled.add(new Completed(h, request, peer));
        }
        return true;
    }

    /**
     * Admits the node key block of {@code request} when this adapter has node keys: the peer's life, or
     * null when either side has none (a block reaching an adapter without keys is stripped and ignored).
     *
     * @throws ConnectionException when the block presents a key of an earlier life of its node
     */
    private PeerIncarnation admit(MpaFrame request, InetSocketAddress remote) {
        NodeKeyExchange keys = device.nodeKeys();
        NodeKeyBlock block = keys == null ? null : request.nodeKeyBlock();
        return block == null ? null : keys.admit(block, remote);
    }

    /**
     * True when {@code h}'s sender is gone (it closed after its Request: it gave up waiting, say while this
     * adapter's link was down) or broke the protocol by sending more before the Reply; then {@code h} is
     * closed, counted and (a protocol error) recorded. An initiator sends nothing after its Request until
     * the Reply came (RFC 5044), so the one byte read here is never one the connection needs.
     */
    private boolean senderGone(Handshake h) {
        int n;
        try {
            n = h.channel.read(probe.clear());
        } catch (IOException e) {
            n = -1;
        }
        if (n < 0) {
            ras.handshakesClosedByPeer.incrementAtomic();
            Mpa.closeQuietly(h.channel);
            return true;
        }
        if (n > 0) {
            ras.mpaRequestsMalformed.incrementAtomic();
            close(h, sentBeforeReply, h.remote);
            return true;
        }
        return false;
    }

    /** Why a Request is refused, and the reject Reply that says so. */
    private record Refusal(MpaFrame reply, ErrorCause why) {
    }

    /**
     * The refusal of a Request Tandem refuses (as siw refuses it; and one whose node key block is
     * malformed, whether or not this adapter checks keys), or null for one it takes.
     */
    private Refusal refusal(MpaFrame request) {
        try {
            request.enhancedParameters();
        } catch (MpaException e) {
            return new Refusal(new MpaFrame(true, false, request.crc(), true, false, request.revision(), new byte[0]), refusedNoIrdOrd);
        }
        if (request.markers()) {
            return new Refusal(Mpa.reply(request, device.config().crc(), 0, 0, null, new byte[0], true), refusedMarkers);
        }
        try {
            request.nodeKeyBlock();
        } catch (MpaException e) {
            return new Refusal(Mpa.reply(request, device.config().crc(), 0, 0, null, new byte[0], true),
                    ErrorCause.of(at + "refused an MPA Request: " + e.getMessage()));
        }
        return null;
    }

    /** Gives a complete Request, on its channel in blocking mode again, to the listener's accept queue. */
    private void handOn(Completed c) {
        Handshake h = c.handshake();
        try {
            h.channel.configureBlocking(true);
            h.channel.setOption(StandardSocketOptions.TCP_NODELAY, true);   // for the Reply and the connection's FPDUs
        } catch (IOException e) {
            ras.handshakesClosedByPeer.incrementAtomic();
            Mpa.closeQuietly(h.channel);
            return;
        }
        listener.offer(new IwConnectionRequest(device, h.channel, c.request(), h.remote, c.peer()));
    }

    /** Closes a pending handshake the limits gave up on; counted, traced and recorded once per cause. */
    private void drop(Closed<Handshake> c) {
        ErrorCause why = switch (c.reason()) {
            case TIMED_OUT -> {
                ras.handshakesTimedOut.incrementAtomic();
                yield timedOut;
            }
            case SOURCE_FULL -> {
                ras.handshakesClosedSourceLimit.incrementAtomic();
                yield sourceFull;
            }
            case LISTENER_FULL -> {
                ras.handshakesClosedListenerLimit.incrementAtomic();
                yield listenerFull;
            }
        };
        if (ras.cm.enabled(TraceLevel.INTERNALS)) {
            ras.cm.record(TraceLevel.INTERNALS, AdapterRas.HANDSHAKE_DROP, listener.localAddress().getPort(), c.reason().ordinal(),
                    c.handshake().reader.received(), 0, c.source().getHostAddress());
        }
        close(c.handshake(), why, c.handshake().remote);
    }

    /**
     * Closes {@code h} and records {@code why} in the error log, one entry per distinct cause however
     * many clients cause it; {@code detail} (the client, what it sent) is kept from the first.
     */
    private void close(Handshake h, ErrorCause why, Object detail) {
        device.recordError(detail, why);
        Mpa.closeQuietly(h.channel);
    }

    private static void writeQuietly(SocketChannel ch, MpaFrame frame) {
        try {
            ch.write(ByteBuffer.wrap(frame.encode()));   // a fresh socket's send buffer takes a frame of at most 532 bytes at once
        } catch (IOException ignored) {
            // the peer is gone; it is closed next anyway
        }
    }

    /** Accept failed (out of file descriptors, say): pause accepting briefly so the thread does not spin, and go on serving. */
    private void acceptFailed(IOException e, long now) {
        ras.acceptFailures.incrementAtomic();
        device.recordError(listener, "listener " + listener.localAddress() + ": accepting a TCP connection failed, pausing accepts for "
                + TimeUnit.NANOSECONDS.toMillis(ACCEPT_PAUSE_NANOS) + " ms: " + e.getMessage());
        acceptKey.interestOps(0);
        acceptsPaused = true;
        acceptsResumeAt = now + ACCEPT_PAUSE_NANOS;
    }

    private void resumeAcceptsIfDue(long now) {
        if (acceptsPaused && now - acceptsResumeAt >= 0 && acceptKey.isValid()) {
            acceptKey.interestOps(SelectionKey.OP_ACCEPT);
            acceptsPaused = false;
        }
    }

    private void reportPending() {
        int n = pending.size();
        if (n != reportedPending) {
            ras.handshakesPending.addAtomic(n - reportedPending);
            reportedPending = n;
        }
    }

    private void end(SocketChannel ch, boolean reset) {
        if (reset) {
            link.reset(ch);
        } else {
            link.close(ch);
        }
    }

    /** The thread ends: every handshake still pending or waiting to be handed on is closed (once the link is up). */
    private void shutDown() {
        link.unwatch(wakeOnLinkChange);
        // a downed link holds the closes back: the initiators must not learn of it before the link is up
        boolean reset = resetting;
        for (Handshake h : pending.clear()) {
            end(h.channel, reset);
        }
        for (Completed c : cancelled) {
            end(c.handshake().channel, reset);
        }
        cancelled.clear();
        reportPending();
        try {
            // deregisters the channels: only now does java.nio close them (a reset one sends its RST now)
            selector.close();
        } catch (IOException e) {
            device.logger().log(System.Logger.Level.DEBUG, "closing the selector of " + thread.getName() + ": " + e.getMessage());
        }
    }
}

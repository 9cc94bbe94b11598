package dev.tandem.iwarp;

import dev.tandem.ras.ErrorEntry;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.ConnectionTimeoutException;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A listener that idle, slow and greedy clients cannot block: well-behaved connects succeed while
 * hostile handshakes are pending, and what the limits close is the right handshake, counted and
 * recorded. Nothing here is timed: each wait is for a condition, with a bound.
 */
@Timeout(60)
class ListenerUnderAttackTest {
    private static final String SERVER_IP = "127.0.1.40";
    private static final String CLIENT_IP = "127.0.1.41";
    private static final String RAW_SERVER_IP = "127.0.1.42";
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** An Enhanced MPA Request, IRD = ORD = 1, no private data beyond the IRD/ORD words. */
    private static final byte[] REQUEST = mpa("MPA ID Req Frame");
    private static final byte[] REPLY = mpa("MPA ID Rep Frame");

    private final List<AutoCloseable> opened = new ArrayList<>();

    private static byte[] mpa(String key) {
        return ByteBuffer.allocate(24).put(key.getBytes(StandardCharsets.US_ASCII)).put((byte) 0x10).put((byte) 2).putShort((short) 4)
                .putShort((short) 1).putShort((short) 1).array();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    private <T extends AutoCloseable> T open(T c) {
        opened.add(c);
        return c;
    }

    private IwarpDevice server(HandshakeLimits limits) {
        return open(IwarpDevice.open(IwarpConfig.of(SERVER_IP).withHandshakeLimits(limits)));
    }

    private static HandshakeLimits limits(Duration timeout, int perListener, int perSource) {
        return new HandshakeLimits(timeout, perListener, perSource);
    }

    /** A raw TCP client from {@code sourceIp} that sends {@code bytes} (maybe none) and then waits. */
    private SocketChannel hostile(String sourceIp, InetSocketAddress to, byte[] bytes) {
        try {
            SocketChannel ch = open(SocketChannel.open());
            ch.bind(new InetSocketAddress(sourceIp, 0));
            ch.connect(to);
            ch.write(ByteBuffer.wrap(bytes));
            return ch;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + WAIT.toSeconds() + " s: " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private static void awaitPending(IwarpDevice d, int n) {
        await(n + " handshakes pending on " + d.name() + " (now " + d.ras().handshakesPending.get() + ")",
                () -> d.ras().handshakesPending.get() == n);
    }

    /** Blocks (bounded) until the listener ends {@code ch}'s stream: true for EOF or reset. */
    private static boolean closedByListener(SocketChannel ch) {
        try {
            ch.socket().setSoTimeout((int) WAIT.toMillis());
            byte[] b = new byte[64];
            while (true) {
                int n = ch.socket().getInputStream().read(b);
                if (n < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true;   // reset
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** True while {@code ch} is open at the listener's end too: nothing to read, no end of stream. */
    private static boolean stillOpen(SocketChannel ch) {
        try {
            ch.configureBlocking(false);
            int n = ch.read(ByteBuffer.allocate(64));
            ch.configureBlocking(true);
            return n == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** One well-behaved connect from the client adapter; the application on the server side accepts it. */
    private void connectWell(IwarpDevice client, IwarpDevice server, Listener listener) throws Exception {
        ProtectionDomain pdC = open(client.allocateProtectionDomain());
        CompletionQueue cqC = open(client.createCompletionQueue(4));
        QueuePair qpC = open(pdC.createQueuePair(QueuePairConfig.of(cqC)));
        ProtectionDomain pdS = open(server.allocateProtectionDomain());
        CompletionQueue cqS = open(server.createCompletionQueue(4));
        QueuePair qpS = open(pdS.createQueuePair(QueuePairConfig.of(cqS)));
        Thread app = Thread.ofPlatform().name("test-accept").start(() -> {
            ConnectionRequest r = listener.accept(WAIT);
            r.accept(qpS, new byte[0]);
        });
        qpC.connect(listener.localAddress(), "good".getBytes(StandardCharsets.US_ASCII), WAIT);
        assertThat(app.join(WAIT)).as("the application's accept returned").isTrue();
        assertThat(qpC.state()).isEqualTo(QpState.RTS);
        assertThat(qpS.state()).isEqualTo(QpState.RTS);
    }

    private static List<ErrorEntry> errorsOf(IwarpDevice d) {
        return d.ras().errors.snapshot().stream().filter(e -> e.cause().startsWith(d.name() + ": ")).toList();
    }

    @Test
    void wellBehavedClientsConnectWhileIdleAndSlowClientsHoldTheListener() throws Exception {
        IwarpDevice server = server(limits(Duration.ofMinutes(5), 4096, 64));
        IwarpDevice client = open(IwarpDevice.open(IwarpConfig.of(CLIENT_IP)));
        Listener listener = open(server.listen(new InetSocketAddress(SERVER_IP, 0), 4));
        List<SocketChannel> hostile = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            hostile.add(hostile("127.0.5." + (i + 1), listener.localAddress(), new byte[0]));
        }
        for (int i = 0; i < 10; i++) {
            // half a Request: the key and nothing more, as a slow client would have sent it so far
            hostile.add(hostile("127.0.6." + (i + 1), listener.localAddress(), java.util.Arrays.copyOf(REQUEST, 16)));
        }
        awaitPending(server, 40);

        for (int i = 0; i < 5; i++) {
            connectWell(client, server, listener);
        }
        assertThat(server.ras().handshakesPending.get()).as("the hostile handshakes are still pending").isEqualTo(40);
        assertThat(server.ras().handshakesTimedOut.get() + server.ras().handshakesClosedSourceLimit.get()
                + server.ras().handshakesClosedListenerLimit.get()).as("nothing was closed for room or time").isZero();

        assertThat(((IwListener) listener).isAcceptorAlive()).as("the listener's thread while it listens").isTrue();
        listener.close();
        for (SocketChannel ch : hostile) {
            assertThat(closedByListener(ch)).as("a pending handshake is closed with its listener").isTrue();
        }
        assertThat(server.ras().handshakesPending.get()).isZero();
        assertThat(((IwListener) listener).isAcceptorAlive()).as("the listener's thread after close").isFalse();
    }

    @Test
    void anIdleHandshakeIsClosedAtItsDeadlineCountedAndRecorded() {
        IwarpDevice server = server(limits(Duration.ofMillis(200), 16, 16));
        Listener listener = open(server.listen(new InetSocketAddress(SERVER_IP, 0), 1));
        SocketChannel idle = hostile("127.0.5.1", listener.localAddress(), new byte[0]);
        assertThat(closedByListener(idle)).as("the idle connection is closed").isTrue();
        await("the timeout counted", () -> server.ras().handshakesTimedOut.get() == 1);
        assertThat(errorsOf(server)).anySatisfy(e ->
                assertThat(e.cause()).contains("no complete MPA Request within # ms of the TCP connect"));
        awaitPending(server, 0);
    }

    @Test
    void aTricklingClientIsClosedAtTheDeadlineHoweverSteadilyItSends() throws Exception {
        IwarpDevice server = server(limits(Duration.ofMillis(300), 16, 16));
        Listener listener = open(server.listen(new InetSocketAddress(SERVER_IP, 0), 1));
        SocketChannel trickler = hostile("127.0.5.2", listener.localAddress(), new byte[0]);
        AtomicInteger sent = new AtomicInteger();
        ScheduledExecutorService pace = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().name("test-trickle").unstarted(r));
        open(pace::shutdownNow);
        // one byte every 50 ms: each read makes progress, but the whole Request would take 1.2 s
        pace.scheduleAtFixedRate(() -> {
            int i = sent.get();
            if (i < REQUEST.length) {
                try {
                    trickler.write(ByteBuffer.wrap(REQUEST, i, 1));
                    sent.incrementAndGet();
                } catch (IOException e) {
                    // closed by the listener: the test below sees it
                }
            }
        }, 0, 50, TimeUnit.MILLISECONDS);
        assertThat(closedByListener(trickler)).as("the trickling connection is closed").isTrue();
        assertThat(sent.get()).as("bytes of the %d-byte Request sent before the listener closed it", REQUEST.length)
                .isLessThan(REQUEST.length);
        await("the timeout counted", () -> server.ras().handshakesTimedOut.get() == 1);
    }

    @Test
    void aSourceAtItsBoundLosesItsOldestHandshakeAndOthersStillConnect() throws Exception {
        IwarpDevice server = server(limits(Duration.ofMinutes(5), 16, 2));
        IwarpDevice client = open(IwarpDevice.open(IwarpConfig.of(CLIENT_IP)));
        Listener listener = open(server.listen(new InetSocketAddress(SERVER_IP, 0), 1));
        SocketChannel first = hostile("127.0.5.3", listener.localAddress(), new byte[0]);
        awaitPending(server, 1);
        SocketChannel second = hostile("127.0.5.3", listener.localAddress(), new byte[0]);
        awaitPending(server, 2);
        SocketChannel third = hostile("127.0.5.3", listener.localAddress(), new byte[0]);
        assertThat(closedByListener(first)).as("the source's oldest handshake is closed").isTrue();
        await("the source limit counted", () -> server.ras().handshakesClosedSourceLimit.get() == 1);
        awaitPending(server, 2);
        assertThat(stillOpen(second)).as("the second handshake is still pending").isTrue();
        assertThat(stillOpen(third)).as("the newest handshake is pending").isTrue();
        connectWell(client, server, listener);
        assertThat(errorsOf(server)).anySatisfy(e -> assertThat(e.cause()).contains("source address at its limit"));
    }

    @Test
    void aFullListenerClosesTheOldestHandshakeOfTheBusiestSource() {
        IwarpDevice server = server(limits(Duration.ofMinutes(5), 3, 3));
        Listener listener = open(server.listen(new InetSocketAddress(SERVER_IP, 0), 1));
        SocketChannel lone = hostile("127.0.5.4", listener.localAddress(), new byte[0]);
        awaitPending(server, 1);
        SocketChannel busy1 = hostile("127.0.5.5", listener.localAddress(), new byte[0]);
        awaitPending(server, 2);
        SocketChannel busy2 = hostile("127.0.5.5", listener.localAddress(), new byte[0]);
        awaitPending(server, 3);
        SocketChannel newcomer = hostile("127.0.5.6", listener.localAddress(), new byte[0]);
        assertThat(closedByListener(busy1)).as("the busiest source's oldest handshake is closed").isTrue();
        await("the listener limit counted", () -> server.ras().handshakesClosedListenerLimit.get() == 1);
        assertThat(stillOpen(lone)).as("the oldest handshake of all, alone from its source, stays").isTrue();
        assertThat(stillOpen(busy2)).isTrue();
        assertThat(stillOpen(newcomer)).isTrue();
        assertThat(server.ras().handshakesPending.get()).isEqualTo(3);
    }

    @Test
    void aClientThatLeavesBeforeItsRequestIsForgottenAndCounted() throws IOException {
        IwarpDevice server = server(limits(Duration.ofMinutes(5), 16, 16));
        Listener listener = open(server.listen(new InetSocketAddress(SERVER_IP, 0), 1));
        SocketChannel scanner = hostile("127.0.5.8", listener.localAddress(), new byte[0]);
        awaitPending(server, 1);
        scanner.close();
        await("the departed client counted", () -> server.ras().handshakesClosedByPeer.get() == 1);
        awaitPending(server, 0);
        assertThat(server.ras().handshakesTimedOut.get()).isZero();
    }

    /** Open file descriptors of this process (Linux), or -1 where /proc is missing. */
    private static long openFileDescriptors() {
        java.io.File[] fds = new java.io.File("/proc/self/fd").listFiles();
        return fds == null ? -1 : fds.length;
    }

    @Test
    void aClosedListenerGivesBackItsPortAndItsFileDescriptors() throws IOException {
        IwarpDevice server = server(limits(Duration.ofMinutes(5), 16, 16));
        IwarpDevice client = open(IwarpDevice.open(IwarpConfig.of(CLIENT_IP)));
        int port;
        try (Listener first = server.listen(new InetSocketAddress(SERVER_IP, 0), 1)) {
            port = first.localAddress().getPort();
        }
        long before = openFileDescriptors();
        for (int i = 0; i < 20; i++) {
            try (Listener l = server.listen(new InetSocketAddress(SERVER_IP, port), 1);
                 SocketChannel pendingClient = SocketChannel.open()) {
                pendingClient.bind(new InetSocketAddress("127.0.5.9", 0));
                pendingClient.connect(l.localAddress());
                awaitPending(server, 1);
            }
            awaitPending(server, 0);
        }
        long after = openFileDescriptors();
        org.junit.jupiter.api.Assumptions.assumeTrue(before >= 0, "no /proc/self/fd to count file descriptors");
        assertThat(after).as("file descriptors after 20 listeners on port %d, each with a pending handshake, were closed", port)
                .isLessThanOrEqualTo(before + 2);
        Listener again = open(server.listen(new InetSocketAddress(SERVER_IP, port), 1));
        assertThat(again.localAddress().getPort()).isEqualTo(port);
        try {
            connectWell(client, server, again);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void malformedAndRefusedRequestsAreCounted() {
        IwarpDevice server = server(HandshakeLimits.DEFAULT);
        Listener listener = open(server.listen(new InetSocketAddress(SERVER_IP, 0), 1));
        byte[] badKey = REQUEST.clone();
        badKey[0] = 'X';
        assertThat(closedByListener(hostile("127.0.5.7", listener.localAddress(), badKey))).isTrue();
        await("the malformed Request counted", () -> server.ras().mpaRequestsMalformed.get() == 1);
        byte[] markers = REQUEST.clone();
        markers[16] |= (byte) 0x80;
        assertThat(closedByListener(hostile("127.0.5.7", listener.localAddress(), markers))).isTrue();
        await("the refused Request counted", () -> server.ras().mpaRequestsRefused.get() == 1);
        assertThat(errorsOf(server)).anySatisfy(e -> assertThat(e.cause()).contains("malformed MPA Request dropped"))
                .anySatisfy(e -> assertThat(e.cause()).contains("asked for MPA markers"));
    }

    /** A raw responder that takes one connection, reads the Request, and answers with {@code reply} one byte every 50 ms. */
    private Thread slowResponder(ServerSocketChannel raw, byte[] reply) {
        return Thread.ofPlatform().name("test-slow-responder").start(() -> {
            try (SocketChannel ch = raw.accept()) {
                ByteBuffer request = ByteBuffer.allocate(REQUEST.length + 4);
                while (request.hasRemaining() && ch.read(request) >= 0) {
                    // the initiator's Request: IRD/ORD words and 4 bytes of private data
                }
                for (int i = 0; i < reply.length; i++) {
                    ch.write(ByteBuffer.wrap(reply, i, 1));
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                }
                ch.read(ByteBuffer.allocate(1));   // until the initiator closes
            } catch (IOException e) {
                // the initiator gave up and closed: expected
            }
        });
    }

    @Test
    void theInitiatorsDeadlineCoversTheWholeReplyNotEachRead() throws Exception {
        IwarpDevice client = open(IwarpDevice.open(IwarpConfig.of(CLIENT_IP)));
        ServerSocketChannel raw = open(ServerSocketChannel.open());
        raw.bind(new InetSocketAddress(InetAddress.getByName(RAW_SERVER_IP), 0));
        Thread responder = slowResponder(raw, REPLY);   // the whole Reply takes 1.2 s, each byte 50 ms
        ProtectionDomain pd = open(client.allocateProtectionDomain());
        CompletionQueue cq = open(client.createCompletionQueue(4));
        QueuePair qp = open(pd.createQueuePair(QueuePairConfig.of(cq)));
        assertThatThrownBy(() -> qp.connect((InetSocketAddress) raw.getLocalAddress(), "good".getBytes(StandardCharsets.US_ASCII),
                Duration.ofMillis(300)))
                .isInstanceOf(ConnectionTimeoutException.class).hasMessageContaining("no complete MPA Reply").hasMessageContaining("300 ms");
        assertThat(client.ras().connectTimeouts.get()).isEqualTo(1);
        assertThat(errorsOf(client)).anySatisfy(e -> assertThat(e.cause()).contains("no complete MPA Reply within # ms"));
        assertThat(qp.state()).as("the QP stays unconnected").isIn(QpState.INIT, QpState.RESET);
        assertThat(responder.join(WAIT)).as("the responder saw the initiator close").isTrue();
    }
}

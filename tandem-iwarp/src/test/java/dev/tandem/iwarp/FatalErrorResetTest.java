package dev.tandem.iwarp;

import dev.tandem.provider.IdleStrategyKind;
import dev.tandem.provider.ThreadingMode;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.ConnectionTimeoutException;
import dev.tandem.verbs.DeviceUnavailableException;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.PortState;
import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A failed adapter resets its connections at the fatal error, not when it is later closed or reset: the
 * peer's QP fails as a lost transport (TRANSPORT, QP_FATAL, its work flushed) while the failed adapter
 * stays open and un-reset. The RST must not wait for the engine's selector to deregister the socket
 * (java.nio closes a registered non-blocking channel with SO_LINGER 0 only then, and sends nothing before),
 * so the failed adapter's engine spins here (BUSY_SPIN): it never selects, on a dedicated or the shared thread.
 * A failed adapter's listener and connects in progress end at the fatal error too: handshakes reset, new
 * connects refused, a connect waiting for its MPA Reply failed with the adapter's failure.
 */
@Timeout(60)
class FatalErrorResetTest {
    private static final int RECEIVES = 3;

    @RepeatedTest(3)
    void aSpinningEngineResetsTheConnectionAtTheFatalError() throws Exception {
        fatalErrorResetsThePeer(c -> c.withIdle(IdleStrategyKind.BUSY_SPIN));
    }

    @Test
    void theSharedEngineResetsTheConnectionAtTheFatalError() throws Exception {
        fatalErrorResetsThePeer(c -> c.withThreading(ThreadingMode.SHARED).withIdle(IdleStrategyKind.BUSY_SPIN));
    }

    @Test
    void anInjectedResetOfASpinningEngineReachesThePeerAtOnce() throws Exception {
        try (IwarpDevice a = IwarpDevice.open(IwarpConfig.of("127.0.1.1").withIdle(IdleStrategyKind.BUSY_SPIN));
             IwarpDevice b = IwarpDevice.open(IwarpConfig.of("127.0.1.2"));
             LoopbackPair p = new LoopbackPair(a, b, 4096, false)) {
            postReceives(p);
            assertThat(a.resetConnections()).isEqualTo(1);

            assertPeerReset(p);
        }
    }

    @Test
    void aFailedAdaptersListenerResetsItsHandshakesRefusesConnectsAndSaysWhy() throws Exception {
        try (IwarpDevice a = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
             IwarpDevice b = IwarpDevice.open(IwarpConfig.of("127.0.1.2"));
             Listener l = a.listen(new InetSocketAddress("127.0.1.1", 0), 4);
             SocketChannel half = SocketChannel.open()) {
            // a TCP connection whose MPA Request never comes: a handshake pending on A's listener
            half.bind(new InetSocketAddress("127.0.1.2", 0));
            half.connect(l.localAddress());
            awaitTrue("a handshake pending on " + a.name(), () -> a.ras().handshakesPending.get() == 1);

            a.injectFatalError("test: PCI error");

            half.socket().setSoTimeout((int) LoopbackPair.WAIT.toMillis());
            assertThatThrownBy(() -> half.socket().getInputStream().read())
                    .as("the pending handshake is reset at the fatal error, not left to time out")
                    .isInstanceOf(SocketException.class).hasMessageContaining("reset");
            assertThatThrownBy(() -> l.accept(LoopbackPair.WAIT)).isInstanceOf(DeviceUnavailableException.class)
                    .hasMessageContaining("adapter " + a.name() + " failed (injected: test: PCI error)");
            ProtectionDomain pd = b.allocateProtectionDomain();
            CompletionQueue cq = b.createCompletionQueue(4);
            QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq));
            long start = System.nanoTime();
            assertThatThrownBy(() -> qp.connect(l.localAddress(), new byte[0], Duration.ofSeconds(30)))
                    .as("a connect to the failed adapter's listener is refused").isInstanceOf(ConnectionException.class)
                    .isNotInstanceOf(ConnectionTimeoutException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to the refusal").isLessThan(LoopbackPair.WAIT);
            qp.close();
            cq.close();
            pd.close();
        }
    }

    @Test
    void aFailedAdapterWhoseLinkIsDownEndsItsHandshakesOnlyOnceTheLinkIsUp() throws Exception {
        try (IwarpDevice a = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
             Listener l = a.listen(new InetSocketAddress("127.0.1.1", 0), 4);
             SocketChannel half = SocketChannel.open()) {
            half.bind(new InetSocketAddress("127.0.1.2", 0));
            half.connect(l.localAddress());
            awaitTrue("a handshake pending on " + a.name(), () -> a.ras().handshakesPending.get() == 1);
            a.linkDown();

            a.injectFatalError("test: PCI error");

            half.socket().setSoTimeout(300);
            assertThatThrownBy(() -> half.socket().getInputStream().read()).as("a downed link tells the initiator nothing")
                    .isInstanceOf(SocketTimeoutException.class);
            a.linkUp();
            half.socket().setSoTimeout((int) LoopbackPair.WAIT.toMillis());
            assertThat(half.socket().getInputStream().read()).as("the close held back by the link, once it is up").isEqualTo(-1);
        }
    }

    @Test
    void aConnectInProgressOnAFailedAdapterFailsAtOnceWithTheCause() throws Exception {
        try (IwarpDevice a = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
             IwarpDevice b = IwarpDevice.open(IwarpConfig.of("127.0.1.2"));
             Listener l = b.listen(new InetSocketAddress("127.0.1.2", 0), 4)) {
            ProtectionDomain pd = a.allocateProtectionDomain();
            CompletionQueue cq = a.createCompletionQueue(4);
            QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq));
            CompletableFuture<byte[]> connect = CompletableFuture.supplyAsync(
                    () -> qp.connect(l.localAddress(), new byte[0], Duration.ofSeconds(30)));
            // B holds the request unanswered: A waits for its MPA Reply
            ConnectionRequest request = l.accept(LoopbackPair.WAIT);

            a.injectFatalError("test: PCI error");

            assertThatThrownBy(() -> connect.get(LoopbackPair.WAIT.toMillis(), TimeUnit.MILLISECONDS))
                    .as("the connect in progress fails at the fatal error, not at its timeout")
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(DeviceUnavailableException.class)
                    .hasMessageContaining("adapter " + a.name() + " failed (injected: test: PCI error)");
            assertThat(qp.state()).isEqualTo(QpState.ERROR);
            request.reject(new byte[0]);
            qp.close();
            cq.close();
            pd.close();
        }
    }

    @Test
    void aConnectWaitingForADownedLinkFailsAtOnceWhenItsAdapterFails() throws Exception {
        try (IwarpDevice a = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
             IwarpDevice b = IwarpDevice.open(IwarpConfig.of("127.0.1.2"));
             Listener l = b.listen(new InetSocketAddress("127.0.1.2", 0), 4)) {
            ProtectionDomain pd = a.allocateProtectionDomain();
            CompletionQueue cq = a.createCompletionQueue(4);
            QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq));
            a.linkDown();
            Connector connector = Connector.start(qp, l);
            try {
                connector.awaitWaiting();

                a.injectFatalError("test: PCI error");

                assertThat(connector.outcome()).as("the connect waiting for the link fails at the fatal error, not at its timeout")
                        .isInstanceOf(DeviceUnavailableException.class)
                        .hasMessageContaining("adapter " + a.name() + " failed (injected: test: PCI error)");
            } finally {
                connector.stop();
            }
            qp.close();
            cq.close();
            pd.close();
        }
    }

    /** A named thread connecting {@code qp} to a listener with a 30 s timeout; its owner, the test, ends it. */
    static final class Connector {
        private final Thread thread;
        private final CompletableFuture<byte[]> result = new CompletableFuture<>();

        private Connector(QueuePair qp, Listener l) {
            this.thread = Thread.ofPlatform().daemon().name("test-connect-qp-" + qp.qpNumber()).unstarted(() -> {
                try {
                    result.complete(qp.connect(l.localAddress(), new byte[0], Duration.ofSeconds(30)));
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            });
        }

        static Connector start(QueuePair qp, Listener l) {
            Connector c = new Connector(qp, l);
            c.thread.start();
            return c;
        }

        /** Waits (bounded) until the connect waits for the link. */
        void awaitWaiting() {
            awaitTrue(thread.getName() + " waiting for the link", () -> thread.getState() == Thread.State.TIMED_WAITING);
        }

        /** What the connect threw, within {@link LoopbackPair#WAIT} (long before its own timeout). */
        Throwable outcome() throws InterruptedException {
            try {
                result.get(LoopbackPair.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                return e.getCause();
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError(thread.getName() + " still connecting after " + LoopbackPair.WAIT, e);
            }
            throw new AssertionError(thread.getName() + " connected");
        }

        /** Waits for the thread to end (its connect ends by its 30 s timeout at the latest) and checks it did. */
        void stop() throws InterruptedException {
            thread.join(TimeUnit.SECONDS.toMillis(35));
            assertThat(thread.isAlive()).as(thread.getName() + " ended").isFalse();
        }
    }

    private static void awaitTrue(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + LoopbackPair.WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(what + ": not within " + LoopbackPair.WAIT);
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Fails adapter A (configured by {@code tweakA}) and checks that B's QP fails as a reset connection
     * while A is still open and failed.
     */
    private static void fatalErrorResetsThePeer(UnaryOperator<IwarpConfig> tweakA) throws Exception {
        try (IwarpDevice a = IwarpDevice.open(tweakA.apply(IwarpConfig.of("127.0.1.1")));
             IwarpDevice b = IwarpDevice.open(IwarpConfig.of("127.0.1.2"));
             LoopbackPair p = new LoopbackPair(a, b, 4096, false)) {
            postReceives(p);
            a.injectFatalError("test: PCI error");

            assertPeerReset(p);
            assertThat(a.isClosed()).as("adapter A stays open").isFalse();
            assertThat(a.portState()).as("adapter A is not reset").isEqualTo(PortState.FATAL);
        }
    }

    private static void postReceives(LoopbackPair p) {
        for (int i = 0; i < RECEIVES; i++) {
            p.qpB.postReceive(new ReceiveRequest(20 + i, new Sge(p.mrB, 0, 64)));
        }
    }

    /** B's QP fails as a lost transport (QP_FATAL event, TRANSPORT failure) and its receives are flushed. */
    private static void assertPeerReset(LoopbackPair p) {
        LoopbackPair.awaitState(p.qpB, QpState.ERROR, "QP B, the peer of the failed adapter, before A is closed or reset");
        QpFailure f = p.qpB.failure().orElseThrow(() -> new AssertionError("QP B in ERROR tells no failure"));
        assertThat(f.kind()).as("QP B's failure " + f).isEqualTo(QpFailure.Kind.TRANSPORT);
        assertThat(f.detail()).as("QP B's failure detail").startsWith("connection lost: ").containsIgnoringCase("reset");
        AsyncEvent e = LoopbackPair.awaitFailureEvent(p.b, "B's event for the reset connection");
        assertThat(e.type()).isEqualTo(AsyncEventType.QP_FATAL);
        assertThat(e.resource()).isSameAs(p.qpB);
        for (int i = 0; i < RECEIVES; i++) {
            WorkCompletion wc = LoopbackPair.awaitOne(p.cqB);
            assertThat(wc.wrId()).isEqualTo(20 + i);
            assertThat(wc.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
        }
    }
}

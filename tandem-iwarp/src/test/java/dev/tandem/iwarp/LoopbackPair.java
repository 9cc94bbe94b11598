package dev.tandem.iwarp;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/** Two adapters on loopback with one connected QP pair and a registered region on each side. */
final class LoopbackPair implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(5);
    final IwarpDevice a;
    final IwarpDevice b;
    final ProtectionDomain pdA;
    final ProtectionDomain pdB;
    final CompletionQueue cqA;
    final CompletionQueue cqB;
    final MemoryRegion mrA;
    final MemoryRegion mrB;
    final QueuePair qpA;
    final QueuePair qpB;
    final Arena arena = Arena.ofShared();

    private final boolean ownsDevices;

    LoopbackPair(UnaryOperator<IwarpConfig> tweak, int regionSize) throws Exception {
        this(IwarpDevice.open(tweak.apply(IwarpConfig.of("127.0.1.1"))), IwarpDevice.open(tweak.apply(IwarpConfig.of("127.0.1.2"))),
                regionSize, true);
    }

    /** A connected pair on adapters the caller keeps ({@code ownsDevices} false) or hands over. */
    LoopbackPair(IwarpDevice a, IwarpDevice b, int regionSize, boolean ownsDevices) throws Exception {
        this.a = a;
        this.b = b;
        this.ownsDevices = ownsDevices;
        pdA = a.allocateProtectionDomain();
        pdB = b.allocateProtectionDomain();
        cqA = a.createCompletionQueue(256);
        cqB = b.createCompletionQueue(256);
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.MW_BIND;
        mrA = pdA.registerMemory(arena.allocate(regionSize, 64), access);
        mrB = pdB.registerMemory(arena.allocate(regionSize, 64), access);
        qpA = pdA.createQueuePair(QueuePairConfig.of(cqA));
        qpB = pdB.createQueuePair(QueuePairConfig.of(cqB));
        try (Listener l = b.listen(new InetSocketAddress("127.0.1.2", 0), 4)) {
            CompletableFuture<byte[]> server = CompletableFuture.supplyAsync(() -> {
                ConnectionRequest r = l.accept(WAIT);
                byte[] pd = r.privateData();
                r.accept(qpB, new byte[] {9, 8});
                return pd;
            });
            byte[] reply = qpA.connect(l.localAddress(), new byte[] {1, 2, 3}, WAIT);
            assertThat(reply).containsExactly(9, 8);
            assertThat(server.get(5, TimeUnit.SECONDS)).containsExactly(1, 2, 3);
        }
    }

    /** Connects {@code client} (on adapter a) to {@code server} (on adapter b) through a listener on b. */
    void connect(QueuePair client, QueuePair server) throws Exception {
        try (Listener l = b.listen(new InetSocketAddress("127.0.1.2", 0), 4)) {
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> l.accept(WAIT).accept(server, new byte[0]));
            client.connect(l.localAddress(), new byte[0], WAIT);
            accepted.get(5, TimeUnit.SECONDS);
        }
    }

    /** Waits (bounded by {@link #WAIT}) until {@code qp} is in {@code state}. */
    static void awaitState(QueuePair qp, QpState state, String what) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (qp.state() != state) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(what + ": state " + qp.state() + " after " + WAIT + ", expected " + state);
            }
            Thread.onSpinWait();
        }
    }

    static WorkCompletion awaitOne(CompletionQueue cq) {
        WorkCompletion[] wc = WorkCompletion.array(1);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (cq.poll(wc) == 1) {
                return wc[0];
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion on " + cq + " within " + WAIT);
    }

    /** The first async event of {@code device} other than COMMUNICATION_ESTABLISHED, within {@link #WAIT}. */
    static dev.tandem.verbs.AsyncEvent awaitFailureEvent(dev.tandem.verbs.RdmaDevice device, String what) {
        dev.tandem.verbs.AsyncEvent e;
        do {
            e = device.pollAsyncEvent(WAIT);
            assertThat(e).as(what).isNotNull();
        } while (e.type() == dev.tandem.verbs.AsyncEventType.COMMUNICATION_ESTABLISHED);
        return e;
    }

    /** Closes the resources of side A (as a cooperative owner does after a fatal adapter error). */
    void closeSideA() {
        qpA.close();
        mrA.close();
        cqA.close();
        pdA.close();
    }

    /** Closes every resource of the pair (closing is idempotent), then the adapters if it owns them. */
    @Override
    public void close() {
        closeSideA();
        qpB.close();
        mrB.close();
        cqB.close();
        pdB.close();
        if (ownsDevices) {
            a.close();
            b.close();
        }
        arena.close();
    }
}

package dev.tandem.bench;

import dev.tandem.iwarp.IwarpConfig;
import dev.tandem.iwarp.IwarpDevice;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;

import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Two software adapters on loopback with one connected QP pair, a region and a CQ on each side. */
final class LoopbackLink implements AutoCloseable {
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
    private final Arena arena = Arena.ofShared();

    LoopbackLink(boolean crc, int regionSize) throws Exception {
        a = IwarpDevice.open(IwarpConfig.of("127.0.1.1").withCrc(crc));
        b = IwarpDevice.open(IwarpConfig.of("127.0.1.2").withCrc(crc));
        pdA = a.allocateProtectionDomain();
        pdB = b.allocateProtectionDomain();
        cqA = a.createCompletionQueue(1024);
        cqB = b.createCompletionQueue(1024);
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
        mrA = pdA.registerMemory(arena.allocate(regionSize, 64), access);
        mrB = pdB.registerMemory(arena.allocate(regionSize, 64), access);
        qpA = pdA.createQueuePair(QueuePairConfig.of(cqA).withDepths(512, 512));
        qpB = pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(512, 512));
        try (Listener l = b.listen(new InetSocketAddress("127.0.1.2", 0), 1)) {
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(
                    () -> l.accept(Duration.ofSeconds(10)).accept(qpB, new byte[0]));
            qpA.connect(l.localAddress(), new byte[0], Duration.ofSeconds(10));
            accepted.get(10, TimeUnit.SECONDS);
        }
    }

    /** Closes the QPs, regions, CQs and PDs, then the adapters (closing an adapter over open resources is a leak). */
    @Override
    public void close() {
        qpA.close();
        qpB.close();
        mrA.close();
        mrB.close();
        cqA.close();
        cqB.close();
        pdA.close();
        pdB.close();
        a.close();
        b.close();
        arena.close();
    }
}

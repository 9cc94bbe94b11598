package dev.tandem.failover.check;

import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.RdmaDevices;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Two devices opened by name in this process, a queue pair on each connected a to b, and a checked
 * stream from a to b over them, made before the connection so that its receives are posted first.
 */
final class StreamPair implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(10);

    final RdmaDevice a;
    final RdmaDevice b;
    final QueuePair qa;
    final QueuePair qb;
    final CheckedStream stream;
    private final ProtectionDomain pdA;
    private final ProtectionDomain pdB;
    private final CompletionQueue cqA;
    private final CompletionQueue cqB;

    /** Devices {@code a} and {@code b} (b listens on {@code listenIp}), a stream of {@code shape}. */
    StreamPair(String a, String b, String listenIp, StreamShape shape) throws InterruptedException {
        this.a = RdmaDevices.open(a);
        this.b = RdmaDevices.open(b);
        pdA = this.a.allocateProtectionDomain();
        pdB = this.b.allocateProtectionDomain();
        cqA = this.a.createCompletionQueue(128);
        cqB = this.b.createCompletionQueue(128);
        qa = pdA.createQueuePair(QueuePairConfig.of(cqA).withDepths(32, 32));
        qb = pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(32, 64));
        stream = CheckedStream.between(qa, qb, shape);
        try (Listener l = this.b.listen(new InetSocketAddress(listenIp, 0), 1)) {
            AtomicReference<RuntimeException> failed = new AtomicReference<>();
            Thread acceptor = Thread.ofPlatform().name("stream-pair-accept").start(() -> {
                try {
                    ConnectionRequest r = l.accept(WAIT);
                    r.accept(qb, new byte[0]);
                } catch (RuntimeException e) {
                    failed.set(e);
                }
            });
            qa.connect(l.localAddress(), new byte[0], WAIT);
            acceptor.join(WAIT.toMillis());
            if (acceptor.isAlive() || failed.get() != null) {
                throw new IllegalStateException("b did not accept within " + WAIT, failed.get());
            }
        }
    }

    @Override
    public void close() {
        try {
            stream.close();
            qa.close();
            qb.close();
            cqA.close();
            cqB.close();
            pdA.close();
            pdB.close();
        } finally {
            try {
                b.close();
            } finally {
                a.close();
            }
        }
    }
}

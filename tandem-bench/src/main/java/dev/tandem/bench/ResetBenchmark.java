package dev.tandem.bench;

import dev.tandem.iwarp.IwarpConfig;
import dev.tandem.iwarp.IwarpDevice;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasConfig;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResetReport;
import dev.tandem.verbs.Sge;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Issue 3's recovery target: the time from a fatal adapter error to the adapter usable again, with a
 * cooperative owner. Each shot injects the fault into adapter a (connected to b, with receives
 * posted), which dumps the process's state, fails and flushes the QP and raises DEVICE_FATAL; an
 * owner thread waiting for that event closes a's resources; the timed thread calls
 * {@code reset(1 s)}, which returns once a takes calls again. The shot's time is fault to usable.
 * Set-up (connecting a fresh QP pair) is not timed. Dumps go to a temporary directory.
 * <pre>
 * java -cp "tandem-bench/target/tandem-bench-0.1.0-SNAPSHOT.jar:tandem-bench/target/lib/*" \
 *      org.openjdk.jmh.Main ResetBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, batchSize = 1)
@Measurement(iterations = 30, batchSize = 1)
@Fork(1)
public class ResetBenchmark {
    private static final Duration WAIT = Duration.ofSeconds(10);

    /** The two adapters (for the whole run) and one connection with a cooperative owner (per shot). */
    @State(Scope.Thread)
    public static class Adapters {
        Path dir;
        IwarpDevice a;
        IwarpDevice b;
        Arena arena;
        ProtectionDomain pdA;
        ProtectionDomain pdB;
        CompletionQueue cqA;
        CompletionQueue cqB;
        CompletableFuture<Void> owner;

        @Setup(Level.Trial)
        public void open() throws IOException {
            dir = Files.createTempDirectory("tandem-reset-bench");
            ProcessRas.configure(RasConfig.defaults().withDir(dir).withDeleteOnClose(true));
            a = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
            b = IwarpDevice.open(IwarpConfig.of("127.0.1.2"));
        }

        @Setup(Level.Invocation)
        public void connect() throws Exception {
            arena = Arena.ofShared();
            pdA = a.allocateProtectionDomain();
            pdB = b.allocateProtectionDomain();
            cqA = a.createCompletionQueue(64);
            cqB = b.createCompletionQueue(64);
            MemoryRegion mrA = pdA.registerMemory(arena.allocate(4096, 64), Access.LOCAL_WRITE);
            QueuePair qpA = pdA.createQueuePair(QueuePairConfig.of(cqA));
            QueuePair qpB = pdB.createQueuePair(QueuePairConfig.of(cqB));
            try (Listener l = b.listen(new InetSocketAddress("127.0.1.2", 0), 1)) {
                CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> l.accept(WAIT).accept(qpB, new byte[0]));
                qpA.connect(l.localAddress(), new byte[0], WAIT);
                accepted.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            for (int i = 0; i < 8; i++) {
                qpA.postReceive(new ReceiveRequest(i, new Sge(mrA, 0, 64)));
            }
            // the cooperative owner: releases a's resources as soon as it learns the adapter failed
            owner = CompletableFuture.runAsync(() -> {
                AsyncEvent e;
                do {
                    e = a.pollAsyncEvent(WAIT);
                } while (e != null && e.type() != AsyncEventType.DEVICE_FATAL);
                pdA.close();
                cqA.close();
            });
        }

        @TearDown(Level.Invocation)
        public void disconnect() throws Exception {
            owner.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            pdB.close();
            cqB.close();
            while (b.pollAsyncEvent(Duration.ZERO) != null) {
                // b saw its connection end; nothing to do about it
            }
            while (a.pollAsyncEvent(Duration.ZERO) != null) {
                // PORT_ACTIVE after the reset
            }
            arena.close();
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            a.close();
            b.close();
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> {
                    try {
                        Files.delete(p);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
        }
    }

    @Benchmark
    public ResetReport faultToUsable(Adapters s) {
        s.a.injectFatalError("benchmark: simulated PCI error");
        ResetReport r = s.a.reset(Duration.ofSeconds(1));
        if (!r.rogueResources().isEmpty()) {
            throw new IllegalStateException("the cooperative owner did not release in time: " + r.rogueResources());
        }
        return r;
    }
}

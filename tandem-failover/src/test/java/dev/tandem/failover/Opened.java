package dev.tandem.failover;

import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.RdmaDevice;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** What a test opened, closed in reverse order after it; and a connection made through a listener that closes once connected. */
final class Opened implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(10);
    private final List<AutoCloseable> open = new ArrayList<>();

    /** Keeps {@code c} to close after the test. */
    <T extends AutoCloseable> T keep(T c) {
        open.add(c);
        return c;
    }

    /** Connects {@code qa} to {@code qb}: {@code b} listens on {@code ip}, accepts onto {@code qb}, and stops listening. */
    static void connect(QueuePair qa, RdmaDevice b, String ip, QueuePair qb) throws Exception {
        try (Listener l = b.listen(new InetSocketAddress(ip, 0), 1)) {
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                ConnectionRequest r = l.accept(WAIT);
                r.accept(qb, new byte[0]);
            });
            qa.connect(l.localAddress(), new byte[0], WAIT);
            accepted.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        if (qa instanceof FailoverQueuePair fa && qb instanceof FailoverQueuePair fb) {
            awaitAllPaths(fa, fb);
        }
    }

    /** Waits (bounded by {@link #WAIT}) until {@code done} holds; fails naming {@code what} it waited for. */
    static void await(String what, BooleanSupplier done) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("waited " + WAIT.toSeconds() + " s for " + what);
            }
            Thread.onSpinWait();
        }
    }

    /** Waits (bounded) until both ends have every path their topology gives them (the backups join after connect returns). */
    static void awaitAllPaths(FailoverQueuePair fa, FailoverQueuePair fb) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (fa.livePaths() < fa.pathCount() || fb.livePaths() < fb.pathCount()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("paths set up: a has " + fa.livePaths() + ", b has " + fb.livePaths() + " of " + fa.pathCount());
            }
            Thread.onSpinWait();
        }
    }

    @Override
    public void close() {
        RuntimeException failed = null;
        for (int i = open.size() - 1; i >= 0; i--) {
            try {
                open.get(i).close();
            } catch (Exception e) {
                failed = failed == null ? new IllegalStateException("closing " + open.get(i) + " failed", e) : failed;
            }
        }
        open.clear();
        if (failed != null) {
            throw failed;
        }
    }
}

package dev.tandem.iwarp.wire;

import dev.tandem.iwarp.IwarpConfig;
import dev.tandem.iwarp.IwarpDevice;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A Tandem adapter listening on one address, and an application thread that accepts each
 * connection request onto a fresh QP with its own CQ, a region with remote write and read
 * ({@link Accepted#region}) and a region without remote write ({@link Accepted#readOnly}); the
 * accept's private data is both rkeys, big-endian, so that a raw peer knows them.
 */
final class Responder implements AutoCloseable {
    static final Duration WAIT = RawPeer.WAIT;
    static final int REGION_LENGTH = 8192;
    static final int READ_ONLY_LENGTH = 4096;

    /** One accepted connection. */
    record Accepted(ConnectionRequest request, QueuePair qp, CompletionQueue cq, MemoryRegion region, MemoryRegion readOnly) {
    }

    final IwarpDevice device;
    final ProtectionDomain pd;
    final Listener listener;
    final Arena arena = Arena.ofShared();
    /** Every connection accepted so far (their resources are closed with the responder). */
    private final List<Accepted> accepted = java.util.Collections.synchronizedList(new ArrayList<>());
    /** Every async event polled from the adapter so far, in order. */
    final List<AsyncEvent> events = new ArrayList<>();
    private final ExecutorService app = Executors.newSingleThreadExecutor(
            r -> Thread.ofPlatform().daemon().name("test-application").unstarted(r));

    Responder(String ip, boolean crc) {
        device = IwarpDevice.open(IwarpConfig.of(ip).withCrc(crc));
        pd = device.allocateProtectionDomain();
        listener = device.listen(new InetSocketAddress(ip, 0), 8);
    }

    InetSocketAddress address() {
        return listener.localAddress();
    }

    /** The application thread takes the next connection request and accepts it. */
    Future<Accepted> acceptNext() {
        return app.submit(() -> {
            ConnectionRequest r = listener.accept(WAIT);
            CompletionQueue cq = device.createCompletionQueue(512);
            MemoryRegion region = pd.registerMemory(arena.allocate(REGION_LENGTH, 64),
                    Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
            MemoryRegion readOnly = pd.registerMemory(arena.allocate(READ_ONLY_LENGTH, 64), Access.LOCAL_WRITE | Access.REMOTE_READ);
            QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq));
            Accepted a = new Accepted(r, qp, cq, region, readOnly);
            accepted.add(a);
            r.accept(qp, ByteBuffer.allocate(8).putInt(region.rkey()).putInt(readOnly.rkey()).array());
            return a;
        });
    }

    static <T> T await(Future<T> f, String what) {
        try {
            return f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(what + " did not finish within " + WAIT, e);
        } catch (ExecutionException e) {
            throw new AssertionError(what + " failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for " + what, e);
        }
    }

    /** The next completion on {@code cq}, waiting at most {@link #WAIT}. */
    static WorkCompletion awaitCompletion(CompletionQueue cq, String what) {
        WorkCompletion[] wc = WorkCompletion.array(1);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no completion for " + what + " within " + WAIT);
            }
            if (cq.await(wc, Duration.ofNanos(left)) == 1) {
                return new WorkCompletion().copyFrom(wc[0]);
            }
        }
    }

    /**
     * The first async event about {@code resource} other than COMMUNICATION_ESTABLISHED, waiting at
     * most {@link #WAIT}; every event polled meanwhile is kept in {@link #events}.
     */
    AsyncEvent awaitEvent(Object resource, String what) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        int from = events.size();
        while (true) {
            long left = deadline - System.nanoTime();
            AsyncEvent e = left > 0 ? device.pollAsyncEvent(Duration.ofNanos(left)) : null;
            if (e == null) {
                throw new AssertionError("no async event for " + what + " within " + WAIT + "; events seen: "
                        + events.subList(from, events.size()));
            }
            events.add(e);
            if (e.resource() == resource && e.type() != AsyncEventType.COMMUNICATION_ESTABLISHED) {
                return e;
            }
        }
    }

    /** Polls whatever events are queued right now into {@link #events}. */
    List<AsyncEvent> drainEvents() {
        AsyncEvent e;
        while ((e = device.pollAsyncEvent(Duration.ZERO)) != null) {
            events.add(e);
        }
        return events;
    }

    @Override
    public void close() {
        app.shutdownNow();
        listener.close();
        synchronized (accepted) {
            for (Accepted a : accepted) {
                a.qp().close();
                a.region().close();
                a.readOnly().close();
                a.cq().close();
            }
        }
        pd.close();
        device.close();
        arena.close();
    }
}

package dev.tandem.verbs.conformance;

import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.DeviceOptions;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static dev.tandem.verbs.CompletionOpcode.RDMA_READ;
import static dev.tandem.verbs.CompletionStatus.REM_ACCESS_ERR;
import static dev.tandem.verbs.CompletionStatus.SUCCESS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Base of every conformance class: the provider hook, per-test set-up and tear-down, and the
 * helpers tests share (endpoints, connecting, bounded waits).
 *
 * <p>Every test gets a new {@link ProviderFixture}; tear-down closes it (which closes every
 * adapter and so every resource) and then frees the test's memory. Tests never sleep: each wait
 * is bounded by {@link ProviderFixture#timeout()} and fails naming what it awaited. The few checks
 * that something does <em>not</em> happen watch for {@link #QUIET} after the event that would
 * have caused it has demonstrably happened.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(ProviderInFailures.class)
public abstract class ConformanceBase {
    /**
     * How long a test gives something that must not happen the chance to show, where no witness
     * can prove it would have shown already (a waiter that must stay blocked); such checks also
     * record what happened first, so a late wrong wake still fails.
     */
    protected static final Duration QUIET = Duration.ofMillis(300);

    /** The provider under test: a new fixture for each test. */
    protected abstract ProviderFixture fixture();

    private ProviderFixture provider;
    private final RdmaDevice[] adapters = new RdmaDevice[2];
    private final Map<RdmaDevice, AsyncEventLog> events = new IdentityHashMap<>();
    private Arena arena;
    private ExecutorService executor;
    private Listener listener;
    /** What the test created through the helpers (and {@link #closeAtEnd}), closed newest first at tear-down. */
    private final java.util.ArrayDeque<AutoCloseable> created = new java.util.ArrayDeque<>();

    @BeforeEach
    final void openProvider() {
        provider = fixture();
        arena = Arena.ofShared();
        AtomicInteger n = new AtomicInteger();
        executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "conformance-helper-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Closes what the test created, then the adapters, then frees the test's memory. Every step runs
     * even when an earlier one failed (so that one test's failure does not leave adapters open for the
     * next), and the test fails with the first failure, the others attached as suppressed: a leak the
     * provider reports on closing an adapter, or a close that fails, is a failure of the test.
     */
    @AfterEach
    final void closeProvider() {
        Throwable failure = null;
        try {
            executor.shutdownNow();
            failure = closeCreated();
            try {
                provider.close();
            } catch (RuntimeException | Error e) {
                failure = addFailure(failure, e);
            }
            awaitCondition("helper threads to end after the adapters closed", () -> {
                try {
                    return executor.awaitTermination(1, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return true;
                }
            });
        } catch (RuntimeException | Error e) {
            failure = addFailure(failure, e);
        } finally {
            arena.close();
        }
        if (failure instanceof RuntimeException r) {
            throw r;
        }
        if (failure instanceof Error r) {
            throw r;
        }
    }

    /**
     * Closes what the test created, newest first, so that closing the adapters finds nothing open:
     * a provider in strict leak mode fails the close of an adapter with resources left open.
     * Closing something the test already closed (itself, or through its PD or adapter) must be
     * harmless: a provider may ignore it or refuse it with {@link ResourceClosedException}. Any other
     * exception is a failed close; it is returned (after everything else was closed) for the test to fail.
     */
    private Throwable closeCreated() {
        Throwable failure = null;
        AutoCloseable c;
        while ((c = created.pollFirst()) != null) {
            try {
                c.close();
            } catch (ResourceClosedException alreadyClosed) {
                // closed before: by the test, or with its protection domain or adapter
            } catch (Exception | Error e) {
                failure = addFailure(failure, new AssertionError("tear-down: closing " + c + " failed: " + e, e));
            }
        }
        listener = null;
        return failure;
    }

    private static Throwable addFailure(Throwable first, Throwable next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    /** Closes {@code resource} at tear-down, before the adapters (newest first); returns it. */
    protected final <T extends AutoCloseable> T closeAtEnd(T resource) {
        created.addFirst(resource);
        return resource;
    }

    // ---------------------------------------------------------------- adapters and resources

    /** The provider's name, or null before set-up. */
    final String providerNameOrNull() {
        return provider == null ? null : provider.name();
    }

    /** The provider's name, for messages. */
    protected final String providerName() {
        return provider.name();
    }

    protected final ProviderFixture provider() {
        return provider;
    }

    /** Bound of every wait. */
    protected final Duration bound() {
        return provider.timeout();
    }

    /** Adapter {@code i} (0 = active side, 1 = passive side), opened on first use. */
    protected final RdmaDevice adapter(int i) {
        if (adapters[i] == null) {
            adapters[i] = provider.open(i);
            events.put(adapters[i], new AsyncEventLog(adapters[i]));
        }
        return adapters[i];
    }

    /** Adapter {@code i} opened with {@code options}; call it before anything else opens that adapter. */
    protected final RdmaDevice adapter(int i, DeviceOptions options) {
        if (adapters[i] != null) {
            fail("adapter " + i + " is open already; open it with options before any other use");
        }
        adapters[i] = provider.open(i, options);
        events.put(adapters[i], new AsyncEventLog(adapters[i]));
        return adapters[i];
    }

    /** Native memory that lives until the adapters are closed. */
    protected final MemorySegment allocate(long size) {
        return arena.allocate(size, 64);
    }

    /**
     * {@code size} bytes of a sparse file mapped for the rest of the test: address space without
     * memory, for requests that must be refused before a byte is touched.
     */
    protected final MemorySegment mapSparse(long size) {
        try {
            Path file = Files.createTempFile("tandem-conformance-", ".sparse");
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.SPARSE)) {
                return ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            } finally {
                Files.delete(file); // the mapping outlives the name
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map " + size + " sparse bytes", e);
        }
    }

    /** Registers {@code size} new bytes (zeroed) in {@code pd}. */
    protected final MemoryRegion register(ProtectionDomain pd, long size, int access) {
        return closeAtEnd(pd.registerMemory(allocate(size), access));
    }

    /** A new endpoint on adapter {@code adapter} with the default spec. */
    protected final Endpoint endpoint(int adapter) {
        return endpoint(adapter, EndpointSpec.defaults());
    }

    /** A new endpoint on adapter {@code adapter}: its QP is in INIT. */
    protected final Endpoint endpoint(int adapter, EndpointSpec spec) {
        RdmaDevice device = adapter(adapter);
        ProtectionDomain pd = spec.pd() != null ? spec.pd() : closeAtEnd(device.allocateProtectionDomain());
        CompletionQueue cq = spec.cq() != null ? spec.cq() : closeAtEnd(device.createCompletionQueue(EndpointSpec.CQ_DEPTH));
        MemoryRegion region = register(pd, spec.regionSize(), spec.regionAccess());
        QueuePair qp = closeAtEnd(pd.createQueuePair(spec.qpConfig().apply(QueuePairConfig.of(cq))));
        return new Endpoint(device, pd, cq, region, qp);
    }

    /** The listener of adapter 1 (created on first use, on the fixture's listen address). */
    protected final Listener listener() {
        if (listener == null) {
            listener = closeAtEnd(adapter(1).listen(provider.listenAddress(1), 16));
        }
        return listener;
    }

    /** Connects two new default endpoints. */
    protected final ConnectedPair connectedPair() {
        return connectedPair(EndpointSpec.defaults(), EndpointSpec.defaults());
    }

    /** Connects a new endpoint on adapter 0 (built from {@code active}) to one on adapter 1 (from {@code passive}). */
    protected final ConnectedPair connectedPair(EndpointSpec active, EndpointSpec passive) {
        return connect(endpoint(0, active), endpoint(1, passive));
    }

    /**
     * Connects {@code active} to {@code passive} through {@link #listener()}: the passive side
     * accepts on a helper thread while this thread connects. Each side sends its region's rkey
     * and length as private data; both QPs must reach RTS.
     */
    protected final ConnectedPair connect(Endpoint active, Endpoint passive) {
        Listener l = listener();
        byte[] activeData = Bytes.encodeKey(active.region.rkey(), active.region.length());
        byte[] passiveData = Bytes.encodeKey(passive.region.rkey(), passive.region.length());
        Future<ConnectionRequest> accepted = async(() -> {
            ConnectionRequest r = l.accept(bound());
            r.accept(passive.qp, passiveData);
            return r;
        });
        byte[] reply = active.qp.connect(l.localAddress(), activeData, bound());
        ConnectionRequest request = join(accepted, "the passive side to accept a connection request on " + l.localAddress());
        assertArrayEquals(activeData, request.privateData(), "private data the passive side received with the request");
        assertArrayEquals(passiveData, reply, "private data connect() returned (the passive side's accept data)");
        active.peerRkey = Bytes.decodeRkey(reply);
        active.peerLength = Bytes.decodeLength(reply);
        passive.peerRkey = Bytes.decodeRkey(request.privateData());
        passive.peerLength = Bytes.decodeLength(request.privateData());
        awaitState(active.qp, QpState.RTS, "the connecting QP");
        awaitState(passive.qp, QpState.RTS, "the accepting QP");
        return new ConnectedPair(active, passive, request, reply);
    }

    // ---------------------------------------------------------------- posting shorthands

    protected static Sge sge(MemoryRegion region, long offset, int length) {
        return new Sge(region, offset, length);
    }

    protected static void postReceive(Endpoint e, long wrId, long offset, int length) {
        e.qp.postReceive(new ReceiveRequest(wrId, sge(e.region, offset, length)));
    }

    protected static void postSend(Endpoint e, long wrId, long offset, int length, int flags) {
        e.qp.postSend(new WorkRequest.Send(wrId, sge(e.region, offset, length), flags));
    }

    protected static void postWrite(Endpoint e, long wrId, long offset, int length, long remoteOffset, int rkey, int flags) {
        e.qp.postSend(new WorkRequest.RdmaWrite(wrId, sge(e.region, offset, length), remoteOffset, rkey, flags));
    }

    protected static void postRead(Endpoint e, long wrId, long offset, int length, long remoteOffset, int rkey, int flags) {
        e.qp.postSend(new WorkRequest.RdmaRead(wrId, sge(e.region, offset, length), remoteOffset, rkey, flags));
    }

    protected static final int SIGNALED = WrFlags.SIGNALED;

    // ---------------------------------------------------------------- bounded waits

    /** Runs {@code task} on a helper thread. */
    protected final <T> Future<T> async(Callable<T> task) {
        return executor.submit(task);
    }

    /** Waits for {@code future}; rethrows what the task threw (so {@code assertThrows} sees it). */
    protected final <T> T join(Future<T> future, String what) {
        try {
            return future.get(bound().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return fail("timed out after " + bound() + " awaiting " + what);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail("interrupted awaiting " + what);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error r) {
                throw r;
            }
            throw new AssertionError(what + " threw " + e.getCause(), e.getCause());
        }
    }

    /** Polls {@code condition} until it holds, failing after the bound. */
    protected final void awaitCondition(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + bound().toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + bound() + " awaiting " + what);
            }
            LockSupport.parkNanos(200_000);
        }
    }

    /** Waits until {@code qp} is in {@code state}. */
    protected final void awaitState(QueuePair qp, QpState state, String what) {
        long deadline = System.nanoTime() + bound().toNanos();
        QpState last;
        while ((last = qp.state()) != state) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + bound() + " awaiting " + what + " (QP " + qp.qpNumber()
                        + ") to reach " + state + "; it is still " + last);
            }
            LockSupport.parkNanos(200_000);
        }
    }

    /** Waits until {@code thread} is blocked (parked or waiting), so that what follows exercises the wake-up. */
    protected final void awaitBlocked(Thread thread, String what) {
        awaitCondition(what + " to block", () -> {
            Thread.State s = thread.getState();
            return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING || s == Thread.State.TERMINATED;
        });
    }

    /** Waits for the next completion on {@code cq} and returns a copy of it. */
    protected final WorkCompletion awaitCompletion(CompletionQueue cq, String what) {
        return awaitCompletions(cq, 1, what).getFirst();
    }

    /** Waits for the next {@code n} completions on {@code cq} and returns copies, in order. */
    protected final List<WorkCompletion> awaitCompletions(CompletionQueue cq, int n, String what) {
        List<WorkCompletion> got = new ArrayList<>(n);
        long deadline = System.nanoTime() + bound().toNanos();
        while (got.size() < n) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                fail("timed out after " + bound() + " awaiting " + what + ": got " + got.size()
                        + " of " + n + " completions " + got);
            }
            WorkCompletion[] out = WorkCompletion.array(Math.min(64, n - got.size()));
            int k = cq.await(out, Duration.ofNanos(left));
            if (k < 0 || k > out.length) {
                fail("CompletionQueue.await returned " + k + " for an array of " + out.length);
            }
            for (int i = 0; i < k; i++) {
                got.add(new WorkCompletion().copyFrom(out[i]));
            }
        }
        return got;
    }

    /**
     * Asserts that {@code cq} holds no completion now. Call it only once what could have produced
     * one has demonstrably run (e.g. after the flush of a move to ERROR, whose completions are queued
     * before {@code modify} returns), so that no wait can make the check stronger.
     */
    protected final void assertNoCompletion(CompletionQueue cq, String why) {
        WorkCompletion[] out = WorkCompletion.array(4);
        int k = cq.poll(out);
        if (k != 0) {
            fail("expected no completion (" + why + ") but got " + Arrays.asList(out).subList(0, k));
        }
    }

    /** Waits for an async event of {@code type} about {@code resource} (null = any) on {@code device}. */
    protected final AsyncEvent awaitAsyncEvent(RdmaDevice device, AsyncEventType type, Object resource) {
        AsyncEventLog log = events.get(device);
        AsyncEvent e = log.find(type, resource, bound());
        if (e == null) {
            fail("timed out after " + bound() + " awaiting async event " + type + " about " + resource
                    + " on " + device.name() + "; seen: " + log.seen());
        }
        return e;
    }

    /** Waits for an async event of one of {@code types} about {@code resource} on {@code device}. */
    protected final AsyncEvent awaitAnyAsyncEvent(RdmaDevice device, Object resource, AsyncEventType... types) {
        AsyncEventLog log = events.get(device);
        long deadline = System.nanoTime() + bound().toNanos();
        while (true) {
            for (AsyncEventType t : types) {
                AsyncEvent e = log.find(t, resource, Duration.ZERO);
                if (e != null) {
                    return e;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                fail("timed out after " + bound() + " awaiting one of async events " + Arrays.toString(types)
                        + " about " + resource + " on " + device.name() + "; seen: " + log.seen());
            }
            // Wait a little for any new event; find() keeps the ones of other types.
            log.find(null, resource, Duration.ofNanos(Math.min(left, 20_000_000L)));
        }
    }

    /** Asserts that {@code device} raised {@code earlier} before {@code later} (both returned by the awaits above). */
    protected final void assertEventOrder(RdmaDevice device, AsyncEvent earlier, AsyncEvent later) {
        AsyncEventLog log = events.get(device);
        if (log.order(earlier) >= log.order(later)) {
            fail(earlier.type() + " should come before " + later.type() + " on " + device.name() + "; seen: " + log.seen());
        }
    }

    /**
     * Asserts that {@code device} has raised no async event of {@code type} about {@code resource}
     * so far. Call it only after a witness that the event, had it been raised, would already be
     * queued: a completion the provider delivers after raising it, or a later event of the same
     * cause (events leave the device in the order they were raised).
     */
    protected final void assertNoAsyncEvent(RdmaDevice device, AsyncEventType type, Object resource, String why) {
        AsyncEventLog log = events.get(device);
        AsyncEvent e = log.find(type, resource, Duration.ZERO);
        if (e != null) {
            fail("expected no async event " + type + " (" + why + ") but got " + e);
        }
    }

    // ---------------------------------------------------------------- refused remote access

    protected static final long ACTIVE_RECV = 901;
    protected static final long PASSIVE_RECV = 902;

    /** Posts one receive on each side, so that the move to ERROR is seen as a flush on both. */
    protected static void armFlushWitnesses(ConnectedPair pair) {
        postReceive(pair.active(), ACTIVE_RECV, 60000, 64);
        postReceive(pair.passive(), PASSIVE_RECV, 60000, 64);
    }

    protected static Map<Long, WorkCompletion> byWrId(List<WorkCompletion> wcs) {
        Map<Long, WorkCompletion> m = new HashMap<>();
        for (WorkCompletion wc : wcs) {
            if (m.put(wc.wrId(), wc) != null) {
                throw new AssertionError("two completions for wrId " + wc.wrId() + ": " + wcs);
            }
        }
        return m;
    }

    /**
     * Posts an RDMA Read of {@code length} bytes at {@code remoteOffset} of {@code rkey} into the
     * start of the active region (zeroed first), and asserts the standard's answer to a protection
     * fault: REM_ACCESS_ERR, nothing read, both QPs in ERROR with their receives flushed, and a
     * QP_ACCESS_ERROR at the responder.
     */
    protected final void assertReadRefused(ConnectedPair pair, long remoteOffset, int length, int rkey, String what) {
        Bytes.fill(pair.passive().mem(), 0, Math.min(pair.passive().region.length(), 60000), 77);
        Bytes.clear(pair.active().mem(), 0, length, (byte) 0);
        armFlushWitnesses(pair);
        postRead(pair.active(), 77, 0, length, remoteOffset, rkey, SIGNALED);
        Map<Long, WorkCompletion> active = byWrId(awaitCompletions(pair.active().cq, 2,
                "the refused Read (" + what + ") and the flushed receive"));
        assertCompletion(active.get(77L), 77, REM_ACCESS_ERR, RDMA_READ, "RDMA Read with " + what);
        assertFlushed(active.get(ACTIVE_RECV), ACTIVE_RECV, "requester's receive after the refused Read");
        Bytes.assertFilled(pair.active().mem(), 0, length, (byte) 0, "the Read's sink after a refused Read");
        assertPeerFailed(pair, what);
    }

    /** The responder (passive) side's view of a protection fault it detected. */
    protected final void assertPeerFailed(ConnectedPair pair, String what) {
        awaitState(pair.active().qp, QpState.ERROR, "the requester's QP after " + what);
        awaitState(pair.passive().qp, QpState.ERROR, "the responder's QP after " + what);
        assertFlushed(awaitCompletion(pair.passive().cq, "the responder's flushed receive"), PASSIVE_RECV,
                "responder's receive after " + what);
        awaitAsyncEvent(pair.passive().device, AsyncEventType.QP_ACCESS_ERROR, pair.passive().qp);
    }

    /** Posts an RDMA Write of 4096 bytes that must be refused, and asserts that it changed nothing. */
    protected final void assertWriteRefused(ConnectedPair pair, MemoryRegion target, long remoteOffset, int rkey, String what) {
        armFlushWitnesses(pair);
        Bytes.fill(pair.active().mem(), 0, 4096, 88);
        postWrite(pair.active(), 88, 0, 4096, remoteOffset, rkey, SIGNALED);
        Map<Long, WorkCompletion> active = byWrId(awaitCompletions(pair.active().cq, 2,
                "the Write (" + what + ") and the flushed receive"));
        WorkCompletion write = active.get(88L);
        assertNotNull(write, "completion of the refused Write: " + active);
        // iWARP completes a Write locally; the refusal may arrive after it (SUCCESS) or be reported on it.
        assertTrue(Set.of(SUCCESS, REM_ACCESS_ERR, CompletionStatus.WR_FLUSH_ERR).contains(write.status()),
                "status of a Write the peer refuses: " + write);
        assertFlushed(active.get(ACTIVE_RECV), ACTIVE_RECV, "requester's receive after the refused Write");
        assertPeerFailed(pair, what);
        Bytes.assertFilled(target.segment(), 0, target.length(), (byte) 0, "target region after a refused Write (" + what + ")");
    }

    // ---------------------------------------------------------------- completion checks

    /** Asserts the fields a user relies on: wrId, status and (unless null) opcode. */
    protected static void assertCompletion(WorkCompletion wc, long wrId, CompletionStatus status, CompletionOpcode opcode, String what) {
        assertEquals(wrId, wc.wrId(), what + ": wrId of " + wc);
        assertEquals(status, wc.status(), what + ": status of " + wc);
        if (opcode != null) {
            assertEquals(opcode, wc.opcode(), what + ": opcode of " + wc);
        }
    }

    /** Asserts a successful receive of {@code length} bytes on {@code qp}. */
    protected static void assertReceived(WorkCompletion wc, long wrId, long length, QueuePair qp, String what) {
        assertCompletion(wc, wrId, CompletionStatus.SUCCESS, CompletionOpcode.RECV, what);
        assertEquals(length, wc.byteLength(), what + ": byteLength of " + wc);
        assertEquals(qp.qpNumber(), wc.qpNumber(), what + ": qpNumber of " + wc);
    }

    /** Asserts that {@code wc} is a flushed completion of request {@code wrId}. */
    protected static void assertFlushed(WorkCompletion wc, long wrId, String what) {
        assertCompletion(wc, wrId, CompletionStatus.WR_FLUSH_ERR, null, what);
    }
}

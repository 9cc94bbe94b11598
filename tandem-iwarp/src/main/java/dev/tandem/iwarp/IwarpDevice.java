package dev.tandem.iwarp;

import dev.tandem.provider.AsyncEvents;
import dev.tandem.provider.LeakMode;
import dev.tandem.provider.LiveResource;
import dev.tandem.provider.Owner;
import dev.tandem.provider.PermutedStagSource;
import dev.tandem.provider.QuiesceGate;
import dev.tandem.provider.ThreadingMode;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventSubscription;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionChannel;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.DeviceOptions;
import dev.tandem.verbs.DeviceUnavailableException;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.PortState;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.ResetReport;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.ResourceLeakException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A software iWARP adapter (RNIC) bound to one local IP address: MPA/DDP/RDMAP over TCP with
 * java.nio, data placed straight between sockets and registered memory. Open it with
 * {@link #open(IwarpConfig)}; several adapters may live in one process.
 */
public final class IwarpDevice implements RdmaDevice, AdapterControl {
    private static final AtomicInteger ADAPTERS = new AtomicInteger();
    private static final int MAX_EVENTS = 4096;
    /** How long a close or reset waits for threads inside verbs to leave before going on without them. */
    private static final long QUIESCE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long after the last application poll the engine keeps leaving an adapter to the pollers. */
    private static final long POLLER_GRACE_NANOS = 10_000_000;
    private static final java.lang.invoke.VarHandle POLLS;

    static {
        Owner.skipFramesOf(IwarpDevice.class);
        try {
            POLLS = java.lang.invoke.MethodHandles.lookup().findVarHandle(IwarpDevice.class, "polls", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /**
     * What every adapter offers. Each count can be had at once on each adapter ({@link ResourceLimits}
     * refuses the one more): the RAS file grows by counter pages as resources are created, up to
     * {@link dev.tandem.ras.RasConfig#counterLimit()} for the whole process (the default holds every
     * maximum of 15 adapters); the STag table is sized from maxMemoryRegions. A CQ for each direction of
     * every QP, and an SRQ and a PD for every QP, may exist.
     */
    private static final DeviceAttributes ATTRIBUTES = new DeviceAttributes(
            4096, 16_384, 16, 65_536, 65_535, Integer.MAX_VALUE, 1024, 128, 128, 508, 2 * 4096, 4096, 4096);

    private final IwarpConfig config;
    private final String name;
    private final int maxUlpdu;
    private final StagTable stags;
    private final AsyncEvents events = new AsyncEvents(MAX_EVENTS);
    private final AtomicInteger qpNumbers = new AtomicInteger(1);
    private final AtomicBoolean progressLock = new AtomicBoolean();
    private final Set<AutoCloseable> resources = ConcurrentHashMap.newKeySet();
    /** Every open resource of this adapter (PDs, CQs, listeners and what PDs hold) with its owner. */
    private final ResourceOwners owners;
    /** How many of each kind the attributes bound are open. */
    private final ResourceLimits limits;
    private final QuiesceGate gate = new QuiesceGate();
    /** Guards the adapter's life cycle (fatal, reset, close) and signals resources released during a reset. */
    private final Object lifecycle = new Object();
    /** Why the adapter failed, or null while it works (set by {@link #fatal}, cleared by a reset). */
    private volatile String fatalCause;
    /** Writes this adapter's state into every dump of the process. */
    private final AdapterSnapshot snapshot = new AdapterSnapshot(this);
    /** The dump written when the adapter last failed, if one could be written. */
    private volatile java.nio.file.Path lastFatalDump;
    private volatile long fatalAtNanos;
    private volatile boolean resetting;
    private volatile boolean closing;
    /** Causes already logged through System.Logger (each is logged once; the RAS error log counts them all). */
    private final Set<String> loggedCauses = ConcurrentHashMap.newKeySet();
    private final AdapterRas ras;
    private final System.Logger logger;
    private volatile EngineAgent agent;
    private volatile IwQueuePair[] active = new IwQueuePair[0];
    private volatile boolean closed;
    /** Application polls so far (opaque increments; any change means a poller is active). */
    private long polls;
    /** Engine side: the poll count last seen and when it last changed (System.nanoTime). */
    private long pollsSeen;
    private long pollsChangedAt = System.nanoTime() - POLLER_GRACE_NANOS;
    private volatile boolean pollersActive;
    private volatile boolean pollerLeft;
    private volatile PortState portState = PortState.ACTIVE;

    private IwarpDevice(IwarpConfig config, DeviceOptions options) {
        this.config = config;
        this.stags = new StagTable(ATTRIBUTES.maxMemoryRegions(),
                options.stagSource() != null ? options.stagSource() : new PermutedStagSource());
        this.name = "iwarp" + ADAPTERS.getAndIncrement() + "@" + config.localAddress().getHostAddress();
        this.logger = System.getLogger("dev.tandem.iwarp." + name);
        checkLocal(config);
        this.ras = new AdapterRas(name);
        this.owners = new ResourceOwners(name, ras, this::resourceReleased);
        this.limits = new ResourceLimits(name, ATTRIBUTES);
        this.maxUlpdu = config.maxUlpdu() != 0 ? config.maxUlpdu() : ulpduForMtu(mtu(config));
        this.agent = config.threading() == ThreadingMode.DEDICATED ? EngineAgent.dedicated(this) : EngineAgent.shared(this);
        dev.tandem.ras.ProcessRas.addSnapshotSource(snapshot);
    }

    /** Opens an adapter on {@code config.localAddress()}, which must be an address of this host. */
    public static IwarpDevice open(IwarpConfig config) {
        return open(config, DeviceOptions.DEFAULT);
    }

    /**
     * Opens an adapter on {@code config.localAddress()}, which must be an address of this host, with
     * what {@code options} give (an STag source shared with other adapters of the node, say).
     */
    public static IwarpDevice open(IwarpConfig config, DeviceOptions options) {
        if (config == null) {
            throw new InvalidArgumentException("IwarpDevice.open: config is null");
        }
        if (options == null) {
            throw new InvalidArgumentException("IwarpDevice.open: options are null; use DeviceOptions.DEFAULT");
        }
        return new IwarpDevice(config, options);
    }

    private static void checkLocal(IwarpConfig config) {
        try (ServerSocketChannel probe = ServerSocketChannel.open()) {
            probe.bind(new InetSocketAddress(config.localAddress(), 0));
        } catch (IOException e) {
            throw new InvalidArgumentException("adapter address " + config.localAddress().getHostAddress()
                    + " is not an address of this host (" + e.getMessage() + "); use a local IP such as 127.0.1.1");
        }
    }

    private static int mtu(IwarpConfig config) {
        if (config.localAddress().isLoopbackAddress()) {
            return 65_536;
        }
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(config.localAddress());
            return nif == null ? 1500 : nif.getMTU();
        } catch (SocketException e) {
            return 1500;
        }
    }

    /** Largest ULPDU whose FPDU (length, pad, CRC) fits one TCP segment of this MTU (IPv4/6 + TCP with options). */
    static int ulpduForMtu(int mtu) {
        int mss = mtu - 60;
        int ulpdu = ((mss - 2 - 4) & ~3) + 2 - 4;
        return Math.max(256, Math.min(ulpdu, 0xFFFF - 3));
    }

    // ---------------------------------------------------------------- RdmaDevice

    @Override
    public String name() {
        return name;
    }

    @Override
    public DeviceAttributes attributes() {
        return ATTRIBUTES;
    }

    @Override
    public PortState portState() {
        return portState;
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() {
        enter();
        try {
            checkOpen();
            return remember(create(ResourceLimits.Kind.PROTECTION_DOMAIN, () -> new IwProtectionDomain(this)));
        } finally {
            leave();
        }
    }

    @Override
    public CompletionQueue createCompletionQueue(int depth) {
        return createCompletionQueue(depth, null);
    }

    @Override
    public CompletionQueue createCompletionQueue(int depth, CompletionChannel channel) {
        enter();
        try {
            checkOpen();
            return remember(create(ResourceLimits.Kind.COMPLETION_QUEUE, () -> new IwCompletionQueue(this, depth, channel)));
        } finally {
            leave();
        }
    }

    @Override
    public Listener listen(InetSocketAddress address, int backlog) {
        enter();
        try {
            checkOpen();
            return remember(new IwListener(this, address, backlog));
        } finally {
            leave();
        }
    }

    @Override
    public AsyncEvent pollAsyncEvent(Duration timeout) {
        return events.poll(timeout);
    }

    @Override
    public AsyncEventSubscription subscribeAsyncEvents() {
        return events.subscribe();
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    /**
     * Closes the adapter: refuses new verb calls, waits (up to 1 s) for the threads inside verbs to
     * leave, closes every resource still open, and stops the engine thread. Resources still open are
     * leaks: each is reported with the call site that created it (logged, and in the RAS error log),
     * and in {@link LeakMode#STRICT} the close then throws {@link ResourceLeakException}.
     */
    @Override
    public void close() {
        synchronized (lifecycle) {
            if (closed || closing) {
                return;
            }
            closing = true;
            lifecycle.notifyAll();
        }
        gate.shut();
        int stuck = gate.awaitEmpty(QUIESCE_NANOS);
        List<LiveResource> leaked = liveResources();
        List<AutoCloseable> all = new ArrayList<>(resources);
        all.sort(CLOSE_ORDER);
        for (AutoCloseable r : all) {
            try {
                r.close();
            } catch (Exception e) {
                logger.log(System.Logger.Level.WARNING, "closing " + r + " failed", e);
            }
        }
        for (IwQueuePair qp : active) {
            qp.close();
        }
        closed = true;
        agent.remove(this);
        dev.tandem.ras.ProcessRas.removeSnapshotSource(snapshot);
        String report = leaked.isEmpty() ? null : owners.reportLeaks(leaked, logger);
        if (stuck == 0) {
            ras.close();
        } else {
            // a thread still inside a verb may yet touch the counters: leave the RAS file mapped
            logger.log(System.Logger.Level.WARNING, name + ": " + stuck + " thread(s) still inside verbs after "
                    + TimeUnit.NANOSECONDS.toMillis(QUIESCE_NANOS) + " ms; closed anyway, counters stay mapped");
        }
        if (report != null && config.leakMode() == LeakMode.STRICT) {
            throw new ResourceLeakException(report);
        }
    }

    /** The resources open on this adapter right now, oldest first, each with its owner. */
    List<LiveResource> liveResources() {
        return owners.list();
    }

    // ---------------------------------------------------------------- fatal errors and reset

    @Override
    public java.util.Optional<String> fatalCause() {
        return java.util.Optional.ofNullable(fatalCause);
    }

    @Override
    public void injectFatalError(String cause) {
        if (cause == null || cause.isBlank()) {
            throw new InvalidArgumentException("injectFatalError: give a cause, e.g. \"test: PCI error\"");
        }
        fatal("injected: " + cause);
    }

    /**
     * The adapter failed (injected, the engine thread died, an internal invariant broke, a structure
     * marker was overwritten). Captures a snapshot first, then moves every QP to ERROR (flushing its
     * work) and raises DEVICE_FATAL. Once only, until a reset.
     */
    void fatal(String cause) {
        synchronized (lifecycle) {
            if (fatalCause != null || closed || closing) {
                return;
            }
            fatalAtNanos = System.nanoTime();
            fatalCause = cause;
        }
        portState = PortState.FATAL;
        snapshotOnFatal(cause);
        // logged once here at ERROR; the RAS error log counts it like any other error
        String what = "fatal adapter error: " + cause;
        loggedCauses.add(causeKey(what));
        logger.log(System.Logger.Level.ERROR, name + ": " + what);
        recordError(this, what);
        for (LiveResource r : liveResources()) {
            if (r.resource() instanceof IwQueuePair qp) {
                qp.fail(Failure.lost(AsyncEventType.QP_FATAL, "adapter " + name + " failed: " + cause));
            }
        }
        raise(AsyncEventType.DEVICE_FATAL, this, cause);
        wakeEngine();
    }

    /** Dumps the process's state before the fault handling changes it (the snapshot a PCI error handler takes first). */
    private void snapshotOnFatal(String cause) {
        try {
            lastFatalDump = dev.tandem.ras.ProcessRas.dump("fatal " + name);
            logger.log(System.Logger.Level.ERROR, name + ": state at the fatal error dumped to " + lastFatalDump);
        } catch (RuntimeException e) {
            logger.log(System.Logger.Level.ERROR, name + ": could not dump the state at the fatal error (" + cause + ")", e);
        }
    }

    @Override
    public java.util.Optional<java.nio.file.Path> lastFatalDump() {
        return java.util.Optional.ofNullable(lastFatalDump);
    }

    /**
     * Takes the progress lock (no duty cycle runs while it is held), waiting up to {@code nanos};
     * false when it stayed busy. Pair a true result with {@link #releaseProgress()}.
     */
    boolean holdProgress(long nanos) {
        long deadline = System.nanoTime() + nanos;
        while (!progressLock.compareAndSet(false, true)) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
    }

    void releaseProgress() {
        progressLock.set(false);
    }

    /**
     * Brings a failed adapter back (or fails a working one first, so its owners let go). Refuses new
     * verb calls, waits up to {@code ownerDeadline} for the owners to close their resources (they learn
     * of the failure from DEVICE_FATAL, from a flushed completion or from a refused call), then names
     * the owners still holding resources (rogue users) in the log and the RAS error log, closes their
     * resources by force, restarts the engine thread if it died, and lets calls in again.
     *
     * @return what happened, including the time from the fault to the adapter usable again
     * @throws InvalidStateException when another thread is resetting the adapter
     */
    @Override
    public ResetReport reset(Duration ownerDeadline) {
        if (ownerDeadline == null || ownerDeadline.isNegative()) {
            throw new InvalidArgumentException("reset: ownerDeadline must be zero or positive, got " + ownerDeadline);
        }
        long start = System.nanoTime();
        synchronized (lifecycle) {
            checkNotClosed();
            if (resetting) {
                throw new InvalidStateException("adapter " + name + " is already being reset by another thread");
            }
            resetting = true;
        }
        boolean done = false;
        try {
            fatal("reset requested by thread '" + Thread.currentThread().getName() + "'");
            String cause = fatalCause;
            long faultAt = fatalAtNanos;
            gate.shut();
            int stuck = gate.awaitEmpty(QUIESCE_NANOS);
            awaitOwners(start + ownerDeadline.toNanos());
            List<LiveResource> rogue = liveResources();
            forceRelease(rogue);
            if (!agent.isAlive()) {
                agent.remove(this);
                agent = config.threading() == ThreadingMode.DEDICATED ? EngineAgent.dedicated(this) : EngineAgent.shared(this);
            }
            synchronized (lifecycle) {
                checkNotClosed();
                fatalCause = null;
                resetting = false;
                done = true;
            }
            portState = PortState.ACTIVE;
            gate.open();
            long usable = System.nanoTime();
            raise(AsyncEventType.PORT_ACTIVE, this, "adapter reset after: " + cause);
            logger.log(System.Logger.Level.INFO, name + ": reset; usable again " + TimeUnit.NANOSECONDS.toMicros(usable - faultAt)
                    + " µs after the fault, " + rogue.size() + " resource(s) of rogue owners released by force");
            return new ResetReport(name, cause, Duration.ofNanos(usable - faultAt), Duration.ofNanos(usable - start),
                    rogue.stream().map(LiveResource::describe).toList(), stuck);
        } finally {
            if (!done) {
                synchronized (lifecycle) {
                    resetting = false;
                }
                if (!closing && !closed) {
                    gate.open();
                }
            }
        }
    }

    private void awaitOwners(long deadlineNanos) {
        synchronized (lifecycle) {
            long left;
            while (!owners.isEmpty() && !closing && (left = deadlineNanos - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(lifecycle, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Closes the resources of rogue owners, holding the progress lock so no duty cycle runs meanwhile. */
    private void forceRelease(List<LiveResource> rogue) {
        if (rogue.isEmpty()) {
            return;
        }
        for (LiveResource r : rogue) {
            ras.error("reset released a resource of a rogue owner: " + r.kind() + " created at " + r.owner().callSite(), r.describe());
        }
        logger.log(System.Logger.Level.WARNING, name + ": owners did not release " + rogue.size() + " resource(s) in time; releasing them:\n  "
                + String.join("\n  ", rogue.stream().map(LiveResource::describe).toList()));
        boolean held = holdProgress(QUIESCE_NANOS);
        try {
            List<LiveResource> ordered = new ArrayList<>(rogue);
            ordered.sort(java.util.Comparator.comparing(LiveResource::resource, CLOSE_ORDER));
            for (LiveResource r : ordered) {
                try {
                    r.resource().close();
                } catch (Exception e) {
                    logger.log(System.Logger.Level.WARNING, "releasing " + r.describe() + " failed", e);
                }
            }
        } finally {
            if (held) {
                releaseProgress();
            }
        }
    }

    /**
     * The order resources close in, whoever closes them (the adapter, a PD, a reset): listeners first
     * (no new connections), then QPs (they reference regions and queues), windows, regions, SRQs, PDs,
     * and CQs last (closing QPs still flushes into them).
     */
    static final java.util.Comparator<AutoCloseable> CLOSE_ORDER = java.util.Comparator.comparingInt(c -> switch (c) {
        case IwListener l -> 0;
        case IwQueuePair q -> 1;
        case IwMemoryWindow w -> 2;
        case IwMemoryRegion r -> 3;
        case IwSharedReceiveQueue s -> 4;
        case IwProtectionDomain p -> 5;
        default -> 6;
    });

    // ---------------------------------------------------------------- engine side

    IwarpConfig config() {
        return config;
    }

    StagTable stags() {
        return stags;
    }

    int maxUlpdu() {
        return maxUlpdu;
    }

    System.Logger logger() {
        return logger;
    }

    boolean progressOnPoll() {
        return config.progressOnPoll();
    }

    /** Name of the engine thread serving this adapter. */
    public String engineThreadName() {
        return agent.threadName();
    }

    /** True while the engine thread serving this adapter runs. */
    public boolean isEngineRunning() {
        return agent.isAlive();
    }

    /** Kills the engine thread serving this adapter with {@code e} (fault injection for tests). */
    void injectEngineCrash(Error e) {
        agent.injectCrash(e);
    }

    IwQueuePair newQueuePair(IwProtectionDomain pd, QueuePairConfig config) {
        return create(ResourceLimits.Kind.QUEUE_PAIR, () -> new IwQueuePair(this, pd, config, qpNumbers.getAndIncrement()));
    }

    /**
     * Creates a resource of a limited kind: takes its slot first (refusing the one over the advertised
     * maximum before anything is allocated), gives it back if {@code create} fails. The slot goes back
     * when the resource closes ({@link #untrack}).
     *
     * @throws dev.tandem.verbs.ResourceLimitException when the adapter has the maximum of {@code kind} open
     */
    <T extends AutoCloseable> T create(ResourceLimits.Kind kind, java.util.function.Supplier<T> create) {
        limits.take(kind);
        try {
            return create.get();
        } catch (RuntimeException | Error e) {
            limits.giveBack(kind);
            throw e;
        }
    }

    /** How many of each limited kind are open (dumps show them). */
    ResourceLimits limits() {
        return limits;
    }

    boolean owns(IwCompletionQueue cq) {
        return resources.contains(cq);
    }

    private <T extends AutoCloseable> T remember(T r) {
        resources.add(r);
        track(r);
        return r;
    }

    void forget(AutoCloseable r) {
        resources.remove(r);
        untrack(r);
    }

    /** Records a new resource and its owner. */
    void track(AutoCloseable r) {
        owners.track(r);
    }

    /** A resource closed: drops it from the owner table and gives its slot back. */
    void untrack(AutoCloseable r) {
        if (owners.untrack(r)) {
            ResourceLimits.Kind kind = ResourceLimits.Kind.of(r);
            if (kind != null) {
                limits.giveBack(kind);
            }
        }
    }

    /** Updates the detail text of a resource in the owner table (e.g. a QP's state and peer). */
    void describe(AutoCloseable r, String detail) {
        owners.describe(r, detail);
    }

    /** Tells a reset waiting for owners that one let go of a resource. */
    private void resourceReleased() {
        if (resetting) {
            synchronized (lifecycle) {
                lifecycle.notifyAll();
            }
        }
    }

    /** Throws when the adapter is closed or failed: nothing new may be created or posted on it. */
    void checkOpen() {
        checkNotClosed();
        String cause = fatalCause;
        if (cause != null) {
            throw resetting ? beingReset() : new DeviceUnavailableException("adapter " + name + " failed (" + cause
                    + "): its QPs are in ERROR and their work was flushed; close your resources, then reset() brings the adapter back");
        }
    }

    private void checkNotClosed() {
        if (closed || closing) {
            throw new ResourceClosedException("adapter " + name + " is closed");
        }
    }

    /** Enters a verb (the quiesce gate); pair with {@link #leave()} in a finally block. */
    void enter() {
        if (!gate.tryEnter()) {
            checkNotClosed();
            throw beingReset();
        }
    }

    private DeviceUnavailableException beingReset() {
        return new DeviceUnavailableException("adapter " + name + " is being reset; retry once reset() returned");
    }

    void leave() {
        gate.leave();
    }

    synchronized void activate(IwQueuePair qp) {
        IwQueuePair[] a = Arrays.copyOf(active, active.length + 1);
        a[a.length - 1] = qp;
        active = a;
        agent.register(qp.connection());
    }

    synchronized void deactivate(IwQueuePair qp) {
        IwQueuePair[] a = active;
        int n = 0;
        IwQueuePair[] b = new IwQueuePair[a.length];
        for (IwQueuePair q : a) {
            if (q != qp) {
                b[n++] = q;
            }
        }
        if (n != a.length) {
            active = Arrays.copyOf(b, n);
        }
    }

    /** True when some connection has bytes it could not write yet (the engine must not block on reads only). */
    boolean hasPendingOutput() {
        for (IwQueuePair qp : active) {
            Connection c = qp.connection();
            if (c != null && c.tx.hasPendingOutput()) {
                return true;
            }
        }
        return false;
    }

    void wakeEngine() {
        agent.wake();
    }

    /** An application thread polled a CQ of this adapter (it drives progress itself when the CQ is empty). */
    void notePoll() {
        POLLS.setOpaque(this, (long) POLLS.getOpaque(this) + 1);
    }

    /** A thread stops polling to block: the engine takes the adapter over at once. */
    void pollerLeaving() {
        pollerLeft = true;
        pollersActive = false;
        agent.wakeUnlessWaitingOnSockets();
    }

    /**
     * Engine side, once per cycle: are application threads polling (a poll within the grace time)?
     * While they are, the engine leaves the adapter to them.
     */
    boolean refreshPollers(long now) {
        long p = (long) POLLS.getOpaque(this);
        if (pollerLeft) {
            pollerLeft = false;
            pollsSeen = p;
            pollsChangedAt = now - POLLER_GRACE_NANOS;
        } else if (p != pollsSeen) {
            pollsSeen = p;
            pollsChangedAt = now;
        }
        boolean active = now - pollsChangedAt < POLLER_GRACE_NANOS;
        pollersActive = active;
        return active;
    }

    /** True while application threads drive progress themselves (as last seen by the engine). */
    boolean pollersActive() {
        return pollersActive;
    }

    /**
     * One duty cycle over every live connection: receive, transmit, and tear down streams that
     * ended. Exclusive: the engine thread and polling application threads take turns.
     */
    int progress() {
        return Math.max(0, tryProgress());
    }

    /** One duty cycle, or -1 when another thread is running one right now. */
    int tryProgress() {
        if (!progressLock.compareAndSet(false, true)) {
            return -1;
        }
        int work = 0;
        RuntimeException fault = null;
        try {
            for (IwQueuePair qp : active) {
                Connection c = qp.connection();
                if (c == null) {
                    continue;
                }
                work += c.rx.poll();
                work += c.tx.poll();
                if (qp.inError() && c.tearDownIfDue()) {
                    // a QP the transmitter failed in this cycle may still hold a half-filled Receive
                    // that only the receiver can complete: the receiver's poll of a failed QP flushes it
                    c.rx.poll();
                    deactivate(qp);
                    work++;
                }
            }
        } catch (RuntimeException e) {
            fault = e;
            work++;
        } finally {
            progressLock.set(false);
        }
        if (fault != null) {
            // outside the lock: the fatal error's snapshot takes it to read consistent state
            engineFault(fault);
        }
        return work;
    }

    void raise(AsyncEventType type, Object resource, String detail) {
        if (!events.raise(new AsyncEvent(type, resource, detail))) {
            ras.asyncEventsDropped.incrementAtomic();
            recordError(this, "async event queue full; dropped " + type);
        }
    }

    void recordError(Object source, Failure f) {
        recordError(source, f.detail());
    }

    /**
     * Records an error in the process's distinct error log (counted per cause, where the cause is
     * the text with its numbers blanked) and logs each distinct cause once.
     */
    void recordError(Object source, String cause) {
        recordError(source, errorCause(cause));
    }

    /** A cause with its distinct-error key, worked out once for a cause recorded often (a listener under attack). */
    record ErrorCause(String text, String key) {
    }

    /** {@code cause} with its key: the text with its numbers blanked. */
    static ErrorCause errorCause(String cause) {
        return new ErrorCause(cause, causeKey(cause));
    }

    /** As {@link #recordError(Object, String)}, with the key worked out already. */
    void recordError(Object source, ErrorCause cause) {
        ras.error(cause.key(), cause.text() + " (" + source + ")");
        if (loggedCauses.add(cause.key())) {
            logger.log(System.Logger.Level.WARNING, name + ": " + cause.text() + " (" + source + ")");
        }
    }

    /** The distinct-error key of a cause: its text with the numbers blanked. */
    private static String causeKey(String cause) {
        return DIGITS.matcher(HEX.matcher(cause).replaceAll("0x#")).replaceAll("#");
    }

    private static final java.util.regex.Pattern HEX = java.util.regex.Pattern.compile("0x[0-9a-fA-F]+");
    private static final java.util.regex.Pattern DIGITS = java.util.regex.Pattern.compile("\\d+");

    AdapterRas ras() {
        return ras;
    }

    /**
     * A duty cycle threw: an internal invariant broke (a bug). The engine cannot trust this adapter's
     * state any more, so the adapter fails (fatal error); the engine thread goes on with the others.
     */
    void engineFault(Throwable t) {
        logger.log(System.Logger.Level.ERROR, name + ": engine duty cycle failed", t);
        fatal("engine invariant broken: " + t);
    }

    /**
     * Checks the start and end markers of the off-heap structures this adapter writes (every section of
     * the process's RAS file); a bad one is a fatal adapter error naming the structure, never silent
     * corruption. The engine thread calls it every 100 ms.
     */
    void checkStructures() {
        if (fatalCause != null) {
            return;
        }
        try {
            ras.verify();
        } catch (dev.tandem.ras.CorruptStructureException e) {
            fatal("structure marker corrupted: " + e.getMessage());
        }
    }

    /** The engine thread serving this adapter died. */
    void engineDied(String thread, Throwable t) {
        fatal("engine thread " + thread + " died: " + t);
    }

    @Override
    public String toString() {
        return "IwarpDevice[" + name + "]";
    }
}

package dev.tandem.provider;

import dev.tandem.ras.CorruptStructureException;
import dev.tandem.ras.ProcessRas;
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
import dev.tandem.verbs.PortState;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.ResetReport;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.ResourceLeakException;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The part of an adapter that is the same whatever its transport: its resources (PDs, CQs and what
 * PDs hold) with their owners and limits, the STag table, async events, the quiesce gate every verb
 * passes, the distinct error log, and the life cycle (fatal error, reset with rogue owners released by
 * force, close with leak reports). A provider's device is a thin {@link RdmaDevice} over one core and
 * gives it a {@link Transport} for what only the transport knows.
 */
public final class DeviceCore {
    private static final int MAX_EVENTS = 4096;
    /** How long a close or reset waits for threads inside verbs to leave before going on without them. */
    private static final long QUIESCE_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The order resources close in, whoever closes them (see {@link ResourceKind}); anything else last. */
    static final Comparator<AutoCloseable> CLOSE_ORDER = Comparator.comparingInt(
            c -> c instanceof TrackedResource t ? t.kind().ordinal() : ResourceKind.values().length);

    private final RdmaDevice device;
    private final String name;
    private final DeviceAttributes attributes;
    private final LeakMode leakMode;
    private final System.Logger logger;
    private final Transport transport;
    private final StagTable stags;
    private final AsyncEvents events = new AsyncEvents(MAX_EVENTS);
    private final AtomicInteger qpNumbers = new AtomicInteger(1);
    private final Set<AutoCloseable> resources = ConcurrentHashMap.newKeySet();
    /** Every open resource of this adapter (PDs, CQs, listeners and what PDs hold) with its owner. */
    private final ResourceOwners owners;
    /** How many of each kind the attributes bound are open. */
    private final ResourceLimits limits;
    private final QuiesceGate gate = new QuiesceGate();
    private final ResourceRas ras;
    /** Causes already logged through System.Logger (each is logged once; the RAS error log counts them all). */
    private final Set<String> loggedCauses = ConcurrentHashMap.newKeySet();
    /** Guards the life cycle (fatal, reset, close) and signals resources released during a reset. */
    private final Object lifecycle = new Object();
    /** Why the adapter failed, or null while it works (set by {@link #fatal}, cleared by a reset). */
    private volatile String fatalCause;
    /** A fatal error is freezing the transport (guarded by {@code lifecycle}): a second one waits its turn by returning. */
    private boolean freezing;
    private volatile long fatalAtNanos;
    /** The dump written when the adapter last failed, if one could be written. */
    private volatile Path lastFatalDump;
    private volatile boolean resetting;
    private volatile boolean closing;
    private volatile boolean closed;
    private volatile PortState portState = PortState.ACTIVE;

    /**
     * A core for {@code device}, named {@code name} in every label, with STags from the options' source
     * (or a fresh {@link PermutedStagSource}), its table sized from {@code attributes.maxMemoryRegions()}.
     */
    public DeviceCore(RdmaDevice device, String name, DeviceAttributes attributes, DeviceOptions options, LeakMode leakMode,
                      System.Logger logger, Transport transport) {
        this.device = device;
        this.name = name;
        this.attributes = attributes;
        this.leakMode = leakMode;
        this.logger = logger;
        this.transport = transport;
        this.stags = new StagTable(attributes.maxMemoryRegions(),
                options.stagSource() != null ? options.stagSource() : new PermutedStagSource());
        this.ras = new ResourceRas(name);
        this.owners = new ResourceOwners(name, ras, this::resourceReleased);
        this.limits = new ResourceLimits(name, attributes);
    }

    // ---------------------------------------------------------------- what the device facade forwards

    public RdmaDevice device() {
        return device;
    }

    public String name() {
        return name;
    }

    public DeviceAttributes attributes() {
        return attributes;
    }

    public PortState portState() {
        return portState;
    }

    public ProtectionDomain allocateProtectionDomain() {
        enter();
        try {
            checkOpen();
            return remember(create(ResourceKind.PD, () -> new KitProtectionDomain(this)));
        } finally {
            leave();
        }
    }

    public CompletionQueue createCompletionQueue(int depth, CompletionChannel channel) {
        enter();
        try {
            checkOpen();
            return remember(create(ResourceKind.CQ, () -> new KitCompletionQueue(this, depth, channel)));
        } finally {
            leave();
        }
    }

    public AsyncEvent pollAsyncEvent(Duration timeout) {
        return events.poll(timeout);
    }

    public AsyncEventSubscription subscribeAsyncEvents() {
        return events.subscribe();
    }

    public boolean isClosed() {
        return closed;
    }

    public Optional<String> fatalCause() {
        return Optional.ofNullable(fatalCause);
    }

    public Optional<Path> lastFatalDump() {
        return Optional.ofNullable(lastFatalDump);
    }

    public void injectFatalError(String cause) {
        if (cause == null || cause.isBlank()) {
            throw new InvalidArgumentException("injectFatalError: give a cause, e.g. \"test: PCI error\"");
        }
        fatal("injected: " + cause);
    }

    // ---------------------------------------------------------------- life cycle

    /**
     * Closes the adapter: refuses new verb calls, waits (up to 1 s) for the threads inside verbs to
     * leave, closes every resource still open, and stops the transport. Resources still open are
     * leaks: each is reported with the call site that created it (logged, and in the RAS error log),
     * and in {@link LeakMode#STRICT} the close then throws {@link ResourceLeakException}.
     */
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
        closed = true;
        transport.stop(stuck == 0);
        String report = leaked.isEmpty() ? null : owners.reportLeaks(leaked, logger);
        if (stuck == 0) {
            ras.close();
        } else {
            // a thread still inside a verb may yet touch the counters: leave the RAS file mapped
            logger.log(System.Logger.Level.WARNING, name + ": " + stuck + " thread(s) still inside verbs after "
                    + TimeUnit.NANOSECONDS.toMillis(QUIESCE_NANOS) + " ms; closed anyway, counters stay mapped");
        }
        if (report != null && leakMode == LeakMode.STRICT) {
            throw new ResourceLeakException(report);
        }
    }

    /**
     * The adapter failed (injected, a transport thread died, an internal invariant broke, a structure
     * marker was overwritten). Captures a snapshot first, then has the transport move every QP to ERROR
     * (flushing its work) and raises DEVICE_FATAL. Once only, until a reset.
     */
    public void fatal(String cause) {
        long at = System.nanoTime();
        synchronized (lifecycle) {
            if (fatalCause != null || freezing || closed || closing) {
                return;
            }
            freezing = true;
        }
        // frozen first, as a PCI error freezes the adapter: nothing is placed, completed or answered after the fault
        // becomes visible (a layer above that sees the adapter failed may rebuild from memory and post the buffers
        // elsewhere at once: the adapter must not write them any more)
        transport.freeze();
        synchronized (lifecycle) {
            freezing = false;
            fatalAtNanos = at;
            fatalCause = cause;
        }
        portState = PortState.FATAL;
        snapshotOnFatal(cause);
        // logged once here at ERROR; the RAS error log counts it like any other error
        String what = "fatal adapter error: " + cause;
        loggedCauses.add(ErrorCause.keyOf(what));
        logger.log(System.Logger.Level.ERROR, name + ": " + what);
        recordError(device, what);
        transport.adapterFailed(cause, liveResources());
        raise(AsyncEventType.DEVICE_FATAL, device, cause);
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

    /**
     * Brings a failed adapter back (or fails a working one first, so its owners let go). Refuses new
     * verb calls, waits up to {@code ownerDeadline} for the owners to close their resources (they learn
     * of the failure from DEVICE_FATAL, from a flushed completion or from a refused call), then names
     * the owners still holding resources (rogue users) in the log and the RAS error log, closes their
     * resources by force, restarts what of the transport died, and lets calls in again.
     *
     * @return what happened, including the time from the fault to the adapter usable again
     * @throws InvalidStateException when another thread is resetting the adapter
     */
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
            transport.restart();
            synchronized (lifecycle) {
                checkNotClosed();
                fatalCause = null;
                resetting = false;
                done = true;
            }
            portState = PortState.ACTIVE;
            gate.open();
            long usable = System.nanoTime();
            raise(AsyncEventType.PORT_ACTIVE, device, "adapter reset after: " + cause);
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

    /** Closes the resources of rogue owners, holding the transport's progress so none of it runs meanwhile. */
    private void forceRelease(List<LiveResource> rogue) {
        if (rogue.isEmpty()) {
            return;
        }
        for (LiveResource r : rogue) {
            ras.error("reset released a resource of a rogue owner: " + r.kind() + " created at " + r.owner().callSite(), r.describe());
        }
        logger.log(System.Logger.Level.WARNING, name + ": owners did not release " + rogue.size() + " resource(s) in time; releasing them:\n  "
                + String.join("\n  ", rogue.stream().map(LiveResource::describe).toList()));
        boolean held = transport.holdProgress(QUIESCE_NANOS);
        try {
            List<LiveResource> ordered = new ArrayList<>(rogue);
            ordered.sort(Comparator.comparing(LiveResource::resource, CLOSE_ORDER));
            for (LiveResource r : ordered) {
                try {
                    r.resource().close();
                } catch (Exception e) {
                    logger.log(System.Logger.Level.WARNING, "releasing " + r.describe() + " failed", e);
                }
            }
        } finally {
            if (held) {
                transport.releaseProgress();
            }
        }
    }

    /** Throws when the adapter is closed or failed: nothing new may be created or posted on it. */
    public void checkOpen() {
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
    public void enter() {
        if (!gate.tryEnter()) {
            checkNotClosed();
            throw beingReset();
        }
    }

    private DeviceUnavailableException beingReset() {
        return new DeviceUnavailableException("adapter " + name + " is being reset; retry once reset() returned");
    }

    public void leave() {
        gate.leave();
    }

    /**
     * Checks the markers of the off-heap structures this adapter writes (every section of the process's
     * RAS file); a bad one is a fatal adapter error naming the structure, never silent corruption.
     */
    public void checkStructures() {
        if (fatalCause != null) {
            return;
        }
        try {
            ras.verify();
        } catch (dev.tandem.ras.CorruptStructureException e) {
            fatal("structure marker corrupted: " + e.getMessage());
        }
    }

    // ---------------------------------------------------------------- resources

    /**
     * Creates a resource of a limited kind: takes its slot first (refusing the one over the advertised
     * maximum before anything is allocated), gives it back if {@code create} fails. The slot goes back
     * when the resource closes ({@link #untrack}).
     *
     * @throws dev.tandem.verbs.ResourceLimitException when the adapter has the maximum of {@code kind} open
     */
    public <T extends AutoCloseable> T create(ResourceKind kind, Supplier<T> create) {
        ResourceLimits.Kind limit = kind.limit();
        if (limit != null) {
            limits.take(limit);
        }
        try {
            return create.get();
        } catch (RuntimeException | Error e) {
            if (limit != null) {
                limits.giveBack(limit);
            }
            throw e;
        }
    }

    /** A new queue pair of {@code pd} from the transport, within the adapter's limit. */
    KitQueuePair newQueuePair(KitProtectionDomain pd, QueuePairConfig config) {
        return create(ResourceKind.QP, () -> transport.createQueuePair(pd, config, qpNumbers.getAndIncrement()));
    }

    /** Records a resource the adapter itself holds (not one of a PD): closed with the adapter. */
    public <T extends TrackedResource> T remember(T r) {
        resources.add(r);
        track(r);
        return r;
    }

    /** A resource the adapter itself held closed. */
    public void forget(TrackedResource r) {
        resources.remove(r);
        untrack(r);
    }

    /** True when {@code r} is a resource this adapter holds itself (a CQ of this adapter, say). */
    public boolean holds(AutoCloseable r) {
        return resources.contains(r);
    }

    /** Records a new resource and its owner. */
    void track(TrackedResource r) {
        owners.track(r);
    }

    /** A resource closed: drops it from the owner table and gives its slot back. */
    void untrack(TrackedResource r) {
        if (owners.untrack(r)) {
            ResourceLimits.Kind limit = r.kind().limit();
            if (limit != null) {
                limits.giveBack(limit);
            }
        }
    }

    /** Updates the detail text of a resource in the owner table (e.g. a QP's state and peer). */
    public void describe(AutoCloseable r, String detail) {
        owners.describe(r, detail);
    }

    /** The resources open on this adapter right now, oldest first, each with its owner. */
    public List<LiveResource> liveResources() {
        return owners.list();
    }

    /** How many of each limited kind are open (dumps show them). */
    public ResourceLimits limits() {
        return limits;
    }

    /** Tells a reset waiting for owners that one let go of a resource. */
    private void resourceReleased() {
        if (resetting) {
            synchronized (lifecycle) {
                lifecycle.notifyAll();
            }
        }
    }

    // ---------------------------------------------------------------- what resources and the transport use

    public StagTable stags() {
        return stags;
    }

    public ResourceRas ras() {
        return ras;
    }

    public System.Logger logger() {
        return logger;
    }

    Transport transport() {
        return transport;
    }

    /** Raises an async event to the application and every subscriber; counted and recorded when it finds no room. */
    public void raise(AsyncEventType type, Object resource, String detail) {
        if (!events.raise(new AsyncEvent(type, resource, detail))) {
            ras.asyncEventDropped();
            recordError(device, "async event queue full; dropped " + type);
        }
    }

    /**
     * Records an error in the process's distinct error log (counted per cause, where the cause is
     * the text with its numbers blanked) and logs each distinct cause once.
     */
    public void recordError(Object source, String cause) {
        recordError(source, ErrorCause.of(cause));
    }

    /** As {@link #recordError(Object, String)}, with the key worked out already. */
    public void recordError(Object source, ErrorCause cause) {
        ras.error(cause.key(), cause.text() + " (" + source + ")");
        if (loggedCauses.add(cause.key())) {
            logger.log(System.Logger.Level.WARNING, name + ": " + cause.text() + " (" + source + ")");
        }
    }

    @Override
    public String toString() {
        return "DeviceCore[" + name + "]";
    }
}

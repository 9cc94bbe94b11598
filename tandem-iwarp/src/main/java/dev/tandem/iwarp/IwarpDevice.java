package dev.tandem.iwarp;

import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.PortState;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.ResourceClosedException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A software iWARP adapter (RNIC) bound to one local IP address: MPA/DDP/RDMAP over TCP with
 * java.nio, data placed straight between sockets and registered memory. Open it with
 * {@link #open(IwarpConfig)}; several adapters may live in one process.
 */
public final class IwarpDevice implements RdmaDevice {
    private static final AtomicInteger ADAPTERS = new AtomicInteger();
    private static final int MAX_EVENTS = 4096;
    /** How long after the last application poll the engine keeps leaving an adapter to the pollers. */
    private static final long POLLER_GRACE_NANOS = 10_000_000;
    private static final java.lang.invoke.VarHandle POLLS;

    static {
        try {
            POLLS = java.lang.invoke.MethodHandles.lookup().findVarHandle(IwarpDevice.class, "polls", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private static final DeviceAttributes ATTRIBUTES = new DeviceAttributes(
            4096, 16_384, 16, 65_536, 65_535, Integer.MAX_VALUE, 1024, 128, 128, 508);

    private final IwarpConfig config;
    private final String name;
    private final int maxUlpdu;
    private final StagTable stags = new StagTable(ATTRIBUTES.maxMemoryRegions() + 1);
    private final LinkedBlockingQueue<AsyncEvent> events = new LinkedBlockingQueue<>(MAX_EVENTS);
    private final AtomicLong droppedEvents = new AtomicLong();
    private final AtomicInteger qpNumbers = new AtomicInteger(1);
    private final AtomicBoolean progressLock = new AtomicBoolean();
    private final Set<AutoCloseable> resources = ConcurrentHashMap.newKeySet();
    /** Causes already logged through System.Logger (each is logged once; the RAS error log counts them all). */
    private final Set<String> loggedCauses = ConcurrentHashMap.newKeySet();
    private final AdapterRas ras;
    private final System.Logger logger;
    private final EngineAgent agent;
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

    private IwarpDevice(IwarpConfig config) {
        this.config = config;
        this.name = "iwarp" + ADAPTERS.getAndIncrement() + "@" + config.localAddress().getHostAddress();
        this.logger = System.getLogger("dev.tandem.iwarp." + name);
        checkLocal(config);
        this.ras = new AdapterRas(name);
        this.maxUlpdu = config.maxUlpdu() != 0 ? config.maxUlpdu() : ulpduForMtu(mtu(config));
        this.agent = config.threading() == ThreadingMode.DEDICATED ? EngineAgent.dedicated(this) : EngineAgent.shared(this);
    }

    /** Opens an adapter on {@code config.localAddress()}, which must be an address of this host. */
    public static IwarpDevice open(IwarpConfig config) {
        if (config == null) {
            throw new InvalidArgumentException("IwarpDevice.open: config is null");
        }
        return new IwarpDevice(config);
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
        checkOpen();
        return remember(new IwProtectionDomain(this));
    }

    @Override
    public CompletionQueue createCompletionQueue(int depth) {
        checkOpen();
        return remember(new IwCompletionQueue(this, depth));
    }

    @Override
    public Listener listen(InetSocketAddress address, int backlog) {
        checkOpen();
        return remember(new IwListener(this, address, backlog));
    }

    @Override
    public AsyncEvent pollAsyncEvent(Duration timeout) {
        try {
            return events.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        List<AutoCloseable> all = new ArrayList<>(resources);
        all.sort((a, b) -> Integer.compare(rank(a), rank(b)));
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
        ras.close();
    }

    private static int rank(AutoCloseable c) {
        return switch (c) {
            case IwListener l -> 0;
            case IwProtectionDomain p -> 1;
            default -> 2;
        };
    }

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

    IwQueuePair newQueuePair(IwProtectionDomain pd, QueuePairConfig config) {
        return new IwQueuePair(this, pd, config, qpNumbers.getAndIncrement());
    }

    boolean owns(IwCompletionQueue cq) {
        return resources.contains(cq);
    }

    private <T extends AutoCloseable> T remember(T r) {
        resources.add(r);
        return r;
    }

    void forget(AutoCloseable r) {
        resources.remove(r);
    }

    void checkOpen() {
        if (closed) {
            throw new ResourceClosedException("adapter " + name + " is closed");
        }
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
        try {
            int work = 0;
            IwQueuePair[] qps = active;
            for (IwQueuePair qp : qps) {
                Connection c = qp.connection();
                if (c == null) {
                    continue;
                }
                work += c.rx.poll();
                work += c.tx.poll();
                if (qp.inError() && c.tearDownIfDue()) {
                    deactivate(qp);
                    work++;
                }
            }
            return work;
        } finally {
            progressLock.set(false);
        }
    }

    void raise(AsyncEventType type, Object resource, String detail) {
        if (!events.offer(new AsyncEvent(type, resource, detail))) {
            droppedEvents.incrementAndGet();
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
        String key = cause.replaceAll("0x[0-9a-fA-F]+", "0x#").replaceAll("\\d+", "#");
        ras.error(key, cause + " (" + source + ")");
        if (loggedCauses.add(key)) {
            logger.log(System.Logger.Level.WARNING, name + ": " + cause + " (" + source + ")");
        }
    }

    AdapterRas ras() {
        return ras;
    }

    /** The engine thread caught an exception out of a duty cycle: record it; the thread goes on. */
    void engineFault(Throwable t) {
        recordError(this, "engine fault: " + t);
        logger.log(System.Logger.Level.ERROR, name + ": engine duty cycle failed", t);
    }

    @Override
    public String toString() {
        return "IwarpDevice[" + name + "]";
    }
}

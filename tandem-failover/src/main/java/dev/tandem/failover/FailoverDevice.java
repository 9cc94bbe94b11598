package dev.tandem.failover;

import dev.tandem.provider.AsyncEvents;
import dev.tandem.provider.NodeKeyTable;
import dev.tandem.provider.ResourceLimits;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventSubscription;
import dev.tandem.verbs.CompletionChannel;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.DeviceName;
import dev.tandem.verbs.DeviceOptions;
import dev.tandem.verbs.DeviceUnavailableException;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.PortState;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.RdmaDevices;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.StagSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One device over two or more adapters of a node: the application sees one PD, one CQ, one SRQ, one
 * STag per region and one QP per connection, and the fail-over layer creates each of them on every
 * adapter (regions under one STag from the node key table). A connection has a path on each adapter;
 * its Sends carry a {@link FailoverHeader}, and a proof (an injected RDMA Read) shows the peer holds
 * its Sends and Writes before the application sees them complete.
 *
 * <p>Open it with {@link #open(FailoverConfig)} or {@code RdmaDevices.open("failover://IP+IP?node=NAME")}.
 */
public final class FailoverDevice implements RdmaDevice {
    private static final AtomicInteger DEVICES = new AtomicInteger();
    /** QPs, CQs and PDs each adapter keeps back for the fail-over layer's own work. */
    static final int RESERVED = 64;

    private final FailoverConfig config;
    private final String name;
    private final NodeKeyTable keys;
    private final RdmaDevice[] adapters;
    private final InetAddress[] addresses;
    private final DeviceAttributes attributes;
    final ResourceLimits limits;
    private final AsyncEvents events = new AsyncEvents(1024);
    /** Per adapter: its QP numbers → the connection and path they carry. */
    private final List<Map<Integer, Route>> routes = new ArrayList<>();
    /** The session numbers its connections' peers write into their headers, one per open QP. */
    private final Sessions sessions = new Sessions();
    /** Adapter resources (QPs, CQs, SRQs) → the fail-over resource they belong to, for events. */
    private final Map<Object, Object> owners = new ConcurrentHashMap<>();
    /** Connections accepted here, by connection id: where the peer's later paths join. */
    private final Map<Long, FailoverQueuePair> connections = new ConcurrentHashMap<>();
    private final List<AutoCloseable> open = new ArrayList<>();
    private final AtomicInteger qpNumbers = new AtomicInteger(1);
    private final AtomicInteger cqNumbers = new AtomicInteger(1);
    private final AtomicInteger primaries = new AtomicInteger();
    /** Where the adapter CQs of every first-level CQ report, for the monitor. */
    final CompletionChannel adapterEvents = new CompletionChannel();
    private final Monitor monitor;
    /** Its counters, trace, error log entries and dump state in the process's RAS file, from the events it tells. */
    final FailoverRas ras;
    private final List<FailoverWatch> watches = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean closed;
    /** Where tests make faults happen. */
    final FaultPoint.Points faults = new FaultPoint.Points();
    /** Adapters whose resources the layer gave up (they failed): made again when the adapter is back. */
    private final boolean[] released;
    /** Where paths join the connections it accepted; made by the first {@code listen}, closed with the device. */
    private JoinListener joins;

    private FailoverDevice(FailoverConfig config, StagSource stags) {
        this.config = config;
        this.keys = stags == null ? new NodeKeyTable(config.nodeName()) : new NodeKeyTable(config.nodeName(), stags);
        this.name = "failover" + DEVICES.getAndIncrement() + "@" + config.nodeName();
        int n = config.adapters().size();
        this.adapters = new RdmaDevice[n];
        this.released = new boolean[n];
        this.addresses = new InetAddress[n];
        DeviceOptions options = DeviceOptions.DEFAULT.withStagSource(keys).withNodeKeys(keys);
        try {
            for (int k = 0; k < n; k++) {
                addresses[k] = addressOf(config.adapters().get(k));
                adapters[k] = RdmaDevices.open(config.adapters().get(k), options);
                routes.add(new ConcurrentHashMap<>());
            }
        } catch (RuntimeException e) {
            for (RdmaDevice d : adapters) {
                if (d != null) {
                    d.close();
                }
            }
            throw e;
        }
        this.attributes = attributesOver(adapters, config.nodeName(), addresses);
        this.limits = new ResourceLimits(name, attributes);
        this.monitor = new Monitor(this);
        this.ras = new FailoverRas(this);
        monitor.start();
    }

    /**
     * Opens the adapters {@code config} names (each with this node's key table as its STag source and
     * node keys) and the device over them.
     */
    public static FailoverDevice open(FailoverConfig config) {
        return open(config, DeviceOptions.DEFAULT);
    }

    /**
     * Opens the device with what {@code options} give: an STag source replaces the generator of the
     * node key table (every adapter still gets each region's STag from the table). Node keys cannot be
     * given: the device is a node of its own.
     */
    public static FailoverDevice open(FailoverConfig config, DeviceOptions options) {
        if (config == null) {
            throw new InvalidArgumentException("FailoverDevice.open: config is null");
        }
        if (options == null) {
            throw new InvalidArgumentException("FailoverDevice.open: options are null; use DeviceOptions.DEFAULT");
        }
        if (options.nodeKeys() != null) {
            throw new InvalidArgumentException("a fail-over device is a node with a key table of its own; open it without node keys");
        }
        return new FailoverDevice(config, options.stagSource());
    }

    private static InetAddress addressOf(String adapterName) {
        String address = DeviceName.parse(adapterName).address();
        try {
            return InetAddress.getByName(address);
        } catch (UnknownHostException e) {
            throw new InvalidArgumentException("adapter " + adapterName + ": address " + address + " is not an IP address");
        }
    }

    /**
     * What the device offers: the least of its adapters', less what the fail-over layer uses itself
     * (a gather/scatter element and 32 bytes of every Send for the header, an ORD and IRD for the proof,
     * its hello in the private data, and STags, QPs, CQs and PDs of its own).
     */
    private static DeviceAttributes attributesOver(RdmaDevice[] adapters, String node, InetAddress[] addresses) {
        DeviceAttributes m = adapters[0].attributes();
        for (RdmaDevice d : adapters) {
            DeviceAttributes a = d.attributes();
            m = new DeviceAttributes(Math.min(m.maxQueuePairs(), a.maxQueuePairs()), Math.min(m.maxQueuePairDepth(), a.maxQueuePairDepth()),
                    Math.min(m.maxSge(), a.maxSge()), Math.min(m.maxCqDepth(), a.maxCqDepth()),
                    Math.min(m.maxMemoryRegions(), a.maxMemoryRegions()), Math.min(m.maxMessageSize(), a.maxMessageSize()),
                    Math.min(m.maxInlineData(), a.maxInlineData()), Math.min(m.maxIrd(), a.maxIrd()), Math.min(m.maxOrd(), a.maxOrd()),
                    Math.min(m.maxPrivateData(), a.maxPrivateData()), Math.min(m.maxCompletionQueues(), a.maxCompletionQueues()),
                    Math.min(m.maxSharedReceiveQueues(), a.maxSharedReceiveQueues()),
                    Math.min(m.maxProtectionDomains(), a.maxProtectionDomains()));
        }
        List<InetSocketAddress> listen = new ArrayList<>();
        for (InetAddress a : addresses) {
            listen.add(new InetSocketAddress(a, 0));
        }
        int qps = m.maxQueuePairs() - RESERVED;
        int pds = m.maxProtectionDomains() - RESERVED;
        int srqs = m.maxSharedReceiveQueues();
        return new DeviceAttributes(qps, FailoverQueuePair.appDepth(m.maxQueuePairDepth()), m.maxSge() - 1,
                FirstLevelCq.appDepth(m.maxCqDepth()),
                m.maxMemoryRegions() - pds - qps - srqs, m.maxMessageSize() - FailoverHeader.LENGTH,
                m.maxInlineData() - FailoverHeader.LENGTH, m.maxIrd() - 1, m.maxOrd() - 1,
                m.maxPrivateData() - Hello.overhead(node, listen), m.maxCompletionQueues() - RESERVED, srqs, pds);
    }

    /** The adapters this device runs over, by index (to inject faults into them: {@code AdapterControl}, {@code LinkControl}). */
    public List<RdmaDevice> adapters() {
        return List.of(adapters);
    }

    /**
     * The adapter that carries {@code qp}'s Sends now (moves with each fail-over), or -1 while it is
     * not connected.
     *
     * @throws InvalidArgumentException when {@code qp} is not a QP of this device
     */
    public int adapterOf(dev.tandem.verbs.QueuePair qp) {
        if (!(qp instanceof FailoverQueuePair q) || q.pd().device() != this) {
            throw new InvalidArgumentException("adapterOf: " + qp + " is not a queue pair of " + name);
        }
        return q.sendAdapter();
    }

    /**
     * The adapter where {@code qp}'s receives are posted now, where the peer's Sends arrive (moves with each
     * fail-over; with cross paths it need not be the adapter of its Sends), or -1 while it is not connected.
     *
     * @throws InvalidArgumentException when {@code qp} is not a QP of this device
     */
    public int receiveAdapterOf(dev.tandem.verbs.QueuePair qp) {
        if (!(qp instanceof FailoverQueuePair q) || q.pd().device() != this) {
            throw new InvalidArgumentException("receiveAdapterOf: " + qp + " is not a queue pair of " + name);
        }
        return q.receivePathAdapter();
    }

    /**
     * How many paths {@code qp}'s connection has when every adapter on both sides works: one from each of
     * this node's adapters to each of the peer's when switched (cross paths), one per cable when
     * switchless; 0 before it is connected.
     */
    public int pathCount(dev.tandem.verbs.QueuePair qp) {
        if (!(qp instanceof FailoverQueuePair q) || q.pd().device() != this) {
            throw new InvalidArgumentException("pathCount: " + qp + " is not a queue pair of " + name);
        }
        return q.pathCount();
    }

    /** How many of {@code qp}'s paths work now (carrying its work or standing by). */
    public int livePaths(dev.tandem.verbs.QueuePair qp) {
        if (!(qp instanceof FailoverQueuePair q) || q.pd().device() != this) {
            throw new InvalidArgumentException("livePaths: " + qp + " is not a queue pair of " + name);
        }
        return q.livePaths();
    }

    /** This node's name. */
    public String nodeName() {
        return config.nodeName();
    }

    /** A queue of its own that gets every {@link FailoverEvent} from now on. */
    public FailoverWatch watch() {
        FailoverWatch w = new FailoverWatch(this::unwatch);
        watches.add(w);
        return w;
    }

    void unwatch(FailoverWatch w) {
        watches.remove(w);
    }

    void tell(FailoverEvent e) {
        ras.told(e);
        for (FailoverWatch w : watches) {
            w.offer(e);
        }
    }

    /**
     * Adapter {@code k} failed: every connection has moved off it; what the layer holds there goes now,
     * so that the adapter's reset finds no owner to wait for. The monitor thread runs it.
     */
    void releaseAdapter(int k) {
        synchronized (this) {
            if (released[k] || closed) {
                return;
            }
            released[k] = true;
        }
        JoinListener j = joinsIfAny();
        if (j != null) {
            j.release(k);
        }
        openOf(FailoverListener.class).forEach(l -> l.release(k));
        openOf(FailoverProtectionDomain.class).forEach(p -> p.release(k));
        openOf(FirstLevelCq.class).forEach(q -> q.release(k));
    }

    /**
     * Adapter {@code k} works again (reset after a fatal error): the layer makes there again what it
     * released, regions under their STags, QPs in INIT; the healer then sets the paths up again. The
     * monitor thread runs it.
     */
    void rebuildAdapter(int k) {
        synchronized (this) {
            if (!released[k] || closed) {
                return;
            }
            released[k] = false;
        }
        openOf(FirstLevelCq.class).forEach(q -> q.rebuild(k));
        openOf(FailoverProtectionDomain.class).forEach(p -> p.rebuild(k));
        JoinListener j = joinsIfAny();
        if (j != null) {
            j.rebuild(k);
        }
        openOf(FailoverListener.class).forEach(l -> l.rebuild(k));
    }

    /** Where paths join the connections this device accepts (listening from the first call on). */
    synchronized JoinListener joins() {
        checkOpen();
        if (joins == null) {
            joins = new JoinListener(this);
        }
        return joins;
    }

    private synchronized JoinListener joinsIfAny() {
        return joins;
    }

    // ---------------------------------------------------------------- what the layer's parts ask

    FailoverConfig config() {
        return config;
    }

    NodeKeyTable keys() {
        return keys;
    }

    int adapterCount() {
        return adapters.length;
    }

    RdmaDevice adapter(int k) {
        return adapters[k];
    }

    InetAddress address(int k) {
        return addresses[k];
    }

    /** Whether adapter {@code k} can carry work now. */
    boolean usable(int k) {
        RdmaDevice d = adapters[k];
        return !d.isClosed() && d.portState() == PortState.ACTIVE;
    }

    /** Whether adapter {@code k} can listen now: open and not failed (its link may be down: requests wait for it). */
    boolean canListen(int k) {
        RdmaDevice d = adapters[k];
        return !d.isClosed() && d.portState() != PortState.FATAL;
    }

    /** Whether adapter {@code k} failed (a fatal error) and was not reset yet. */
    boolean failing(int k) {
        return fatalCause(k) != null;
    }

    /** Why adapter {@code k} failed, while it is failed (until its reset); null while it works. */
    String fatalCause(int k) {
        RdmaDevice d = adapters[k];
        return d instanceof dev.tandem.verbs.AdapterControl c ? c.fatalCause().orElse(null) : null;
    }

    /** Whether adapter {@code k} failed and the layer gave back what it held there (until it is rebuilt). */
    synchronized boolean released(int k) {
        return released[k];
    }

    /** The adapter a new session (PD) is primary on: the usable adapters take turns. */
    int nextPrimary() {
        for (int tries = 0; tries < adapters.length; tries++) {
            int k = Math.floorMod(primaries.getAndIncrement(), adapters.length);
            if (usable(k)) {
                return k;
            }
        }
        throw new DeviceUnavailableException("device " + name + ": none of its adapters can carry work");
    }

    int nextQpNumber() {
        return qpNumbers.getAndIncrement();
    }

    int nextCqNumber() {
        return cqNumbers.getAndIncrement();
    }

    /** Where an adapter QP's completions and events go: the connection, and which of its paths the QP is. */
    record Route(FailoverQueuePair qp, Path path) {
    }

    void route(int adapter, int adapterQpNumber, Route route) {
        routes.get(adapter).put(adapterQpNumber, route);
    }

    void unroute(int adapter, int adapterQpNumber) {
        routes.get(adapter).remove(adapterQpNumber);
    }

    /** The connection and path that adapter {@code adapter}'s QP {@code qpNumber} carries, or null (gone, or the layer's own). */
    Route routeOf(int adapter, int qpNumber) {
        return routes.get(adapter).get(qpNumber);
    }

    /** The session numbers of its connections. */
    Sessions sessions() {
        return sessions;
    }

    void own(Object adapterResource, Object failoverResource) {
        owners.put(adapterResource, failoverResource);
    }

    void disown(Object adapterResource) {
        owners.remove(adapterResource);
    }

    Object ownerOf(Object adapterResource) {
        return owners.get(adapterResource);
    }

    void connected(long connectionId, FailoverQueuePair qp) {
        connections.put(connectionId, qp);
    }

    void disconnected(long connectionId) {
        connections.remove(connectionId);
    }

    FailoverQueuePair connection(long connectionId) {
        return connections.get(connectionId);
    }

    void raise(AsyncEvent event) {
        events.raise(event);
    }

    Monitor monitor() {
        return monitor;
    }

    synchronized <T extends AutoCloseable> T remember(T resource) {
        checkOpen();
        open.add(resource);
        return resource;
    }

    /** The first-level CQs open now (for the monitor's sweep). */
    List<FirstLevelCq> firstLevelCqs() {
        return openOf(FirstLevelCq.class);
    }

    /** What is open now of {@code type}, in the order it was opened (a copy: the caller may close some). */
    private synchronized <T> List<T> openOf(Class<T> type) {
        List<T> l = new ArrayList<>();
        for (AutoCloseable c : open) {
            if (type.isInstance(c)) {
                l.add(type.cast(c));
            }
        }
        return l;
    }

    synchronized void forget(AutoCloseable resource) {
        open.remove(resource);
    }

    void checkOpen() {
        if (closed) {
            throw new ResourceClosedException("device " + name + " is closed");
        }
    }

    // ---------------------------------------------------------------- RdmaDevice

    @Override
    public String name() {
        return name;
    }

    @Override
    public DeviceAttributes attributes() {
        return attributes;
    }

    /** ACTIVE while any adapter can carry work; DOWN when none can. */
    @Override
    public PortState portState() {
        for (int k = 0; k < adapters.length; k++) {
            if (usable(k)) {
                return PortState.ACTIVE;
            }
        }
        return PortState.DOWN;
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() {
        checkOpen();
        return remember(new FailoverProtectionDomain(this));
    }

    @Override
    public CompletionQueue createCompletionQueue(int depth) {
        return createCompletionQueue(depth, null);
    }

    @Override
    public CompletionQueue createCompletionQueue(int depth, CompletionChannel channel) {
        checkOpen();
        return remember(new FirstLevelCq(this, depth, channel));
    }

    @Override
    public Listener listen(InetSocketAddress address, int backlog) {
        checkOpen();
        return remember(new FailoverListener(this, address, backlog));
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

    /** Closes what the application left open (listeners, QPs, then the rest), stops the monitor, then closes the adapters. */
    @Override
    public void close() {
        List<AutoCloseable> left;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            left = new ArrayList<>(open);
            open.clear();
        }
        left.sort((a, b) -> Integer.compare(closeOrder(a), closeOrder(b)));
        RuntimeException failure = null;
        JoinListener j = joinsIfAny();
        if (j != null) {
            j.close(); // no path joins any more
        }
        for (AutoCloseable c : left) {
            try {
                c.close();
            } catch (Exception e) {
                failure = failure == null ? new IllegalStateException("closing " + c + " with device " + name + " failed", e) : failure;
            }
        }
        monitor.stop();
        ras.close();
        for (RdmaDevice d : adapters) {
            try {
                d.close();
            } catch (RuntimeException e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Where a resource comes in closing: listeners first (no new connections), then QPs (they use the
     * rest), windows, regions, SRQs, PDs, and CQs last (closing QPs still flushes into them). A PD
     * closes its own in the same order; coming back after a reset goes the other way.
     */
    static int closeOrder(AutoCloseable c) {
        return switch (c) {
            case FailoverListener l -> 0;
            case FailoverQueuePair q -> 1;
            case FailoverMemoryWindow w -> 2;
            case FailoverMemoryRegion r -> 3;
            case FailoverSharedReceiveQueue s -> 4;
            case FailoverProtectionDomain p -> 5;
            default -> 6;
        };
    }

    @Override
    public String toString() {
        return name;
    }
}

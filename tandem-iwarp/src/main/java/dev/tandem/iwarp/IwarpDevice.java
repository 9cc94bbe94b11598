package dev.tandem.iwarp;

import dev.tandem.iwarp.ras.AdapterRas;
import dev.tandem.iwarp.wire.NodeKeyBlock;
import dev.tandem.provider.DeviceCore;
import dev.tandem.provider.ErrorCause;
import dev.tandem.provider.KitDevice;
import dev.tandem.provider.LiveResource;
import dev.tandem.provider.Owner;
import dev.tandem.provider.ResourceLimits;
import dev.tandem.provider.StagTable;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.TraceLevel;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.DeviceOptions;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.LinkControl;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.PortState;
import dev.tandem.verbs.ResourceClosedException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.channels.ServerSocketChannel;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A software iWARP adapter (RNIC) bound to one local IP address: MPA/DDP/RDMAP over TCP with
 * java.nio, data placed straight between sockets and registered memory. Open it with
 * {@link #open(IwarpConfig)}; several adapters may live in one process.
 *
 * <p>Its link can be taken down and up and its connections reset ({@link LinkControl}), for tests and
 * the fail-over demo. Down, the engine neither reads nor writes the adapter's sockets (it stops watching
 * them, so it does not spin on bytes a peer sends meanwhile), connects wait for the link until their
 * timeout, listeners neither take connections nor read requests, and closes are held back until the link
 * is up (or the adapter closes, which ends its connections whatever the link). A fatal error and
 * {@link #reset} work while the link is down and leave it down: after a reset {@link #portState()} is
 * still {@link PortState#DOWN} (the reset's PORT_ACTIVE says the adapter works again, not that its link is up).
 *
 * <p>A fatal error ends at once what the adapter had on the wire, as a failed RNIC does: its connections are
 * reset (the peers see RST now, not when the adapter is closed or reset), its listeners stop (pending
 * handshakes reset, new connects refused) and connects in progress fail with the adapter's failure. Through a
 * downed link the peers learn of it once the link is up.
 */
public final class IwarpDevice extends KitDevice implements LinkControl {
    private static final AtomicInteger ADAPTERS = new AtomicInteger();
    static {
        Owner.skipFramesOf(IwarpDevice.class);
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
    /** What this adapter presents and checks at set-up; null when it was opened without node keys. */
    private final NodeKeyExchange nodeKeys;
    private final int maxUlpdu;
    /** Writes this adapter's state into every dump of the process. */
    private final AdapterSnapshot snapshot = new AdapterSnapshot(this);
    private final AdapterRas ras;
    /** Up, or down as fault injection set it; the engine, listeners and connect look at it. */
    private final Link link = new Link();
    /** Keeps link transitions and their events in one order. */
    private final Object linkLock = new Object();

    private IwarpDevice(IwarpConfig config, DeviceOptions options, String name, NodeKeyBlock ownBlock) {
        super(name, attributes(ownBlock), options, config.leakMode(), System.getLogger("dev.tandem.iwarp." + name),
                device -> new IwTransport((IwarpDevice) device, config));
        this.config = config;
        this.nodeKeys = ownBlock == null ? null : NodeKeyExchange.of(this, options.nodeKeys(), ownBlock);
        this.ras = new AdapterRas(core.ras());
        this.maxUlpdu = config.maxUlpdu() != 0 ? config.maxUlpdu() : ulpduForMtu(mtu(config));
        transport().start();
        dev.tandem.ras.ProcessRas.addSnapshotSource(snapshot);
    }

    /** Opens an adapter on {@code config.localAddress()}, which must be an address of this host. */
    public static IwarpDevice open(IwarpConfig config) {
        return open(config, DeviceOptions.DEFAULT);
    }

    /**
     * Opens an adapter on {@code config.localAddress()}, which must be an address of this host, with
     * what {@code options} give (an STag source shared with other adapters of the node, say). With node
     * keys, the adapter presents its node's name and incarnation key when it sets up a connection with a
     * Tandem peer, refuses a peer that presents a key of an earlier life of its node, and drops every
     * frame of a connection whose peer node has restarted since ({@link NodeKeyBlock}); its
     * {@code maxPrivateData} is smaller by the block's octets. Node keys do not choose the STags: give
     * the node key table as the STag source too for STags drawn per node incarnation.
     *
     * @throws InvalidArgumentException when the node keys give a blank or too long node name, or key 0
     */
    public static IwarpDevice open(IwarpConfig config, DeviceOptions options) {
        if (config == null) {
            throw new InvalidArgumentException("IwarpDevice.open: config is null");
        }
        if (options == null) {
            throw new InvalidArgumentException("IwarpDevice.open: options are null; use DeviceOptions.DEFAULT");
        }
        NodeKeyBlock ownBlock = options.nodeKeys() == null ? null : NodeKeyExchange.blockOf(options.nodeKeys());
        String name = "iwarp" + ADAPTERS.getAndIncrement() + "@" + config.localAddress().getHostAddress();
        checkLocal(config);
        return new IwarpDevice(config, options, name, ownBlock);
    }

    /**
     * What an adapter offers: {@link #ATTRIBUTES}, less the node key block's octets in
     * {@code maxPrivateData} for an adapter with node keys (the block shares MPA's 512 octets with the
     * IRD/ORD words and the application's private data). The smaller figure holds for every connection
     * of such an adapter, to a plain iWARP peer too (where no block goes out), so that one figure is
     * right whoever the peer turns out to be.
     */
    private static DeviceAttributes attributes(NodeKeyBlock ownBlock) {
        DeviceAttributes a = ATTRIBUTES;
        if (ownBlock == null) {
            return a;
        }
        return new DeviceAttributes(a.maxQueuePairs(), a.maxQueuePairDepth(), a.maxSge(), a.maxCqDepth(), a.maxMemoryRegions(),
                a.maxMessageSize(), a.maxInlineData(), a.maxIrd(), a.maxOrd(), a.maxPrivateData() - ownBlock.length(),
                a.maxCompletionQueues(), a.maxSharedReceiveQueues(), a.maxProtectionDomains());
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

    // ---------------------------------------------------------------- RdmaDevice: what the kit's device does not

    @Override
    public Listener listen(InetSocketAddress address, int backlog) {
        core.enter();
        try {
            core.checkOpen();
            return core.remember(new IwListener(this, address, backlog));
        } finally {
            core.leave();
        }
    }

    // ---------------------------------------------------------------- LinkControl

    /** {@link PortState#DOWN} while the link is down and the adapter has not failed; the core's state otherwise. */
    @Override
    public PortState portState() {
        PortState s = core.portState();
        return s == PortState.ACTIVE && link.isDown() ? PortState.DOWN : s;
    }

    @Override
    public void linkDown() {
        synchronized (linkLock) {
            checkNotClosed("linkDown");
            if (!link.goDown()) {
                return;
            }
            transport().linkWentDown();
            ras.linkDowns.incrementAtomic();
            trace(AdapterRas.LINK_DOWN, 0, "link down");
            recordError(this, "link down (injected): no byte moves on the adapter's connections until link up");
            raise(AsyncEventType.PORT_ERROR, this, "link of adapter " + name() + " down (injected)");
        }
    }

    @Override
    public void linkUp() {
        synchronized (linkLock) {
            checkNotClosed("linkUp");
            int parked = link.parked();
            if (!link.goUp()) {
                return;
            }
            ras.linkUps.incrementAtomic();
            transport().linkCameUp();
            trace(AdapterRas.LINK_UP, parked, "link up");
            logger().log(System.Logger.Level.INFO, name() + ": link up (injected); " + parked + " connection close(s) held back by the link done now");
            if (core.portState() == PortState.ACTIVE) {
                // a failed adapter stays FATAL until its reset raises PORT_ACTIVE
                raise(AsyncEventType.PORT_ACTIVE, this, "link of adapter " + name() + " up (injected)");
            }
        }
    }

    @Override
    public boolean isLinkUp() {
        return !link.isDown();
    }

    @Override
    public int resetConnections() {
        checkNotClosed("resetConnections");
        int n = transport().resetConnections("connection reset (injected)");
        ras.connectionsReset.addAtomic(n);
        trace(AdapterRas.CONNECTIONS_RESET, n, "connections reset");
        recordError(this, "connections reset (injected): " + n + " TCP connection(s) aborted with RST");
        return n;
    }

    private void checkNotClosed(String what) {
        if (isClosed()) {
            throw new ResourceClosedException(what + ": adapter " + name() + " is closed");
        }
    }

    private void trace(dev.tandem.ras.TraceEvent event, long a, String text) {
        if (ras.cm.enabled(TraceLevel.RARE)) {
            ras.cm.record(TraceLevel.RARE, event, a, 0, 0, 0, text);
        }
    }

    /** The adapter's link (fault injection): the engine, listeners and connect ask it before they move a byte. */
    Link link() {
        return link;
    }

    /** The resources open on this adapter right now, oldest first, each with its owner. */
    List<LiveResource> liveResources() {
        return core.liveResources();
    }

    /** The engine stopped serving the closed adapter: its dump and (when no thread is inside a verb) its counters go. */
    void stopped(boolean quiesced) {
        dev.tandem.ras.ProcessRas.removeSnapshotSource(snapshot);
        if (quiesced) {
            ras.close();
        }
    }

    // ---------------------------------------------------------------- engine side

    IwarpConfig config() {
        return config;
    }

    StagTable stags() {
        return core.stags();
    }

    /** The kit's part of this adapter. */
    DeviceCore core() {
        return core;
    }

    int maxUlpdu() {
        return maxUlpdu;
    }

    /** What this adapter presents and checks at connection set-up, or null when it was opened without node keys. */
    NodeKeyExchange nodeKeys() {
        return nodeKeys;
    }

    System.Logger logger() {
        return core.logger();
    }

    /** The engine side of this adapter. */
    IwTransport transport() {
        return (IwTransport) transport; // the one this device made (constructor)
    }

    /** Name of the engine thread serving this adapter. */
    public String engineThreadName() {
        return transport().threadName();
    }

    /** True while the engine thread serving this adapter runs. */
    public boolean isEngineRunning() {
        return transport().isRunning();
    }

    /** Kills the engine thread serving this adapter with {@code e} (fault injection for tests). */
    void injectEngineCrash(Error e) {
        transport().injectCrash(e);
    }

    /** How many of each limited kind are open (dumps show them). */
    ResourceLimits limits() {
        return core.limits();
    }

    /** Updates the detail text of a resource in the owner table (e.g. a QP's state and peer). */
    void describe(AutoCloseable r, String detail) {
        core.describe(r, detail);
    }

    /** Throws when the adapter is closed or failed: nothing new may be created or posted on it. */
    void checkOpen() {
        core.checkOpen();
    }

    /** Enters a verb (the quiesce gate); pair with {@link #leave()} in a finally block. */
    void enter() {
        core.enter();
    }

    void leave() {
        core.leave();
    }

    void raise(AsyncEventType type, Object resource, String detail) {
        core.raise(type, resource, detail);
    }

    void recordError(Object source, Failure f) {
        core.recordError(source, f.detail());
    }

    /** Records an error in the process's distinct error log and logs each distinct cause once (see {@link DeviceCore#recordError}). */
    void recordError(Object source, String cause) {
        core.recordError(source, cause);
    }

    /** As {@link #recordError(Object, String)}, with the key worked out already. */
    void recordError(Object source, ErrorCause cause) {
        core.recordError(source, cause);
    }

    AdapterRas ras() {
        return ras;
    }

    @Override
    public String toString() {
        return "IwarpDevice[" + name() + "]";
    }
}

package dev.tandem.tools.perf;

import dev.tandem.tools.perf.rdma.Patience;
import dev.tandem.tools.perf.rdma.RdmaEndpoint;
import dev.tandem.tools.perf.rdma.RdmaPattern;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.RdmaDevice;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The serving side of {@code tandem perf}: listens on one adapter, serves one client the test it
 * asks for (the client's hello carries every parameter), and returns what it did. A baseline the
 * client asks for is served on a port of its own: TCP's on the adapter's address, an iWARP
 * baseline's on a plain adapter at that address, which only a server given one can serve.
 */
public final class PerfServer implements AutoCloseable {
    /** Receives the send_bw server keeps posted, as perftest's DEF_RX_SEND. */
    public static final int RX_DEPTH = 512;
    private final RdmaDevice device;
    private final Listener listener;
    private final boolean crc;
    private final Patience patience;
    /** The plain adapter an iWARP baseline runs on, or null when this server serves none. */
    private final RdmaDevice baselineDevice;
    /** The baseline's listener while one is open; guarded by this. */
    private BaselineListener baseline;
    private boolean closed;

    private PerfServer(RdmaDevice device, Listener listener, boolean crc, Patience patience, RdmaDevice baselineDevice) {
        this.device = device;
        this.listener = listener;
        this.crc = crc;
        this.patience = patience;
        this.baselineDevice = baselineDevice;
    }

    /** Listens on {@code address} (port 0 picks a free one) of {@code device}, which was opened with {@code crc}. */
    public static PerfServer listen(RdmaDevice device, InetSocketAddress address, boolean crc) {
        return listen(device, address, crc, Patience.DEFAULT);
    }

    /** As {@link #listen(RdmaDevice, InetSocketAddress, boolean)}, with the patience of the server's waits. */
    static PerfServer listen(RdmaDevice device, InetSocketAddress address, boolean crc, Patience patience) {
        return listen(device, address, crc, patience, null);
    }

    /**
     * As {@link #listen(RdmaDevice, InetSocketAddress, boolean, Patience)}, able to serve an iWARP
     * baseline on {@code baselineDevice}: a plain adapter at {@code address}'s IP, opened with {@code crc}.
     */
    static PerfServer listen(RdmaDevice device, InetSocketAddress address, boolean crc, Patience patience, RdmaDevice baselineDevice) {
        return new PerfServer(device, device.listen(address, 1), crc, patience, baselineDevice);
    }

    public InetSocketAddress address() {
        return listener.localAddress();
    }

    /**
     * Waits up to {@code acceptTimeout} for a client, then serves it to the end. A request this side
     * cannot serve is rejected with the reason, which the client reports; whatever happens, what
     * was opened for the client is closed before this returns.
     */
    public ServedRun serveOne(Duration acceptTimeout) {
        ConnectionRequest request = listener.accept(acceptTimeout);
        Hello.Client hello;
        PerfPlan plan;
        try {
            hello = Hello.Client.decode(request.privateData());
            plan = hello.plan();
        } catch (RuntimeException e) {
            RuntimeException why = e instanceof PerfException ? e : new PerfException("the client's hello is invalid: " + e.getMessage(), e);
            refuse(request, device, why);
            throw why;
        }
        PerfTest test = hello.test();
        int area = RdmaEndpoint.areaFor(plan.maxSize());
        int rxDepth = Math.min(RX_DEPTH, device.attributes().maxQueuePairDepth());
        List<SideResult> tandem = new ArrayList<>();
        List<SideResult> compared = new ArrayList<>();
        boolean answered = false;
        try (RdmaEndpoint ep = RdmaEndpoint.create(device, area, RdmaPattern.sendDepth(test, hello.txDepth()),
                RdmaPattern.receiveDepth(test, false, rxDepth), hello.waitMode(), "server", patience);
             BaselineListener baselineListener = openBaseline(hello.baseline())) {
            RdmaPattern pattern = RdmaPattern.of(test, ep, hello.txDepth(), false, rxDepth);
            pattern.prepareReceives();
            request.accept(ep.qp(), new Hello.Server(crc, ep.rkey(), area, rxDepth, baselineListener == null ? 0 : baselineListener.port())
                    .encode());
            answered = true;
            pattern.connected(hello.rkey(), hello.area(), 0);
            try (BaselineSide baselineSide = baselineListener == null ? null : baselineListener.accept(hello, area)) {
                for (Phase phase : plan.phases()) {
                    tandem.add(pattern.server(phase));
                    if (baselineSide != null) {
                        compared.add(baselineSide.run(phase));
                    }
                }
                if (baselineSide != null) {
                    baselineSide.finish();
                }
            }
            pattern.drain();
        } catch (RuntimeException e) {
            if (!answered) {
                refuse(request, device, e);
            }
            throw e;
        }
        return new ServedRun(String.valueOf(request.remoteAddress()), hello, crc || hello.crc(), tandem, compared);
    }

    /**
     * Opens the listener of the {@code kind} of baseline the client asks for (null for none), which
     * {@link #close} also closes (ending a wait for the client).
     */
    private BaselineListener openBaseline(Baseline kind) {
        InetAddress local = address().getAddress();
        BaselineListener opened = switch (kind) {
            case NONE -> null;
            case TCP -> TcpBaselineListener.open(local);
            case IWARP -> {
                if (baselineDevice == null) {
                    throw new PerfException("this server has no plain iWARP adapter for an iWARP baseline; --baseline iwarp runs with "
                            + "--device failover, both sides in one process");
                }
                yield IwarpBaselineListener.open(baselineDevice, local, crc, patience);
            }
        };
        if (opened == null) {
            return null;
        }
        synchronized (this) {
            if (!closed) {
                baseline = opened;
                return opened;
            }
        }
        opened.close();
        throw new PerfException("the server was closed while it set up the " + kind.cliName() + " baseline");
    }

    /** Rejects {@code request} to {@code device}, telling the client why (as much of the reason as private data can carry). */
    static void refuse(ConnectionRequest request, RdmaDevice device, RuntimeException why) {
        String reason = "tandem perf server: " + why.getMessage();
        byte[] data = reason.getBytes(StandardCharsets.US_ASCII);
        try {
            request.reject(Arrays.copyOf(data, Math.min(data.length, device.attributes().maxPrivateData())));
        } catch (RuntimeException e) {
            why.addSuppressed(e);
        }
    }

    /**
     * Stops listening; from any thread. A {@link #serveOne} waiting for a client (on the RDMA listener
     * or the baseline's) fails at once; one serving a client ends when that client's connection does.
     */
    @Override
    public void close() {
        BaselineListener open;
        synchronized (this) {
            closed = true;
            open = baseline;
            baseline = null;
        }
        try {
            listener.close();
        } finally {
            if (open != null) {
                open.close();
            }
        }
    }
}

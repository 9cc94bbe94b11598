package dev.tandem.tools.perf;

import dev.tandem.tools.perf.rdma.Patience;
import dev.tandem.tools.perf.rdma.RdmaEndpoint;
import dev.tandem.tools.perf.rdma.RdmaPattern;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.RdmaDevice;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The iWARP baseline's listener: a free port on a plain iWARP adapter at the server device's
 * address. The client's baseline connection must carry the run's hello (only its rkey differs).
 */
final class IwarpBaselineListener implements BaselineListener {
    private final RdmaDevice device;
    private final Listener listener;
    private final boolean crc;
    private final Patience patience;

    private IwarpBaselineListener(RdmaDevice device, Listener listener, boolean crc, Patience patience) {
        this.device = device;
        this.listener = listener;
        this.crc = crc;
        this.patience = patience;
    }

    /** Listens on a free port of {@code device} (a plain adapter opened with {@code crc}) at {@code local}. */
    static IwarpBaselineListener open(RdmaDevice device, InetAddress local, boolean crc, Patience patience) {
        return new IwarpBaselineListener(device, device.listen(new InetSocketAddress(local, 0), 1), crc, patience);
    }

    @Override
    public int port() {
        return listener.localAddress().getPort();
    }

    @Override
    public BaselineSide accept(Hello.Client hello, int area) {
        ConnectionRequest request = listener.accept(Stall.TIMEOUT);
        int rxDepth = Math.min(PerfServer.RX_DEPTH, device.attributes().maxQueuePairDepth());
        PerfTest test = hello.test();
        RdmaEndpoint ep = null;
        boolean answered = false;
        try {
            Hello.Client asked = Hello.Client.decode(request.privateData());
            if (!asked.withRkey(hello.rkey()).equals(hello)) {
                throw new PerfException("the iWARP baseline's connection asks for " + asked + ", not the run's " + hello);
            }
            ep = RdmaEndpoint.create(device, area, RdmaPattern.sendDepth(test, hello.txDepth()),
                    RdmaPattern.receiveDepth(test, false, rxDepth), hello.waitMode(), "baseline server", patience);
            RdmaPattern pattern = RdmaPattern.of(test, ep, hello.txDepth(), false, rxDepth);
            pattern.prepareReceives();
            request.accept(ep.qp(), new Hello.Server(crc, ep.rkey(), area, rxDepth, 0).encode());
            answered = true;
            pattern.connected(asked.rkey(), asked.area(), 0);
            return new IwarpBaselineSide(ep, pattern, false);
        } catch (RuntimeException e) {
            if (!answered) {
                PerfServer.refuse(request, device, e);
            }
            if (ep != null) {
                IwarpBaselineSide.closeInto(ep, e);
            }
            throw e;
        }
    }

    @Override
    public void close() {
        listener.close();
    }
}

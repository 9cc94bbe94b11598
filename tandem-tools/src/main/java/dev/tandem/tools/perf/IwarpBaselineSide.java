package dev.tandem.tools.perf;

import dev.tandem.tools.perf.rdma.Patience;
import dev.tandem.tools.perf.rdma.RdmaEndpoint;
import dev.tandem.tools.perf.rdma.RdmaPattern;
import dev.tandem.verbs.RdmaDevice;

import java.net.InetSocketAddress;

/**
 * The iWARP baseline's side: the run's {@link RdmaPattern} over a plain iWARP adapter, on a
 * connection and endpoint of its own next to the Tandem device's.
 */
final class IwarpBaselineSide implements BaselineSide {
    private final RdmaEndpoint ep;
    private final RdmaPattern pattern;
    private final boolean client;

    IwarpBaselineSide(RdmaEndpoint ep, RdmaPattern pattern, boolean client) {
        this.ep = ep;
        this.pattern = pattern;
        this.client = client;
    }

    /**
     * Connects the plain adapter {@code device} to the server's baseline port with the run's hello
     * (carrying this connection's own rkey).
     */
    static IwarpBaselineSide connect(RdmaDevice device, InetSocketAddress server, Hello.Client runHello, int area, Patience patience) {
        PerfTest test = runHello.test();
        RdmaEndpoint ep = RdmaEndpoint.create(device, area, RdmaPattern.sendDepth(test, runHello.txDepth()),
                RdmaPattern.receiveDepth(test, true, 0), runHello.waitMode(), "baseline client", patience);
        try {
            RdmaPattern pattern = RdmaPattern.of(test, ep, runHello.txDepth(), true, 0);
            pattern.prepareReceives();
            Hello.Server answer = Hello.Server.decode(PerfClient.connect(ep, server, runHello.withRkey(ep.rkey())));
            if (answer.area() < area) {
                throw new PerfException("the server's iWARP baseline buffer holds " + answer.area() + " bytes, this run needs " + area);
            }
            pattern.connected(answer.rkey(), answer.area(), answer.rxDepth());
            return new IwarpBaselineSide(ep, pattern, true);
        } catch (RuntimeException e) {
            closeInto(ep, e);
            throw e;
        }
    }

    static void closeInto(RdmaEndpoint ep, RuntimeException failure) {
        try {
            ep.close();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    @Override
    public SideResult run(Phase phase) {
        return client ? pattern.client(phase) : pattern.server(phase);
    }

    @Override
    public void finish() {
        pattern.drain();
    }

    @Override
    public void close() {
        ep.close();
    }
}

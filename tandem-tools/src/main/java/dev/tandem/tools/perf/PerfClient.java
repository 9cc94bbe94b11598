package dev.tandem.tools.perf;

import dev.tandem.tools.perf.rdma.Patience;
import dev.tandem.tools.perf.rdma.RdmaEndpoint;
import dev.tandem.tools.perf.rdma.RdmaPattern;
import dev.tandem.verbs.ConnectionRejectedException;
import dev.tandem.verbs.RdmaDevice;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The measuring side of {@code tandem perf}: connects, sends the run's parameters, runs every phase,
 * each over Tandem and then over the baseline's own connection when the run has one.
 */
public final class PerfClient {
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

    private PerfClient() {
    }

    /**
     * @param device the client's adapter, at {@code local}
     * @param server the perf server's listener
     */
    public static MeasuredRun run(RdmaDevice device, InetAddress local, InetSocketAddress server, PerfSettings s, PerfProgress progress) {
        return run(device, local, server, s, progress, Patience.DEFAULT);
    }

    /** As {@link #run(RdmaDevice, InetAddress, InetSocketAddress, PerfSettings, PerfProgress)}, with the patience of its waits. */
    static MeasuredRun run(RdmaDevice device, InetAddress local, InetSocketAddress server, PerfSettings s, PerfProgress progress,
                           Patience patience) {
        return run(device, null, local, server, s, progress, patience);
    }

    /**
     * As {@link #run(RdmaDevice, InetAddress, InetSocketAddress, PerfSettings, PerfProgress, Patience)}, with
     * {@code baselineDevice}, the plain adapter an iWARP baseline runs on (at {@code local}; null without one).
     */
    static MeasuredRun run(RdmaDevice device, RdmaDevice baselineDevice, InetAddress local, InetSocketAddress server, PerfSettings s,
                           PerfProgress progress, Patience patience) {
        if (s.baseline() == Baseline.IWARP && baselineDevice == null) {
            throw new IllegalArgumentException("an iWARP baseline needs the plain adapter to run on; none was given");
        }
        PerfTest test = s.test();
        PerfPlan plan = s.plan();
        int area = RdmaEndpoint.areaFor(plan.maxSize());
        List<SizeResult> results = new ArrayList<>();
        boolean crc;
        try (RdmaEndpoint ep = RdmaEndpoint.create(device, area, RdmaPattern.sendDepth(test, s.txDepth()),
                RdmaPattern.receiveDepth(test, true, 0), s.waitMode(), "client", patience)) {
            RdmaPattern pattern = RdmaPattern.of(test, ep, s.txDepth(), true, 0);
            pattern.prepareReceives();
            Hello.Client hello = new Hello.Client(test, s.waitMode(), s.baseline(), s.sweep(), s.crc(), s.size(), s.iterations(),
                    s.warmup(), s.txDepth(), ep.rkey(), area, s.durationSeconds());
            Hello.Server answer = Hello.Server.decode(connect(ep, server, hello));
            if (answer.area() < area) {
                throw new PerfException("the server's buffer holds " + answer.area() + " bytes, this run needs " + area);
            }
            crc = s.crc() || answer.crc();
            pattern.connected(answer.rkey(), answer.area(), answer.rxDepth());
            progress.connected(local.getHostAddress(), server.getAddress().getHostAddress() + ":" + server.getPort(), crc);
            InetSocketAddress baselineServer = new InetSocketAddress(server.getAddress(), answer.baselinePort());
            try (BaselineSide baseline = switch (s.baseline()) {
                case NONE -> null;
                case TCP -> TcpBaselineSide.connect(local, baselineServer, s, area);
                case IWARP -> IwarpBaselineSide.connect(baselineDevice, baselineServer, hello, area, patience);
            }) {
                for (Phase phase : plan.phases()) {
                    SideResult t = pattern.client(phase);
                    SideResult b = baseline == null ? null : baseline.run(phase);
                    SizeResult r = new SizeResult(phase, t.figures(), t.allocPerOp(), Double.NaN,
                            b == null ? null : b.figures(), b == null ? Double.NaN : b.allocPerOp(), Double.NaN);
                    results.add(r);
                    progress.result(r);
                }
                if (baseline != null) {
                    baseline.finish();
                }
            }
            pattern.drain();
        }
        return new MeasuredRun(local.getHostAddress(), server.getAddress().getHostAddress() + ":" + server.getPort(), crc, results);
    }

    /** Connects with the hello; a server that refuses the run has said why in its reject. */
    static byte[] connect(RdmaEndpoint ep, InetSocketAddress server, Hello.Client hello) {
        try {
            return ep.qp().connect(server, hello.encode(), CONNECT_TIMEOUT);
        } catch (ConnectionRejectedException e) {
            String reason = new String(e.privateData(), StandardCharsets.US_ASCII);
            throw new PerfException("the server at " + server.getAddress().getHostAddress() + ":" + server.getPort() + " refused the run: "
                    + (reason.isEmpty() ? "no reason given (is it a tandem perf --server, and still free?)" : reason), e);
        }
    }
}

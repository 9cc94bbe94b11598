package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.AllocationMeter;
import dev.tandem.tools.perf.LatencyStats;
import dev.tandem.tools.perf.Phase;
import dev.tandem.tools.perf.PerfTest;
import dev.tandem.tools.perf.SideResult;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

/** send_lat: a ping-pong of Sends; each side keeps receives posted. Latency is half the round trip. */
final class SendLatPattern extends RdmaPattern {
    static final int RECEIVES = 16;
    private static final int SEND_SLOTS = 8;

    SendLatPattern(RdmaEndpoint ep) {
        super(ep);
    }

    @Override
    public void prepareReceives() {
        postReceives(RECEIVES, 0, ep.area());
    }

    @Override
    public SideResult client(Phase phase) {
        WorkRequest send = new WorkRequest.Send(1, ep.sendSge(0, phase.size()), WrFlags.SIGNALED);
        long[] samples = new long[phase.iterations()];
        pingPong(send, phase.warmup(), null);
        long before = AllocationMeter.currentThreadBytes();
        pingPong(send, phase.iterations(), samples);
        long after = AllocationMeter.currentThreadBytes();
        return new SideResult(LatencyStats.of(phase.size(), samples, phase.iterations(), PerfTest.SEND_LAT.latencyDivisor()),
                AllocationMeter.perOperation(before, after, phase.iterations()));
    }

    private void pingPong(WorkRequest send, int count, long[] samples) {
        for (int i = 0; i < count; i++) {
            awaitSendSlot(SEND_SLOTS);
            long target = received + 1;
            long start = System.nanoTime();
            post(send);
            awaitReceived(target);
            long end = System.nanoTime();
            if (samples != null) {
                samples[i] = end - start;
            }
        }
    }

    @Override
    public SideResult server(Phase phase) {
        WorkRequest send = new WorkRequest.Send(1, ep.sendSge(0, phase.size()), WrFlags.SIGNALED);
        long before = AllocationMeter.currentThreadBytes();
        for (int i = 0; i < phase.total(); i++) {
            awaitReceived(received + 1);
            awaitSendSlot(SEND_SLOTS);
            post(send);
        }
        long after = AllocationMeter.currentThreadBytes();
        return SideResult.serving(AllocationMeter.perOperation(before, after, phase.total()));
    }
}

package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.AllocationMeter;
import dev.tandem.tools.perf.LatencyStats;
import dev.tandem.tools.perf.Phase;
import dev.tandem.tools.perf.PerfTest;
import dev.tandem.tools.perf.SideResult;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

/** read_lat: the client issues one RDMA Read at a time from the server's send area; each is timed whole. */
final class ReadLatPattern extends RdmaPattern {
    private WorkRequest control;

    ReadLatPattern(RdmaEndpoint ep) {
        super(ep);
    }

    @Override
    public void prepareReceives() {
        OneSided.prepare(this);
        control = OneSided.control(ep);
    }

    @Override
    public SideResult client(Phase phase) {
        WorkRequest read = new WorkRequest.RdmaRead(1, ep.receiveSge(0, phase.size()), peerArea, peerRkey, WrFlags.SIGNALED);
        long[] samples = new long[phase.iterations()];
        expectIdle();
        reads(read, phase.warmup(), null);
        long before = AllocationMeter.currentThreadBytes();
        reads(read, phase.iterations(), samples);
        long after = AllocationMeter.currentThreadBytes();
        OneSided.finishClient(this, control);
        return new SideResult(LatencyStats.of(phase.size(), samples, phase.iterations(), PerfTest.READ_LAT.latencyDivisor()),
                AllocationMeter.perOperation(before, after, phase.iterations()));
    }

    private void reads(WorkRequest read, int count, long[] samples) {
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            post(read);
            awaitSendsDone();
            long end = System.nanoTime();
            if (samples != null) {
                samples[i] = end - start;
            }
        }
    }

    @Override
    public SideResult server(Phase phase) {
        long before = AllocationMeter.currentThreadBytes();
        OneSided.serve(this, control);
        long after = AllocationMeter.currentThreadBytes();
        return SideResult.serving(AllocationMeter.perOperation(before, after, phase.total()));
    }
}

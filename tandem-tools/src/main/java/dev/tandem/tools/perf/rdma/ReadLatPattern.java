package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.AllocationMeter;
import dev.tandem.tools.perf.LatencySamples;
import dev.tandem.tools.perf.Phase;
import dev.tandem.tools.perf.PerfTest;
import dev.tandem.tools.perf.SideResult;
import dev.tandem.tools.perf.Span;
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
        LatencySamples samples = LatencySamples.forSpan(phase.measured());
        expectIdle();
        long warm = reads(read, phase.warmup(), null);
        long before = AllocationMeter.currentThreadBytes();
        long count = reads(read, phase.measured(), samples);
        long after = AllocationMeter.currentThreadBytes();
        OneSided.finishClient(this, control, warm + count);
        return new SideResult(samples.stats(phase.size(), PerfTest.READ_LAT.latencyDivisor()),
                AllocationMeter.perOperation(before, after, count), count);
    }

    /** One Read at a time for {@code span}; returns how many. */
    private long reads(WorkRequest read, Span span, LatencySamples samples) {
        long begin = System.nanoTime();
        long end = begin;
        long i = 0;
        for (; span.goOn(i, end - begin); i++) {
            long start = System.nanoTime();
            post(read);
            awaitSendsDone();
            end = System.nanoTime();
            if (samples != null) {
                samples.record(end - start);
            }
        }
        return i;
    }

    @Override
    public SideResult server(Phase phase) {
        long before = AllocationMeter.currentThreadBytes();
        long served = OneSided.serve(this, control);
        long after = AllocationMeter.currentThreadBytes();
        return SideResult.serving(AllocationMeter.perOperation(before, after, served), served);
    }
}

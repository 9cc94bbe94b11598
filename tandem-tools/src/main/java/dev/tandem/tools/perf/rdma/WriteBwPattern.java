package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.AllocationMeter;
import dev.tandem.tools.perf.BandwidthSamples;
import dev.tandem.tools.perf.Phase;
import dev.tandem.tools.perf.SideResult;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

/** write_bw: the client keeps tx-depth RDMA Writes in flight into the server's receive area. */
final class WriteBwPattern extends RdmaPattern {
    private final int txDepth;
    private WorkRequest control;

    WriteBwPattern(RdmaEndpoint ep, int txDepth) {
        super(ep);
        this.txDepth = txDepth;
    }

    @Override
    public void prepareReceives() {
        OneSided.prepare(this);
        control = OneSided.control(ep);
    }

    @Override
    public SideResult client(Phase phase) {
        WorkRequest write = new WorkRequest.RdmaWrite(1, ep.sendSge(0, phase.size()), 0, peerRkey, WrFlags.SIGNALED);
        BandwidthSamples samples = BandwidthSamples.forSpan(phase.measured());
        long warm = stream(write, phase.warmup(), txDepth, null);
        long before = AllocationMeter.currentThreadBytes();
        long count = stream(write, phase.measured(), txDepth, samples);
        long after = AllocationMeter.currentThreadBytes();
        OneSided.finishClient(this, control, warm + count);
        return new SideResult(samples.stats(phase.size(), count), AllocationMeter.perOperation(before, after, count), count);
    }

    @Override
    public SideResult server(Phase phase) {
        long before = AllocationMeter.currentThreadBytes();
        long served = OneSided.serve(this, control);
        long after = AllocationMeter.currentThreadBytes();
        return SideResult.serving(AllocationMeter.perOperation(before, after, served), served);
    }
}

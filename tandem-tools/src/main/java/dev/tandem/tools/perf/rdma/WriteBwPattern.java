package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.AllocationMeter;
import dev.tandem.tools.perf.BandwidthStats;
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
        long[] posted = new long[phase.iterations()];
        long[] completed = new long[phase.iterations()];
        stream(write, phase.warmup(), txDepth, null, null);
        long before = AllocationMeter.currentThreadBytes();
        stream(write, phase.iterations(), txDepth, posted, completed);
        long after = AllocationMeter.currentThreadBytes();
        OneSided.finishClient(this, control);
        return new SideResult(BandwidthStats.of(phase.size(), posted, completed, phase.iterations()),
                AllocationMeter.perOperation(before, after, phase.iterations()));
    }

    @Override
    public SideResult server(Phase phase) {
        long before = AllocationMeter.currentThreadBytes();
        OneSided.serve(this, control);
        long after = AllocationMeter.currentThreadBytes();
        return SideResult.serving(AllocationMeter.perOperation(before, after, phase.total()));
    }
}

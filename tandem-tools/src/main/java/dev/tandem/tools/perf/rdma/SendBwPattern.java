package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.AllocationMeter;
import dev.tandem.tools.perf.BandwidthSamples;
import dev.tandem.tools.perf.Phase;
import dev.tandem.tools.perf.SideResult;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * send_bw: the client keeps tx-depth Sends in flight; the server keeps {@code rxDepth} receives
 * posted. iWARP has no receiver-not-ready retry (a Send without a posted receive terminates the
 * connection), so the server returns credits: every quarter window, and at the end of each phase,
 * it Sends its cumulative receive count, and the client never has more than {@code rxDepth} Sends
 * beyond the last count it heard. The client ends a phase with a Send of no bytes ("stop", which
 * takes a credit too); the server answers it with its last count.
 */
final class SendBwPattern extends RdmaPattern {
    static final int CREDIT_SLOTS = 8;
    private static final ValueLayout.OfLong COUNT = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private final int txDepth;
    private final boolean client;
    private final int rxDepth;
    private final MemorySegment segment;
    private final WorkRequest[] creditSends = new WorkRequest[CREDIT_SLOTS];
    private final WorkRequest stop;
    /** Client: receives the server has reported; server: the count last reported. */
    private long credited;
    private int creditSeq;
    /** Server: the client's stop arrived. */
    private boolean stopped;

    /** @param rxDepth the receives the server keeps posted (only the server uses it) */
    SendBwPattern(RdmaEndpoint ep, int txDepth, boolean client, int rxDepth) {
        super(ep);
        this.txDepth = txDepth;
        this.client = client;
        this.rxDepth = rxDepth;
        this.segment = ep.segment();
        this.stop = ep.emptySend(3);
        for (int i = 0; i < CREDIT_SLOTS; i++) {
            creditSends[i] = new WorkRequest.Send(100 + i, ep.sendSge((long) i * Long.BYTES, Long.BYTES), WrFlags.SIGNALED);
        }
    }

    /** The client posts credit receives (one 8-byte slot each); the server posts its window of data receives. */
    @Override
    public void prepareReceives() {
        if (client) {
            postReceives(CREDIT_SLOTS, Long.BYTES, Long.BYTES);
        } else {
            postReceives(rxDepth, 0, ep.area());
        }
    }

    @Override
    public SideResult client(Phase phase) {
        WorkRequest send = new WorkRequest.Send(1, ep.sendSge(0, phase.size()), WrFlags.SIGNALED);
        BandwidthSamples samples = BandwidthSamples.forSpan(phase.measured());
        stream(send, phase.warmup(), txDepth, null);
        long before = AllocationMeter.currentThreadBytes();
        long count = stream(send, phase.measured(), txDepth, samples);
        long after = AllocationMeter.currentThreadBytes();
        while (!mayPost()) {
            awaitAny();
        }
        post(stop);
        while (credited < postedSends) {
            awaitAny();
        }
        awaitSendsDone();
        return new SideResult(samples.stats(phase.size(), count), AllocationMeter.perOperation(before, after, count), count);
    }

    /** A Send may go only while the server has a receive posted for it (it returns credits). */
    @Override
    protected boolean mayPost() {
        return postedSends - credited < peerRxDepth;
    }

    @Override
    protected void onReceive(WorkCompletion c) {
        if (client) {
            credited = Math.max(credited, segment.get(COUNT, c.wrId() * Long.BYTES));
        } else if (c.byteLength() == 0) {
            stopped = true;
        }
        super.onReceive(c);
    }

    @Override
    public SideResult server(Phase phase) {
        int batch = Math.max(1, rxDepth / 4);
        long first = received;
        stopped = false;
        long before = AllocationMeter.currentThreadBytes();
        while (true) {
            boolean due = received - credited >= batch || (stopped && credited < received);
            if (due) {
                if (postedSends - completedSends < CREDIT_SLOTS) {
                    int slot = creditSeq++ & (CREDIT_SLOTS - 1);
                    segment.set(COUNT, ep.sendOffset() + (long) slot * Long.BYTES, received);
                    credited = received;
                    post(creditSends[slot]);
                    continue;
                }
            } else if (stopped) {
                break;
            }
            awaitAny();
        }
        long after = AllocationMeter.currentThreadBytes();
        long served = received - first - 1;
        return SideResult.serving(AllocationMeter.perOperation(before, after, served), served);
    }
}

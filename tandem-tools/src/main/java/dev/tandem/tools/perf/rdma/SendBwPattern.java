package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.AllocationMeter;
import dev.tandem.tools.perf.BandwidthStats;
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
 * beyond the last count it heard.
 */
final class SendBwPattern extends RdmaPattern {
    static final int CREDIT_SLOTS = 8;
    private static final ValueLayout.OfLong COUNT = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private final int txDepth;
    private final boolean client;
    private final int rxDepth;
    private final MemorySegment segment;
    private final WorkRequest[] creditSends = new WorkRequest[CREDIT_SLOTS];
    /** Client: receives the server has reported; server: the count last reported. */
    private long credited;
    private int creditSeq;

    /** @param rxDepth the receives the server keeps posted (only the server uses it) */
    SendBwPattern(RdmaEndpoint ep, int txDepth, boolean client, int rxDepth) {
        super(ep);
        this.txDepth = txDepth;
        this.client = client;
        this.rxDepth = rxDepth;
        this.segment = ep.segment();
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
        long[] posted = new long[phase.iterations()];
        long[] completed = new long[phase.iterations()];
        stream(send, phase.warmup(), txDepth, null, null);
        long before = AllocationMeter.currentThreadBytes();
        stream(send, phase.iterations(), txDepth, posted, completed);
        long after = AllocationMeter.currentThreadBytes();
        while (credited < postedSends) {
            awaitAny();
        }
        return new SideResult(BandwidthStats.of(phase.size(), posted, completed, phase.iterations()),
                AllocationMeter.perOperation(before, after, phase.iterations()));
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
        }
        super.onReceive(c);
    }

    @Override
    public SideResult server(Phase phase) {
        int batch = Math.max(1, rxDepth / 4);
        long target = received + phase.total();
        long before = AllocationMeter.currentThreadBytes();
        while (true) {
            boolean due = received - credited >= batch || (received >= target && credited < received);
            if (due) {
                if (postedSends - completedSends < CREDIT_SLOTS) {
                    int slot = creditSeq++ & (CREDIT_SLOTS - 1);
                    segment.set(COUNT, ep.sendOffset() + (long) slot * Long.BYTES, received);
                    credited = received;
                    post(creditSends[slot]);
                    continue;
                }
            } else if (received >= target) {
                break;
            }
            awaitAny();
        }
        long after = AllocationMeter.currentThreadBytes();
        return SideResult.serving(AllocationMeter.perOperation(before, after, phase.total()));
    }
}

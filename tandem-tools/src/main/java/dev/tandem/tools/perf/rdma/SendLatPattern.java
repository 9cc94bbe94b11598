package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.AllocationMeter;
import dev.tandem.tools.perf.LatencySamples;
import dev.tandem.tools.perf.Phase;
import dev.tandem.tools.perf.PerfTest;
import dev.tandem.tools.perf.SideResult;
import dev.tandem.tools.perf.Span;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

/**
 * send_lat: a ping-pong of Sends; each side keeps receives posted. Latency is half the round trip.
 * The client ends a phase with a Send of no bytes ("stop"); the server answers it with one.
 */
final class SendLatPattern extends RdmaPattern {
    static final int RECEIVES = 16;
    private static final int SEND_SLOTS = 8;
    private final WorkRequest empty;
    /** Bytes of the last receive: 0 is the client's stop. */
    private long lastReceived;

    SendLatPattern(RdmaEndpoint ep) {
        super(ep);
        this.empty = ep.emptySend(3);
    }

    @Override
    public void prepareReceives() {
        postReceives(RECEIVES, 0, ep.area());
    }

    @Override
    public SideResult client(Phase phase) {
        WorkRequest send = new WorkRequest.Send(1, ep.sendSge(0, phase.size()), WrFlags.SIGNALED);
        LatencySamples samples = LatencySamples.forSpan(phase.measured());
        pingPong(send, phase.warmup(), null);
        long before = AllocationMeter.currentThreadBytes();
        long count = pingPong(send, phase.measured(), samples);
        long after = AllocationMeter.currentThreadBytes();
        awaitSendSlot(SEND_SLOTS);
        long target = received + 1;
        post(empty);
        awaitReceived(target);
        return new SideResult(samples.stats(phase.size(), PerfTest.SEND_LAT.latencyDivisor()),
                AllocationMeter.perOperation(before, after, count), count);
    }

    /** Ping-pongs for {@code span}; returns how many. */
    private long pingPong(WorkRequest send, Span span, LatencySamples samples) {
        long begin = System.nanoTime();
        long end = begin;
        long i = 0;
        for (; span.goOn(i, end - begin); i++) {
            awaitSendSlot(SEND_SLOTS);
            long target = received + 1;
            long start = System.nanoTime();
            post(send);
            awaitReceived(target);
            end = System.nanoTime();
            if (samples != null) {
                samples.record(end - start);
            }
        }
        return i;
    }

    @Override
    protected void onReceive(WorkCompletion c) {
        lastReceived = c.byteLength();
        super.onReceive(c);
    }

    @Override
    public SideResult server(Phase phase) {
        WorkRequest send = new WorkRequest.Send(1, ep.sendSge(0, phase.size()), WrFlags.SIGNALED);
        long served = 0;
        long before = AllocationMeter.currentThreadBytes();
        while (true) {
            awaitReceived(received + 1);
            awaitSendSlot(SEND_SLOTS);
            if (lastReceived == 0) {
                post(empty);
                break;
            }
            post(send);
            served++;
        }
        long after = AllocationMeter.currentThreadBytes();
        return SideResult.serving(AllocationMeter.perOperation(before, after, served), served);
    }
}

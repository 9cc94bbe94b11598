package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.AllocationMeter;
import dev.tandem.tools.perf.LatencyStats;
import dev.tandem.tools.perf.Phase;
import dev.tandem.tools.perf.PerfTest;
import dev.tandem.tools.perf.SideResult;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * write_lat, as perftest does it: a ping-pong of RDMA Writes where each side watches the last byte
 * of its own receive area for the peer's new iteration value (not completions). Latency is half
 * the round trip.
 *
 * <p>Iteration values run 1..255 and wrap, never 0, so a byte that was never written cannot match;
 * sizes only grow from phase to phase, so the watched byte of a new phase was never written either.
 */
final class WriteLatPattern extends RdmaPattern {
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    private static final int SEND_SLOTS = 8;
    private final MemorySegment segment;
    private int counter;

    WriteLatPattern(RdmaEndpoint ep) {
        super(ep);
        this.segment = ep.segment();
    }

    @Override
    public void prepareReceives() {
        // One-sided: nothing to receive.
    }

    @Override
    public SideResult client(Phase phase) {
        WorkRequest write = write(phase);
        long[] samples = new long[phase.iterations()];
        pingPong(write, phase.size() - 1, phase.warmup(), null);
        long before = AllocationMeter.currentThreadBytes();
        pingPong(write, phase.size() - 1, phase.iterations(), samples);
        long after = AllocationMeter.currentThreadBytes();
        return new SideResult(LatencyStats.of(phase.size(), samples, phase.iterations(), PerfTest.WRITE_LAT.latencyDivisor()),
                AllocationMeter.perOperation(before, after, phase.iterations()));
    }

    private void pingPong(WorkRequest write, int last, int count, long[] samples) {
        long sendByte = ep.sendOffset() + last;
        for (int i = 0; i < count; i++) {
            byte v = next();
            awaitSendSlot(SEND_SLOTS);
            segment.set(ValueLayout.JAVA_BYTE, sendByte, v);
            long start = System.nanoTime();
            post(write);
            awaitByte(last, v);
            long end = System.nanoTime();
            if (samples != null) {
                samples[i] = end - start;
            }
        }
    }

    @Override
    public SideResult server(Phase phase) {
        WorkRequest write = write(phase);
        int last = phase.size() - 1;
        long sendByte = ep.sendOffset() + last;
        long before = AllocationMeter.currentThreadBytes();
        for (int i = 0; i < phase.total(); i++) {
            byte v = next();
            awaitByte(last, v);
            awaitSendSlot(SEND_SLOTS);
            segment.set(ValueLayout.JAVA_BYTE, sendByte, v);
            post(write);
        }
        long after = AllocationMeter.currentThreadBytes();
        return SideResult.serving(AllocationMeter.perOperation(before, after, phase.total()));
    }

    private WorkRequest write(Phase phase) {
        return new WorkRequest.RdmaWrite(1, ep.sendSge(0, phase.size()), 0, peerRkey, WrFlags.SIGNALED);
    }

    private byte next() {
        counter = counter % 255 + 1;
        return (byte) counter;
    }

    /**
     * Spins on the last byte of the receive area, reaping completions meanwhile (which also drives
     * the engine); the waiter judges the peer's liveness while the byte does not come.
     */
    private void awaitByte(long offset, byte expected) {
        waiter.startWait();
        while ((byte) BYTE.getAcquire(segment, offset) != expected) {
            pollAny();
            waiter.idle();
        }
        ep.status().advance();
    }
}

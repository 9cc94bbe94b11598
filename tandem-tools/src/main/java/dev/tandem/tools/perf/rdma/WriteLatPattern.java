package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.AllocationMeter;
import dev.tandem.tools.perf.LatencySamples;
import dev.tandem.tools.perf.Phase;
import dev.tandem.tools.perf.PerfTest;
import dev.tandem.tools.perf.SideResult;
import dev.tandem.tools.perf.Span;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * write_lat, as perftest does it: a ping-pong of RDMA Writes where each side watches the last byte
 * of its own receive area for the peer's new iteration value (not completions). Latency is half
 * the round trip. The client ends a phase with a control Send ("stop"), which the server reaps
 * while it watches its byte, and answers with one ("ack").
 *
 * <p>Iteration values run 1..255 and wrap, never 0, so a byte that was never written cannot match;
 * sizes only grow from phase to phase, so the watched byte of a new phase was never written either.
 */
final class WriteLatPattern extends RdmaPattern {
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    private static final int SEND_SLOTS = 8;
    private final MemorySegment segment;
    private final WorkRequest control;
    /** The last iteration value both sides used. */
    private int counter;

    WriteLatPattern(RdmaEndpoint ep) {
        super(ep);
        this.segment = ep.segment();
        this.control = ep.controlSend(2);
    }

    /** One control receive: the client's stop (server) or the server's ack (client). */
    @Override
    public void prepareReceives() {
        postControlReceives(1);
    }

    @Override
    public SideResult client(Phase phase) {
        WorkRequest write = write(phase);
        LatencySamples samples = LatencySamples.forSpan(phase.measured());
        int last = phase.size() - 1;
        pingPong(write, last, phase.warmup(), null);
        long before = AllocationMeter.currentThreadBytes();
        long count = pingPong(write, last, phase.measured(), samples);
        long after = AllocationMeter.currentThreadBytes();
        awaitSendSlot(SEND_SLOTS);
        long target = received + 1;
        post(control);
        awaitReceived(target);
        return new SideResult(samples.stats(phase.size(), PerfTest.WRITE_LAT.latencyDivisor()),
                AllocationMeter.perOperation(before, after, count), count);
    }

    /** Ping-pongs for {@code span}; returns how many. */
    private long pingPong(WorkRequest write, int last, Span span, LatencySamples samples) {
        long sendByte = ep.sendOffset() + last;
        long begin = System.nanoTime();
        long end = begin;
        long i = 0;
        for (; span.goOn(i, end - begin); i++) {
            byte v = nextValue();
            awaitSendSlot(SEND_SLOTS);
            segment.set(ValueLayout.JAVA_BYTE, sendByte, v);
            long start = System.nanoTime();
            post(write);
            counter = v & 0xFF;
            awaitByte(last, v);
            end = System.nanoTime();
            if (samples != null) {
                samples.record(end - start);
            }
        }
        return i;
    }

    @Override
    public SideResult server(Phase phase) {
        WorkRequest write = write(phase);
        int last = phase.size() - 1;
        long sendByte = ep.sendOffset() + last;
        long served = 0;
        long before = AllocationMeter.currentThreadBytes();
        while (true) {
            byte v = nextValue();
            if (!awaitByteOrStop(last, v)) {
                break;
            }
            counter = v & 0xFF;
            awaitSendSlot(SEND_SLOTS);
            segment.set(ValueLayout.JAVA_BYTE, sendByte, v);
            post(write);
            served++;
        }
        long after = AllocationMeter.currentThreadBytes();
        awaitSendSlot(SEND_SLOTS);
        post(control);
        return SideResult.serving(AllocationMeter.perOperation(before, after, served), served);
    }

    private WorkRequest write(Phase phase) {
        return new WorkRequest.RdmaWrite(1, ep.sendSge(0, phase.size()), 0, peerRkey, WrFlags.SIGNALED);
    }

    /** The iteration value after {@link #counter}: 1..255, never 0. */
    private byte nextValue() {
        return (byte) (counter % 255 + 1);
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

    /** As {@link #awaitByte}, but a receive (the client's stop) ends the wait too: returns false then. */
    private boolean awaitByteOrStop(long offset, byte expected) {
        long before = received;
        waiter.startWait();
        while ((byte) BYTE.getAcquire(segment, offset) != expected) {
            pollAny();
            if (received != before) {
                return false;
            }
            waiter.idle();
        }
        ep.status().advance();
        return true;
    }
}

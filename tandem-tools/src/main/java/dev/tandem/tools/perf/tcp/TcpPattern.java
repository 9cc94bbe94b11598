package dev.tandem.tools.perf.tcp;

import dev.tandem.tools.perf.AllocationMeter;
import dev.tandem.tools.perf.BandwidthSamples;
import dev.tandem.tools.perf.LatencySamples;
import dev.tandem.tools.perf.Phase;
import dev.tandem.tools.perf.PerfTest;
import dev.tandem.tools.perf.SideResult;
import dev.tandem.tools.perf.Span;

/**
 * The baseline's traffic: the same pattern as the Tandem test, over plain TCP.
 * <ul>
 * <li>write_bw, send_bw: stream the same messages; a message is "posted" when its write starts and
 * "completed" when its write returns (as an RNIC completes a Send once it has taken the data).
 * The server reads everything and answers one byte.</li>
 * <li>write_lat, send_lat: a ping-pong of messages of the same size; half the round trip.</li>
 * <li>read_lat: an 8-byte request answered by {@code size} bytes (what an RDMA Read is on the
 * wire); the whole exchange.</li>
 * </ul>
 * In iteration mode the server counts the phase's iterations; in duration mode (one phase) the
 * client ends the phase by finishing its sending (a half close) and the server serves until then.
 */
public final class TcpPattern {
    static final int READ_REQUEST_BYTES = 8;
    private final PerfTest test;
    private final TcpLink link;

    public TcpPattern(PerfTest test, TcpLink link) {
        this.test = test;
        this.link = link;
    }

    public SideResult client(Phase phase) {
        int size = phase.size();
        if (test.isBandwidth()) {
            BandwidthSamples samples = BandwidthSamples.forSpan(phase.measured());
            stream(size, phase.warmup(), null);
            long before = AllocationMeter.currentThreadBytes();
            long count = stream(size, phase.measured(), samples);
            long after = AllocationMeter.currentThreadBytes();
            if (phase.timed()) {
                link.finishSending();
            }
            link.read(1);
            return new SideResult(samples.stats(size, count), AllocationMeter.perOperation(before, after, count), count);
        }
        int request = test == PerfTest.READ_LAT ? READ_REQUEST_BYTES : size;
        LatencySamples samples = LatencySamples.forSpan(phase.measured());
        exchange(request, size, phase.warmup(), null);
        long before = AllocationMeter.currentThreadBytes();
        long count = exchange(request, size, phase.measured(), samples);
        long after = AllocationMeter.currentThreadBytes();
        if (phase.timed()) {
            link.finishSending();
        }
        return new SideResult(samples.stats(size, test.latencyDivisor()), AllocationMeter.perOperation(before, after, count), count);
    }

    public SideResult server(Phase phase) {
        int size = phase.size();
        long served;
        long before = AllocationMeter.currentThreadBytes();
        if (test.isBandwidth()) {
            if (phase.timed()) {
                served = link.readToEnd() / size;
            } else {
                served = phase.countedTotal();
                link.readStream(size * served);
            }
            link.write(1);
        } else {
            int request = test == PerfTest.READ_LAT ? READ_REQUEST_BYTES : size;
            if (phase.timed()) {
                served = 0;
                while (link.readOrEnd(request)) {
                    link.write(size);
                    served++;
                }
            } else {
                served = phase.countedTotal();
                for (long i = 0; i < served; i++) {
                    link.read(request);
                    link.write(size);
                }
            }
        }
        long after = AllocationMeter.currentThreadBytes();
        return SideResult.serving(AllocationMeter.perOperation(before, after, served), served);
    }

    private long stream(int size, Span span, BandwidthSamples samples) {
        long begin = System.nanoTime();
        long end = begin;
        long i = 0;
        for (; span.goOn(i, end - begin); i++) {
            long start = System.nanoTime();
            link.write(size);
            end = System.nanoTime();
            if (samples != null) {
                samples.posted(i, start);
                samples.completed(i, end);
            }
        }
        return i;
    }

    private long exchange(int request, int reply, Span span, LatencySamples samples) {
        long begin = System.nanoTime();
        long end = begin;
        long i = 0;
        for (; span.goOn(i, end - begin); i++) {
            long start = System.nanoTime();
            link.write(request);
            link.read(reply);
            end = System.nanoTime();
            if (samples != null) {
                samples.record(end - start);
            }
        }
        return i;
    }
}

package dev.tandem.tools.perf.tcp;

import dev.tandem.tools.perf.AllocationMeter;
import dev.tandem.tools.perf.BandwidthStats;
import dev.tandem.tools.perf.LatencyStats;
import dev.tandem.tools.perf.Phase;
import dev.tandem.tools.perf.PerfTest;
import dev.tandem.tools.perf.SideResult;

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
            long[] posted = new long[phase.iterations()];
            long[] completed = new long[phase.iterations()];
            stream(size, phase.warmup(), null, null);
            long before = AllocationMeter.currentThreadBytes();
            stream(size, phase.iterations(), posted, completed);
            long after = AllocationMeter.currentThreadBytes();
            link.read(1);
            return new SideResult(BandwidthStats.of(size, posted, completed, phase.iterations()),
                    AllocationMeter.perOperation(before, after, phase.iterations()));
        }
        int request = test == PerfTest.READ_LAT ? READ_REQUEST_BYTES : size;
        long[] samples = new long[phase.iterations()];
        exchange(request, size, phase.warmup(), null);
        long before = AllocationMeter.currentThreadBytes();
        exchange(request, size, phase.iterations(), samples);
        long after = AllocationMeter.currentThreadBytes();
        return new SideResult(LatencyStats.of(size, samples, phase.iterations(), test.latencyDivisor()),
                AllocationMeter.perOperation(before, after, phase.iterations()));
    }

    public SideResult server(Phase phase) {
        int size = phase.size();
        long before = AllocationMeter.currentThreadBytes();
        if (test.isBandwidth()) {
            link.readStream((long) size * phase.total());
            link.write(1);
        } else {
            int request = test == PerfTest.READ_LAT ? READ_REQUEST_BYTES : size;
            for (int i = 0; i < phase.total(); i++) {
                link.read(request);
                link.write(size);
            }
        }
        long after = AllocationMeter.currentThreadBytes();
        return SideResult.serving(AllocationMeter.perOperation(before, after, phase.total()));
    }

    private void stream(int size, int count, long[] postedAt, long[] completedAt) {
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            link.write(size);
            long end = System.nanoTime();
            if (postedAt != null) {
                postedAt[i] = start;
                completedAt[i] = end;
            }
        }
    }

    private void exchange(int request, int reply, int count, long[] samples) {
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            link.write(request);
            link.read(reply);
            long end = System.nanoTime();
            if (samples != null) {
                samples[i] = end - start;
            }
        }
    }
}

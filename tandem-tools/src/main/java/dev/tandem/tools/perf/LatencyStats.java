package dev.tandem.tools.perf;

import java.util.Arrays;

/**
 * perftest's latency columns, in microseconds, computed from one time per iteration.
 *
 * <p>Definitions: every sample counts (perftest drops its two largest; we do not hide outliers);
 * t_typical is the median (mean of the middle two for an even count); t_stdev is the population
 * standard deviation; percentiles are nearest-rank (the smallest sample with at least p% of
 * samples at or below it). Duration mode computes the same figures from a {@link LatencyHistogram}.
 */
public record LatencyStats(long bytes, long iterations, double minUs, double maxUs, double typicalUs, double avgUs,
                           double stdevUs, double p99Us, double p999Us) implements Figures {

    /**
     * @param samplesNanos one time per iteration, in nanoseconds (the first {@code count} are used)
     * @param divisor      2 when a sample is a round trip and the figure is half of it, else 1
     */
    public static LatencyStats of(long bytes, long[] samplesNanos, int count, int divisor) {
        if (count < 1 || count > samplesNanos.length) {
            throw new IllegalArgumentException("need 1.." + samplesNanos.length + " samples, got " + count);
        }
        if (divisor < 1) {
            throw new IllegalArgumentException("divisor " + divisor + " must be at least 1");
        }
        long[] s = Arrays.copyOf(samplesNanos, count);
        Arrays.sort(s);
        double scale = 1000.0 * divisor;
        double sum = 0;
        for (long v : s) {
            sum += v;
        }
        double mean = sum / count;
        double squares = 0;
        for (long v : s) {
            double d = v - mean;
            squares += d * d;
        }
        double median = (count % 2 == 1) ? s[count / 2] : (s[count / 2 - 1] + (double) s[count / 2]) / 2.0;
        return new LatencyStats(bytes, count, s[0] / scale, s[count - 1] / scale, median / scale, mean / scale,
                Math.sqrt(squares / count) / scale, nearestRank(s, 0.99) / scale, nearestRank(s, 0.999) / scale);
    }

    /** The nearest-rank percentile {@code p} (0 < p <= 1) of sorted samples. */
    static long nearestRank(long[] sorted, double p) {
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.clamp(rank - 1, 0, sorted.length - 1)];
    }

    @Override
    public double headline() {
        return typicalUs;
    }
}

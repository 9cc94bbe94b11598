package dev.tandem.tools.perf;

/**
 * Latency samples of a duration run, whose count is not known up front: a log-bucketed histogram
 * allocated once (about 57 KiB) that {@link #record} fills without allocating, however long the run.
 *
 * <p>Samples are nanoseconds. Below {@value #SUB} ns every value has its own bucket; above, each
 * power of two is split into {@value #SUB} buckets, so a bucket is at most 1/128 of its lower bound
 * wide. Min, max, mean and the population standard deviation are exact (running sums); the median
 * and the nearest-rank percentiles are the middle of the bucket holding that rank, clamped to
 * [min, max], so within {@link #RELATIVE_ERROR} (1/256, under 0.4%) of the exact sample.
 */
public final class LatencyHistogram implements LatencySamples {
    static final int SUB_BITS = 7;
    static final int SUB = 1 << SUB_BITS;
    /** Enough buckets for every non-negative long. */
    static final int BUCKETS = SUB + (Long.SIZE - 1 - SUB_BITS) * SUB;
    /** The largest relative distance between a reported percentile and the exact sample at its rank. */
    public static final double RELATIVE_ERROR = 1.0 / (2 * SUB);
    /** {@link #RELATIVE_ERROR} as the reports state it (rounded up). */
    public static final String RELATIVE_ERROR_TEXT = "0.4%";

    private final long[] counts = new long[BUCKETS];
    private long count;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;
    private long sum;
    /** The first sample: squares are summed around it, so the variance does not cancel. */
    private long shift;
    private double shiftedSquares;

    @Override
    public void record(long nanos) {
        long v = Math.max(0, nanos);
        counts[index(v)]++;
        if (count == 0) {
            shift = v;
        }
        count++;
        min = Math.min(min, v);
        max = Math.max(max, v);
        sum += v;
        double d = v - shift;
        shiftedSquares += d * d;
    }

    @Override
    public long count() {
        return count;
    }

    /** The figures, as {@link LatencyStats#of} defines them (median of an even count: mean of the middle two). */
    @Override
    public LatencyStats stats(long bytes, int divisor) {
        if (count < 1) {
            throw new IllegalArgumentException("no samples recorded");
        }
        if (divisor < 1) {
            throw new IllegalArgumentException("divisor " + divisor + " must be at least 1");
        }
        double scale = 1000.0 * divisor;
        double mean = sum / (double) count;
        double shiftedMean = (sum - count * shift) / (double) count;
        double variance = Math.max(0, shiftedSquares / count - shiftedMean * shiftedMean);
        double median = count % 2 == 1 ? valueAtRank(count / 2 + 1) : (valueAtRank(count / 2) + valueAtRank(count / 2 + 1)) / 2;
        return new LatencyStats(bytes, count, min / scale, max / scale, median / scale, mean / scale, Math.sqrt(variance) / scale,
                nearestRank(0.99) / scale, nearestRank(0.999) / scale);
    }

    /** The nearest-rank percentile {@code p} (0 < p <= 1), to within {@link #RELATIVE_ERROR}. */
    double nearestRank(double p) {
        long rank = (long) Math.ceil(p * count);
        return valueAtRank(Math.clamp(rank, 1, count));
    }

    /** The sample of 1-based rank {@code rank} in sorted order, to within {@link #RELATIVE_ERROR}. */
    private double valueAtRank(long rank) {
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.clamp(middle(i), min, max);
            }
        }
        throw new IllegalStateException("rank " + rank + " beyond " + count + " samples");
    }

    static int index(long v) {
        if (v < SUB) {
            return (int) v;
        }
        int shiftBits = Long.SIZE - 1 - Long.numberOfLeadingZeros(v) - SUB_BITS;
        return SUB + shiftBits * SUB + (int) ((v >>> shiftBits) - SUB);
    }

    /** The middle of bucket {@code i}: its lower bound plus half its width (less one, as values are whole). */
    static double middle(int i) {
        if (i < SUB) {
            return i;
        }
        int shiftBits = i / SUB - 1;
        long lower = (long) (SUB + i % SUB) << shiftBits;
        long width = 1L << shiftBits;
        return lower + (width - 1) / 2.0;
    }
}

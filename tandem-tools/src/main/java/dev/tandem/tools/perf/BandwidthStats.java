package dev.tandem.tools.perf;

/**
 * perftest's bandwidth columns. MB is 2^20 bytes, as perftest prints it.
 *
 * <p>From a post time and a completion time per operation: the average is all bytes over the time
 * from the first post to the last completion; the peak is the best average over any run of
 * consecutive operations (perftest's "BW peak": the smallest {@code (completed[j] - posted[i]) /
 * (j - i + 1)}), sampled on a grid of at most {@link #PEAK_GRID} points for long runs.
 *
 * <p>Duration mode keeps no time per operation ({@link #window}): the average and message rate are
 * over the measured window, and there is no peak ({@link #peakMBps} is NaN), as perftest drops it too.
 */
public record BandwidthStats(long bytes, long iterations, double peakMBps, double avgMBps, double msgRateMpps)
        implements Figures {
    public static final double MB = 1024.0 * 1024.0;
    static final int PEAK_GRID = 5000;

    /** {@code count} operations of {@code bytes} each, the first posted at {@code firstPosted}, the last completed at {@code lastCompleted}; no peak. */
    public static BandwidthStats window(long bytes, long count, long firstPostedNanos, long lastCompletedNanos) {
        if (count < 1) {
            throw new IllegalArgumentException("a window needs at least 1 operation, got " + count);
        }
        double seconds = Math.max(1, lastCompletedNanos - firstPostedNanos) / 1e9;
        return new BandwidthStats(bytes, count, Double.NaN, bytes * (double) count / seconds / MB, count / seconds / 1e6);
    }

    /** Whether the peak was measured (iteration mode). */
    public boolean hasPeak() {
        return !Double.isNaN(peakMBps);
    }

    public static BandwidthStats of(long bytes, long[] postedNanos, long[] completedNanos, int count) {
        if (count < 1 || count > postedNanos.length || count > completedNanos.length) {
            throw new IllegalArgumentException("need 1.." + Math.min(postedNanos.length, completedNanos.length)
                    + " operations, got " + count);
        }
        long elapsed = Math.max(1, completedNanos[count - 1] - postedNanos[0]);
        double seconds = elapsed / 1e9;
        double avg = bytes * (double) count / seconds / MB;
        double rate = count / seconds / 1e6;

        int step = Math.max(1, (count + PEAK_GRID - 1) / PEAK_GRID);
        double best = Double.MAX_VALUE;
        for (int i = 0; i < count; i += step) {
            for (int j = i; j < count; j += step) {
                double perOp = Math.max(1, completedNanos[j] - postedNanos[i]) / (double) (j - i + 1);
                if (perOp < best) {
                    best = perOp;
                }
            }
        }
        double peak = Math.max(avg, bytes / (best / 1e9) / MB);
        return new BandwidthStats(bytes, count, peak, avg, rate);
    }

    @Override
    public double headline() {
        return avgMBps;
    }
}

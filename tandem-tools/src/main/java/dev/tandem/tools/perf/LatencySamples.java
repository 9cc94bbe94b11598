package dev.tandem.tools.perf;

/**
 * Where a latency loop puts its samples: every one, in an array sized for a count of iterations
 * (exact figures), or a {@link LatencyHistogram} for a run of unknown length. Recording never allocates.
 */
public sealed interface LatencySamples permits LatencySamples.Every, LatencyHistogram {
    /** One iteration took {@code nanos}. */
    void record(long nanos);

    long count();

    /**
     * @param divisor 2 when a sample is a round trip and the figure is half of it, else 1
     */
    LatencyStats stats(long bytes, int divisor);

    /** The right store for a measured span: every sample for a count, a histogram for a time. */
    static LatencySamples forSpan(Span measured) {
        return switch (measured) {
            case Span.Iterations(long n) -> new Every(Math.toIntExact(n));
            case Span.Time _ -> new LatencyHistogram();
        };
    }

    /** Every sample, for exact figures ({@link LatencyStats#of}). */
    final class Every implements LatencySamples {
        private final long[] samples;
        private int count;

        Every(int capacity) {
            this.samples = new long[capacity];
        }

        @Override
        public void record(long nanos) {
            samples[count++] = nanos;
        }

        @Override
        public long count() {
            return count;
        }

        @Override
        public LatencyStats stats(long bytes, int divisor) {
            return LatencyStats.of(bytes, samples, count, divisor);
        }
    }
}

package dev.tandem.tools.perf;

/**
 * Where a bandwidth loop notes its operations: a post and a completion time per operation (for a
 * count of iterations: exact average and perftest's peak), or only the window's first post and last
 * completion (for a run of unknown length: average and message rate, no peak). Noting never allocates.
 */
public sealed interface BandwidthSamples permits BandwidthSamples.EveryOperation, BandwidthSamples.Window {
    /** Operation {@code i} (0-based, in this measured part) was posted at {@code nanos}. */
    void posted(long i, long nanos);

    /** Operation {@code i} completed at {@code nanos}. */
    void completed(long i, long nanos);

    /** The figures of the first {@code count} operations, each of {@code bytes}. */
    BandwidthStats stats(long bytes, long count);

    /** The right store for a measured span: every operation for a count, the window for a time. */
    static BandwidthSamples forSpan(Span measured) {
        return switch (measured) {
            case Span.Iterations(long n) -> new EveryOperation(Math.toIntExact(n));
            case Span.Time _ -> new Window();
        };
    }

    /** A post and a completion time per operation ({@link BandwidthStats#of}). */
    final class EveryOperation implements BandwidthSamples {
        private final long[] postedAt;
        private final long[] completedAt;

        EveryOperation(int capacity) {
            this.postedAt = new long[capacity];
            this.completedAt = new long[capacity];
        }

        @Override
        public void posted(long i, long nanos) {
            postedAt[(int) i] = nanos;
        }

        @Override
        public void completed(long i, long nanos) {
            completedAt[(int) i] = nanos;
        }

        @Override
        public BandwidthStats stats(long bytes, long count) {
            return BandwidthStats.of(bytes, postedAt, completedAt, Math.toIntExact(count));
        }
    }

    /** The first post and the last completion only ({@link BandwidthStats#window}). */
    final class Window implements BandwidthSamples {
        private long firstPosted;
        private long lastCompleted;

        @Override
        public void posted(long i, long nanos) {
            if (i == 0) {
                firstPosted = nanos;
            }
        }

        @Override
        public void completed(long i, long nanos) {
            lastCompleted = nanos;
        }

        @Override
        public BandwidthStats stats(long bytes, long count) {
            return BandwidthStats.window(bytes, count, firstPosted, lastCompleted);
        }
    }
}

package dev.tandem.tools.perf;

/**
 * One size of a run: a warm-up that is not measured, then the measured part. In iteration mode
 * both are counts; in duration mode ({@code -D}) the measured part is a time and the warm-up a
 * time or a count.
 */
public record Phase(int size, Span warmup, Span measured) {
    public Phase {
        if (size < 1 || warmup == null || measured == null) {
            throw new IllegalArgumentException("a phase needs size >= 1, a warm-up and a measured span, got " + size + ", " + warmup + ", " + measured);
        }
        if (measured instanceof Span.Iterations(long count) && count < 1) {
            throw new IllegalArgumentException("a phase measures at least 1 iteration, got " + count);
        }
    }

    /** Iteration mode: {@code warmup} iterations, then {@code iterations} measured ones. */
    public Phase(int size, long iterations, long warmup) {
        this(size, Span.iterations(warmup), Span.iterations(iterations));
    }

    /** Duration mode: the measured part is a time, so the iteration count is known only at the end. */
    public boolean timed() {
        return measured instanceof Span.Time;
    }

    /** Iteration mode: warm-up and measured iterations together. */
    public long countedTotal() {
        if (warmup instanceof Span.Iterations(long w) && measured instanceof Span.Iterations(long m)) {
            return w + m;
        }
        throw new IllegalStateException("phase " + this + " runs for a time; its iterations are counted as it runs");
    }
}

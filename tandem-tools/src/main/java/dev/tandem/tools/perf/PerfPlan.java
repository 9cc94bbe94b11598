package dev.tandem.tools.perf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The phases of a run. Both sides compute it from the same few numbers (the client sends them in
 * its connect private data), so they agree on every size and count without further talk.
 *
 * <p>A sweep ({@code -a}) runs every power of two from {@link #SWEEP_MIN} to {@link #SWEEP_MAX};
 * to keep it bounded, each size measures at most {@link #SWEEP_BYTES_PER_SIZE} bytes (at least
 * {@link PerfSettings#MIN_ITERS} iterations), and warms up at most as many iterations as it measures.
 *
 * <p>Duration mode ({@code -D}) runs one size for a time; it warms up for perftest's margin,
 * {@link #DURATION_WARMUP}, unless a warm-up count is given.
 */
public record PerfPlan(List<Phase> phases) {
    public static final int SWEEP_MIN = 2;
    public static final int SWEEP_MAX = PerfSettings.MAX_SIZE;
    public static final long SWEEP_BYTES_PER_SIZE = 256L * 1024 * 1024;
    /** perftest's DEF_MARGIN: the first seconds of a duration run, not measured. */
    public static final Duration DURATION_WARMUP = Duration.ofSeconds(2);

    public PerfPlan {
        phases = List.copyOf(phases);
        if (phases.isEmpty()) {
            throw new IllegalArgumentException("a plan needs at least one phase");
        }
        for (int i = 1; i < phases.size(); i++) {
            if (phases.get(i).size() <= phases.get(i - 1).size()) {
                // write_lat relies on it: the byte it watches was never written before its phase.
                throw new IllegalArgumentException("phase sizes must grow, got " + phases);
            }
        }
    }

    /**
     * @param warmup          warm-up iterations, or {@link PerfSettings#DEFAULT_WARMUP} for the mode's default
     * @param durationSeconds seconds to measure ({@code -D}), or {@link PerfSettings#NO_DURATION} to count iterations
     */
    public static PerfPlan of(int size, int iterations, int warmup, boolean sweep, int durationSeconds) {
        if (durationSeconds != PerfSettings.NO_DURATION) {
            if (sweep) {
                throw new IllegalArgumentException("duration mode runs one size; it does not sweep (-a)");
            }
            Span warm = warmup < 0 ? Span.of(DURATION_WARMUP) : Span.iterations(warmup);
            return new PerfPlan(List.of(new Phase(size, warm, Span.of(Duration.ofSeconds(durationSeconds)))));
        }
        if (!sweep) {
            return new PerfPlan(List.of(new Phase(size, iterations, warmup < 0 ? iterations : warmup)));
        }
        List<Phase> phases = new ArrayList<>();
        for (int s = SWEEP_MIN; s <= SWEEP_MAX; s <<= 1) {
            int iters = (int) Math.max(PerfSettings.MIN_ITERS, Math.min(iterations, SWEEP_BYTES_PER_SIZE / s));
            int warm = warmup < 0 ? iters : Math.min(warmup, iters);
            phases.add(new Phase(s, iters, warm));
        }
        return new PerfPlan(phases);
    }

    public int maxSize() {
        return phases.getLast().size();
    }

    /** Whether this plan runs for a time ({@code -D}). */
    public boolean timed() {
        return phases.getFirst().timed();
    }
}

package dev.tandem.tools.perf;

/**
 * What one side measured in one phase.
 *
 * @param figures    the perftest figures, or null on a side that only serves (it has none)
 * @param allocPerOp bytes the side's posting/polling thread allocated per iteration (NaN if unknown)
 * @param operations the iterations {@code allocPerOp} is over: the measured ones on the measuring
 *                   side; all it served, warm-up included, on the serving side
 */
public record SideResult(Figures figures, double allocPerOp, long operations) {
    /** A serving side: no figures, its allocation over the {@code served} iterations. */
    public static SideResult serving(double allocPerOp, long served) {
        return new SideResult(null, allocPerOp, served);
    }
}

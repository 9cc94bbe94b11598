package dev.tandem.tools.perf;

/**
 * What one side measured in one phase.
 *
 * @param figures         the perftest figures, or null on a side that only serves (it has none)
 * @param allocPerOp      bytes the side's posting/polling thread allocated per measured iteration (NaN if unknown)
 */
public record SideResult(Figures figures, double allocPerOp) {
    /** A serving side: no figures, only its allocation. */
    public static SideResult serving(double allocPerOp) {
        return new SideResult(null, allocPerOp);
    }
}

package dev.tandem.tools.perf;

/**
 * One size of a run: Tandem's figures and, with a baseline (TCP or plain iWARP), the baseline's
 * and the ratio between them.
 *
 * @param phase                    the size, iterations and warm-up
 * @param tandem                   Tandem's figures
 * @param tandemClientAllocPerOp   bytes allocated per measured iteration on the client's thread
 * @param tandemServerAllocPerOp   the same on the server's thread (NaN when the server runs elsewhere)
 * @param baseline                 the baseline's figures, or null without a baseline
 * @param baselineClientAllocPerOp the baseline client's allocation per iteration (NaN without a baseline)
 * @param baselineServerAllocPerOp the baseline server's (NaN when unknown)
 */
public record SizeResult(Phase phase, Figures tandem, double tandemClientAllocPerOp, double tandemServerAllocPerOp,
                         Figures baseline, double baselineClientAllocPerOp, double baselineServerAllocPerOp) {
    public SizeResult {
        if (phase == null || tandem == null) {
            throw new IllegalArgumentException("a size result needs its phase and Tandem's figures");
        }
    }

    public boolean hasBaseline() {
        return baseline != null;
    }

    /** Tandem's headline over the baseline's (see {@link PerfFormat#ratio}); NaN without a baseline. */
    public double ratio() {
        return baseline == null ? Double.NaN : PerfFormat.ratioOf(tandem, baseline);
    }
}

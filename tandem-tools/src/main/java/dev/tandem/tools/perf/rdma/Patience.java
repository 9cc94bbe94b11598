package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.Stall;

import java.time.Duration;

/**
 * How long a waiting side stays patient with a peer that shows no life (see {@link Liveness}).
 *
 * @param stallLimit how long the peer may show no sign of life (no completion, no change of its
 *                   progress word) before the wait fails
 * @param probeAfter how long a wait stays quiet before it probes the peer (and between two probes);
 *                   also the longest single block in {@code --event} mode
 */
public record Patience(Duration stallLimit, Duration probeAfter) {
    /** What {@code tandem perf} uses: {@link Stall#TIMEOUT}, and a probe after each second of silence. */
    public static final Patience DEFAULT = new Patience(Stall.TIMEOUT, Duration.ofSeconds(1));

    public Patience {
        if (stallLimit == null || probeAfter == null || !stallLimit.isPositive() || !probeAfter.isPositive()) {
            throw new IllegalArgumentException("patience needs a positive stall limit and probe interval, got " + stallLimit + ", " + probeAfter);
        }
        if (probeAfter.compareTo(stallLimit) >= 0) {
            throw new IllegalArgumentException("the probe interval " + probeAfter + " must be shorter than the stall limit " + stallLimit
                    + ", or a silent peer is declared stuck before it was ever probed");
        }
    }

    /** {@code 30 s}, or {@code 250 ms} for limits that are not whole seconds. */
    static String describe(long nanos) {
        long millis = nanos / 1_000_000;
        return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
    }
}

package dev.tandem.tools.perf;

/** The figures of one size of one run: perftest's bandwidth columns or its latency columns. */
public sealed interface Figures permits BandwidthStats, LatencyStats {
    /** Message size in bytes. */
    long bytes();

    /** Measured iterations. */
    long iterations();

    /** The figure a ratio compares: average MB/sec for bandwidth, t_typical for latency. */
    double headline();
}

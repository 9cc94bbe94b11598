package dev.tandem.tools.perf;

/**
 * One side of the baseline's connection: the run's pattern over the baseline's path, one phase at
 * a time, each right after Tandem's. {@link #finish} after the last phase lets what is still in
 * flight complete; {@link #close} (on every path) lets go of the connection.
 */
sealed interface BaselineSide extends AutoCloseable permits TcpBaselineSide, IwarpBaselineSide {
    /** Runs {@code phase} as this side's role (measuring on the client, serving on the server). */
    SideResult run(Phase phase);

    /** Waits until this side's work has completed, after the last phase. */
    void finish();

    @Override
    void close();
}

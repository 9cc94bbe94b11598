package dev.tandem.tools.perf;

/**
 * The server's end of a baseline before its client connects: a port that the server's hello
 * names, and the one connection made to it. {@link #close} from any thread ends a wait in
 * {@link #accept}.
 */
sealed interface BaselineListener extends AutoCloseable permits TcpBaselineListener, IwarpBaselineListener {
    /** The port the client connects to. */
    int port();

    /**
     * Waits for the client's baseline connection (at most {@link Stall#TIMEOUT}) and returns the
     * serving side of the run {@code hello} asks for, with buffer areas of {@code area} bytes (as
     * the Tandem side's).
     */
    BaselineSide accept(Hello.Client hello, int area);

    @Override
    void close();
}

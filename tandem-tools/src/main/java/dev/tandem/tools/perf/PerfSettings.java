package dev.tandem.tools.perf;

/**
 * A validated {@code tandem perf} request. Every limit says in its message what would be right.
 *
 * @param test        which test
 * @param size        message size in bytes (ignored by a sweep)
 * @param iterations  measured iterations per size (iteration mode)
 * @param durationSeconds seconds to measure ({@code -D}, duration mode), or {@link #NO_DURATION} to count iterations
 * @param txDepth     operations kept in flight by the bandwidth tests
 * @param sweep       {@code -a}: every power of two from 2 bytes to 8 MiB
 * @param crc         MPA CRC32C on the wire
 * @param waitMode    how completions are waited for
 * @param device      the device the Tandem side runs on; {@link PerfDevice#FAILOVER} runs with both sides here only
 * @param baseline    what the run is also measured over, for the ratio ({@link Baseline#IWARP} needs the fail-over device)
 * @param warmup      iterations run before measuring, or {@link #DEFAULT_WARMUP} for "as many as measured"
 * @param role        loopback, server or client
 * @param host        the server to connect to (client only)
 * @param local       the adapter's local IP, or null for the role's default
 * @param port        the server's port; 0 picks a free one (server and loopback)
 */
public record PerfSettings(PerfTest test, int size, int iterations, int durationSeconds, int txDepth, boolean sweep, boolean crc,
                           WaitMode waitMode, PerfDevice device, Baseline baseline, int warmup, Role role, String host,
                           String local, int port) {
    /** perftest's MAX_SIZE. */
    public static final int MAX_SIZE = 8 * 1024 * 1024;
    /** perftest's MIN_ITER. */
    public static final int MIN_ITERS = 5;
    /** perftest's MAX_ITER. */
    public static final int MAX_ITERS = 100_000_000;
    /** perftest's MAX_TX. */
    public static final int MAX_TX_DEPTH = 15_000;
    /** perftest's DEF_TX_BW. */
    public static final int DEFAULT_TX_DEPTH = 128;
    /** perftest's DEF_PORT, used by --server and --connect. */
    public static final int DEFAULT_PORT = 18515;
    /**
     * {@link #warmup} value meaning the mode's default: as many warm-up iterations as measured ones,
     * or in duration mode perftest's margin ({@link PerfPlan#DURATION_WARMUP}).
     */
    public static final int DEFAULT_WARMUP = -1;
    /** {@link #durationSeconds} value of iteration mode. */
    public static final int NO_DURATION = 0;

    public PerfSettings {
        if (test == null || waitMode == null || device == null || baseline == null || role == null) {
            throw new IllegalArgumentException("test, waiting mode, device, baseline and role must be given, got " + test + ", " + waitMode
                    + ", " + device + ", " + baseline + ", " + role);
        }
        if (size < 1 || size > MAX_SIZE) {
            throw new IllegalArgumentException("--size " + size + " is out of range: give 1.." + MAX_SIZE + " bytes");
        }
        if (iterations < MIN_ITERS || iterations > MAX_ITERS) {
            throw new IllegalArgumentException("--iters " + iterations + " is out of range: give " + MIN_ITERS + ".." + MAX_ITERS);
        }
        if (durationSeconds < 0) {
            throw new IllegalArgumentException("-D/--duration " + durationSeconds + " is not positive: give the seconds to measure, 1 or more");
        }
        if (durationSeconds != NO_DURATION && sweep) {
            throw new IllegalArgumentException("-D/--duration runs one size for a time and does not combine with -a/--all "
                    + "(perftest refuses that too): give -s SIZE, or drop -D to sweep by count");
        }
        if (txDepth < 1 || txDepth > MAX_TX_DEPTH) {
            throw new IllegalArgumentException("--tx-depth " + txDepth + " is out of range: give 1.." + MAX_TX_DEPTH);
        }
        if (warmup < DEFAULT_WARMUP || warmup > MAX_ITERS) {
            throw new IllegalArgumentException("--warmup " + warmup + " is out of range: give 0.." + MAX_ITERS + " iterations");
        }
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("--port " + port + " is out of range: give 1..65535 (0 picks a free port when listening)");
        }
        if (test == PerfTest.WRITE_LAT && waitMode == WaitMode.EVENT) {
            throw new IllegalArgumentException("write_lat waits by polling the last byte of its receive buffer, as perftest does; "
                    + "there is no completion to block on, so --event does not apply (use send_lat or read_lat with --event)");
        }
        if (baseline == Baseline.IWARP && device == PerfDevice.IWARP) {
            throw new IllegalArgumentException("--baseline iwarp compares a device with the plain iWARP adapters under it; the iwarp device "
                    + "is such an adapter, so there is nothing to compare: give --device failover, or --baseline tcp");
        }
        if (device == PerfDevice.FAILOVER && role != Role.LOOPBACK) {
            throw new IllegalArgumentException("--device failover runs both sides in this process (each on two loopback adapters); "
                    + "--server and --connect take the iwarp device");
        }
        switch (role) {
            case CLIENT -> {
                if (host == null || host.isBlank()) {
                    throw new IllegalArgumentException("--connect needs the server's host name or IP");
                }
                if (port == 0) {
                    throw new IllegalArgumentException("--connect needs the server's port: give -p PORT (the server uses " + DEFAULT_PORT + " unless told otherwise)");
                }
            }
            case SERVER -> {
                if (local == null || local.isBlank()) {
                    throw new IllegalArgumentException("--server needs --local IP: the address of the adapter to serve on "
                            + "(one adapter = one local IP), e.g. --local 10.0.0.5");
                }
            }
            case LOOPBACK -> {
                if (host != null || local != null) {
                    throw new IllegalArgumentException("--local and a host only apply with --server or --connect; "
                            + "without them both sides run here on 127.0.1.1 and 127.0.1.2");
                }
            }
        }
    }

    /** The sizes, iterations or time, and warm-up this request runs. */
    public PerfPlan plan() {
        return PerfPlan.of(size, iterations, warmup, sweep, durationSeconds);
    }

    /** Whether this request runs for a time ({@code -D}) rather than a count. */
    public boolean timed() {
        return durationSeconds != NO_DURATION;
    }
}

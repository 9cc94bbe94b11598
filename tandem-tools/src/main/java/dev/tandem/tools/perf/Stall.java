package dev.tandem.tools.perf;

import java.time.Duration;

/**
 * Detects a TCP baseline wait that stopped making progress (a dead peer, a lost message) so that
 * it fails with a message instead of hanging. Busy loops call {@link #spin} every turn; it looks at
 * the clock only every few thousand turns. (The RDMA side's waits judge the peer by probing it:
 * {@code rdma.Liveness}, with {@link #TIMEOUT} as the default stall limit.)
 */
public final class Stall {
    /** How long any single wait may take before the run is declared stuck. */
    public static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final long TIMEOUT_NANOS = TIMEOUT.toNanos();
    private static final int CHECK_EVERY = 4096;

    private final String what;
    private long start;
    private boolean started;
    private int turns;

    public Stall(String what) {
        this.what = what;
    }

    /** Starts a new wait. */
    public void reset() {
        turns = 0;
        started = false;
    }

    /** One turn of a busy wait: hints the CPU, and fails once the wait has lasted {@link #TIMEOUT}. */
    public void spin() {
        Thread.onSpinWait();
        if ((++turns & (CHECK_EVERY - 1)) == 0) {
            long now = System.nanoTime();
            if (!started) {
                started = true;
                start = now;
            } else if (now - start > TIMEOUT_NANOS) {
                throw new PerfException(what + ": no progress for " + TIMEOUT.toSeconds() + " s; the peer stopped or a message was lost");
            }
        }
    }
}

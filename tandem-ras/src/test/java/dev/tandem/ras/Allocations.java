package dev.tandem.ras;

import java.lang.management.ManagementFactory;

/** Bytes the current thread allocates while running an action, via com.sun.management.ThreadMXBean. */
final class Allocations {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private Allocations() {
    }

    /**
     * Runs {@code action} {@code warmUps} times for the JIT, then measures up to {@code rounds} more
     * runs and returns the fewest bytes any of them allocated (0 once compiled code allocates nothing).
     */
    static long minimumBytes(Runnable action, int warmUps, int rounds) {
        for (int i = 0; i < warmUps; i++) {
            action.run();
        }
        long least = Long.MAX_VALUE;
        for (int i = 0; i < rounds && least > 0; i++) {
            long before = THREADS.getCurrentThreadAllocatedBytes();
            action.run();
            least = Math.min(least, THREADS.getCurrentThreadAllocatedBytes() - before);
        }
        return least;
    }
}

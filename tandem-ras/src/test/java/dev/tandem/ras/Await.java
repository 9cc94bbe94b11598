package dev.tandem.ras;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds or a deadline passes (no sleep-and-hope). */
final class Await {
    private Await() {
    }

    static void until(Duration limit, String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + limit + " waiting for " + what);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}

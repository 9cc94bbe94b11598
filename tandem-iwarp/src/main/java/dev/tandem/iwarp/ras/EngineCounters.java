package dev.tandem.iwarp.ras;

import dev.tandem.provider.ResourceRas;
import dev.tandem.ras.Counter;
import dev.tandem.ras.ProcessRas;

import java.util.concurrent.TimeUnit;

/**
 * Duty-cycle counters of one engine thread, {@code <thread> cycles|working cycles|working ns|cycles over
 * <threshold>}: every cycle, the cycles that did work, the time those took (the one clock read a
 * cycle adds is taken only when it did work) and how many took longer than the threshold. Only the
 * engine thread writes them (plain stores); it closes them as it ends.
 */
public final class EngineCounters implements AutoCloseable {
    private final long slowNanos;
    private final Counter cycles;
    private final Counter workingCycles;
    private final Counter workingNanos;
    private final Counter slowCycles;
    private boolean closed;

    public EngineCounters(String engine, long slowNanos) {
        this.slowNanos = slowNanos;
        Counter[] c;
        try {
            c = ResourceRas.allocate(ProcessRas.acquire(), AdapterRas.TYPE_ENGINE, engine, 0, "cycles", "working cycles",
                    "working ns", "cycles over " + describe(slowNanos));
        } catch (RuntimeException e) {
            ProcessRas.release();
            throw e;
        }
        cycles = c[0];
        workingCycles = c[1];
        workingNanos = c[2];
        slowCycles = c[3];
    }

    private static String describe(long nanos) {
        return nanos % 1_000_000 == 0 ? TimeUnit.NANOSECONDS.toMillis(nanos) + " ms"
                : nanos % 1_000 == 0 ? TimeUnit.NANOSECONDS.toMicros(nanos) + " us" : nanos + " ns";
    }

    /** A cycle that found nothing to do. */
    public void idleCycle() {
        cycles.increment();
    }

    /** A cycle that did work and took {@code nanos}. */
    public void workingCycle(long nanos) {
        cycles.increment();
        workingCycles.increment();
        workingNanos.add(nanos);
        if (nanos > slowNanos) {
            slowCycles.increment();
        }
    }

    /** Closes the counters and gives the process's RAS file back; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        ResourceRas.closeAll(cycles, workingCycles, workingNanos, slowCycles);
        ProcessRas.release();
    }
}

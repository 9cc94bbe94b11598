package dev.tandem.provider;

import dev.tandem.ras.Counter;
import dev.tandem.ras.CounterType;

/**
 * Counters of one completion queue, {@code <adapter> cq <n> completions|high water|overflows}. Several
 * threads may add completions to one CQ (the engine, a posting thread, a flush), so the count is an
 * atomic add and the high-water mark a CAS only when it rises; no lock, no allocation.
 */
final class CqCounters implements AutoCloseable {
    final int number;
    private final Counter completions;
    private final Counter highWater;
    private final Counter overflows;

    CqCounters(ResourceRas ras) {
        number = ras.nextNumber(ResourceKind.CQ);
        Counter[] c = ras.resourceCounters(CounterType.CQ, "cq " + number, number, "completions", "high water", "overflows");
        completions = c[0];
        highWater = c[1];
        overflows = c[2];
    }

    /** A completion was queued; {@code queued} entries are waiting now. */
    void added(long queued) {
        completions.incrementAtomic();
        highWater.setMaxAtomic(queued);
    }

    /** A completion found the queue full. */
    void overflowed() {
        overflows.incrementAtomic();
    }

    @Override
    public void close() {
        ResourceRas.closeAll(completions, highWater, overflows);
    }
}

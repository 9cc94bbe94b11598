package dev.tandem.provider;

import dev.tandem.ras.Counter;
import dev.tandem.ras.CounterType;

/**
 * Counters of one shared receive queue, {@code <adapter> srq <n> posted|consumed|high water}.
 * Application threads post concurrently (atomic add, CAS only when the mark rises); receives are
 * consumed by the adapter's receivers, which run under its progress lock (plain store).
 */
final class SrqCounters implements AutoCloseable {
    final int number;
    private final Counter posted;
    private final Counter consumed;
    private final Counter highWater;

    SrqCounters(ResourceRas ras) {
        number = ras.nextNumber(ResourceKind.SRQ);
        Counter[] c = ras.resourceCounters(CounterType.SRQ, "srq " + number, number, "posted", "consumed", "high water");
        posted = c[0];
        consumed = c[1];
        highWater = c[2];
    }

    /** A receive was posted; {@code queued} are waiting now. */
    void posted(long queued) {
        posted.incrementAtomic();
        highWater.setMaxAtomic(queued);
    }

    /** An arriving Send took a receive (progress lock held). */
    void consumed() {
        consumed.increment();
    }

    @Override
    public void close() {
        ResourceRas.closeAll(posted, consumed, highWater);
    }
}

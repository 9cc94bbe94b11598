package dev.tandem.iwarp;

import dev.tandem.ras.Counter;

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

    SrqCounters(AdapterRas ras) {
        number = ras.nextSrqNumber();
        Counter[] c = ras.resourceCounters(AdapterRas.TYPE_SRQ, "srq " + number, number, "posted", "consumed", "high water");
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
        AdapterRas.closeAll(posted, consumed, highWater);
    }
}

package dev.tandem.provider;

import dev.tandem.ras.Counter;
import dev.tandem.ras.CounterType;

/**
 * Counters of one memory region, {@code <adapter> mr <stag> bytes placed|remote accesses|access faults}:
 * bytes the receiver placed into it (RDMA Writes, Read Responses, Sends), tagged accesses by the peer
 * (each Write or Read Response segment placed, each Read Request served from it), and tagged accesses
 * refused (wrong key, PD, rights or bounds). Only the adapter's receivers write them, under its
 * progress lock, so updates are plain stores: no lock, no allocation.
 */
public final class MrCounters implements AutoCloseable {
    private final Counter bytesPlaced;
    private final Counter remoteAccesses;
    private final Counter accessFaults;

    MrCounters(ResourceRas ras, int stag) {
        Counter[] c = ras.resourceCounters(CounterType.MR, String.format("mr 0x%08x", stag), stag & 0xFFFF_FFFFL,
                "bytes placed", "remote accesses", "access faults");
        bytesPlaced = c[0];
        remoteAccesses = c[1];
        accessFaults = c[2];
    }

    public void placed(int bytes) {
        bytesPlaced.add(bytes);
    }

    public void remoteAccess() {
        remoteAccesses.increment();
    }

    public void accessFault() {
        accessFaults.increment();
    }

    @Override
    public void close() {
        ResourceRas.closeAll(bytesPlaced, remoteAccesses, accessFaults);
    }
}

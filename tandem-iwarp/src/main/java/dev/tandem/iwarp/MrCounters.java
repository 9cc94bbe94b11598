package dev.tandem.iwarp;

import dev.tandem.ras.Counter;

/**
 * Counters of one memory region, {@code <adapter> mr <stag> bytes placed|remote accesses|access faults}:
 * bytes the receiver placed into it (RDMA Writes, Read Responses, Sends), tagged accesses by the peer
 * (each Write or Read Response segment placed, each Read Request served from it), and tagged accesses
 * refused (wrong key, PD, rights or bounds). Only the adapter's receivers write them, under its
 * progress lock, so updates are plain stores: no lock, no allocation.
 */
final class MrCounters implements AutoCloseable {
    private final Counter bytesPlaced;
    private final Counter remoteAccesses;
    private final Counter accessFaults;

    MrCounters(AdapterRas ras, int stag) {
        Counter[] c = ras.resourceCounters(AdapterRas.TYPE_MR, String.format("mr 0x%08x", stag), stag & 0xFFFF_FFFFL,
                "bytes placed", "remote accesses", "access faults");
        bytesPlaced = c[0];
        remoteAccesses = c[1];
        accessFaults = c[2];
    }

    void placed(int bytes) {
        bytesPlaced.add(bytes);
    }

    void remoteAccess() {
        remoteAccesses.increment();
    }

    void accessFault() {
        accessFaults.increment();
    }

    @Override
    public void close() {
        AdapterRas.closeAll(bytesPlaced, remoteAccesses, accessFaults);
    }
}

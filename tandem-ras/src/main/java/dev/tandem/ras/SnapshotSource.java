package dev.tandem.ras;

/**
 * A component that describes its state in a dump (each iWARP adapter registers one with
 * {@link ProcessRas#addSnapshotSource}): called by {@link ProcessRas#dump} on the dumping thread (an
 * application thread, or the RAS duty thread for a dump requested from outside). It should write what
 * it can see without waiting: never block on a lock that is held while the component closes, and
 * remove the source before the component releases {@link ProcessRas}. An exception it throws is
 * recorded in the dump in its place, and the dump goes on.
 */
@FunctionalInterface
public interface SnapshotSource {
    /** Writes this component's state tree, e.g. one group per adapter with one group per QP. */
    void snapshot(SnapshotWriter out);
}

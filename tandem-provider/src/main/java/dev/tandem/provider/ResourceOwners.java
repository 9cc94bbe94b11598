package dev.tandem.provider;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An adapter's table of open resources and their owners: who created each PD, MR, MW, CQ, QP, SRQ
 * and listener, from where and when, mirrored into the process's RAS file for
 * {@code tandem stat --resources}. Leak reports, rogue-owner reports at reset and dumps read it.
 */
final class ResourceOwners {
    private final String adapter;
    private final ResourceRas ras;
    /** Called after a resource left the table (a reset waits for owners this way). */
    private final Runnable onRelease;
    private final Map<Object, LiveResource> live = new ConcurrentHashMap<>();

    ResourceOwners(String adapter, ResourceRas ras, Runnable onRelease) {
        this.adapter = adapter;
        this.ras = ras;
        this.onRelease = onRelease;
    }

    /**
     * Records a new resource and its owner (the creating thread and call site), named as in the
     * counter labels ({@code <adapter> qp 3}, {@code <adapter> mr 0x00000100}, {@code <adapter> cq 1}).
     */
    void track(TrackedResource r) {
        ResourceKind kind = r.kind();
        long id = r.number();
        Owner owner = Owner.capture();
        String name = adapter + " " + kind.label(id);
        live.put(r, new LiveResource(kind.name(), id, name, owner, r, ras.registerResource(kind.name(), id, name, owner)));
    }

    /** A resource closed: drops it from the table; false when it was not there (closed before). */
    boolean untrack(AutoCloseable r) {
        LiveResource gone = live.remove(r);
        if (gone != null) {
            gone.slot().close();
            onRelease.run();
        }
        return gone != null;
    }

    /** Updates the detail text of a resource in the RAS owner table (e.g. a QP's state and peer). */
    void describe(AutoCloseable r, String detail) {
        LiveResource lr = live.get(r);
        if (lr != null) {
            lr.slot().detail(detail);
        }
    }

    boolean isEmpty() {
        return live.isEmpty();
    }

    /** The resources open right now, oldest first, each with its owner. */
    List<LiveResource> list() {
        List<LiveResource> list = new ArrayList<>(live.values());
        list.sort(Comparator.comparingLong((LiveResource r) -> r.owner().createdMs()).thenComparing(LiveResource::name));
        return list;
    }

    /**
     * Reports resources left open when the adapter closed: one error-log entry per creating call site,
     * and one report (returned, and logged as a warning) naming each resource and its owner.
     */
    String reportLeaks(List<LiveResource> leaked, System.Logger logger) {
        StringBuilder b = new StringBuilder("adapter " + adapter + " closed with " + leaked.size()
                + " resource(s) still open (now closed):");
        for (LiveResource r : leaked) {
            b.append("\n  ").append(r.describe());
            ras.error("resource leak: " + r.kind() + " created at " + r.owner().callSite(), r.describe());
        }
        String report = b.toString();
        logger.log(System.Logger.Level.WARNING, report);
        return report;
    }
}

package dev.tandem.iwarp;

import dev.tandem.provider.LiveResource;
import dev.tandem.provider.Owner;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An adapter's table of open resources and their owners: who created each PD, MR, MW, CQ, QP, SRQ
 * and listener, from where and when, mirrored into the process's RAS file for
 * {@code tandem stat --resources}. Leak reports, rogue-owner reports at reset and dumps read it.
 */
final class ResourceOwners {
    private final String adapter;
    private final AdapterRas ras;
    /** Called after a resource left the table (a reset waits for owners this way). */
    private final Runnable onRelease;
    private final Map<Object, LiveResource> live = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(1);

    ResourceOwners(String adapter, AdapterRas ras, Runnable onRelease) {
        this.adapter = adapter;
        this.ras = ras;
        this.onRelease = onRelease;
    }

    /**
     * Records a new resource and its owner (the creating thread and call site), named as in the
     * counter labels ({@code <adapter> qp 3}, {@code <adapter> mr 0x00000100}, {@code <adapter> cq 1}).
     */
    void track(AutoCloseable r) {
        String kind;
        long id;
        String label;
        switch (r) {
            case IwQueuePair q -> {
                kind = "QP";
                id = q.qpNumber();
                label = "qp " + id;
            }
            case IwMemoryRegion m -> {
                kind = "MR";
                id = m.lkey() & 0xFFFF_FFFFL;
                label = String.format("mr 0x%08x", m.lkey());
            }
            case IwMemoryWindow w -> {
                kind = "MW";
                id = w.rkey() & 0xFFFF_FFFFL;
                label = String.format("mw 0x%08x", w.rkey());
            }
            case IwListener l -> {
                kind = "LISTENER";
                id = l.localAddress().getPort();
                label = "listener " + id;
            }
            case IwCompletionQueue c -> {
                kind = "CQ";
                id = c.number();
                label = "cq " + id;
            }
            case IwSharedReceiveQueue q -> {
                kind = "SRQ";
                id = q.number();
                label = "srq " + id;
            }
            default -> {
                kind = r instanceof IwProtectionDomain ? "PD" : r.getClass().getSimpleName();
                id = ids.getAndIncrement();
                label = kind.toLowerCase(Locale.ROOT) + " " + id;
            }
        }
        Owner owner = Owner.capture();
        String name = adapter + " " + label;
        live.put(r, new LiveResource(kind, id, name, owner, r, ras.registerResource(kind, id, name, owner)));
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

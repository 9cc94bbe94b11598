package dev.tandem.provider;

import dev.tandem.ras.Counter;
import dev.tandem.ras.CounterType;
import dev.tandem.ras.CountersFullException;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasFile;
import dev.tandem.ras.ResourceSlot;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ResourceLimitException;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What an adapter's resources report into the process's RAS file, whatever the transport: the
 * counters of each CQ, SRQ and MR (labelled {@code <adapter> <resource> <name>}), the owner table,
 * the distinct error log and the adapter's dropped async events. A transport adds its own counters
 * beside these through {@link #file()}. Holds one use of {@link ProcessRas} until {@link #close()}.
 */
public final class ResourceRas implements AutoCloseable {
    private final String adapter;
    private final RasFile file;
    private final Counter asyncEventsDropped;
    private final Counter[] completionsByStatus = new Counter[CompletionStatus.values().length];
    private final Map<ResourceKind, AtomicInteger> numbers = new EnumMap<>(ResourceKind.class);

    public ResourceRas(String adapter) {
        this.adapter = adapter;
        this.file = ProcessRas.acquire();
        for (CompletionStatus s : CompletionStatus.values()) {
            completionsByStatus[s.ordinal()] = file.counters().allocate(CounterType.ADAPTER.id(), adapter + " completions " + s, 0);
        }
        this.asyncEventsDropped = file.counters().allocate(CounterType.ADAPTER.id(), adapter + " async events dropped", 0);
        for (ResourceKind k : ResourceKind.values()) {
            numbers.put(k, new AtomicInteger(1));
        }
    }

    /** The adapter's name, as every label starts. */
    public String adapter() {
        return adapter;
    }

    /** The process's RAS file, for a transport's own counters and trace components. */
    public RasFile file() {
        return file;
    }

    /**
     * Counters of one resource, labelled {@code <adapter> <resource> <name>} (e.g. {@code iwarp0@127.0.1.1 cq 3
     * completions}), all or none; the resource closes them.
     *
     * @throws ResourceLimitException when the process's RAS file holds {@link dev.tandem.ras.RasConfig#counterLimit()}
     *                                counters already
     */
    public Counter[] resourceCounters(CounterType type, String resource, long ownerKey, String... names) {
        try {
            return allocate(file, type.id(), adapter + " " + resource, ownerKey, names);
        } catch (CountersFullException e) {
            throw new ResourceLimitException("RasConfig.counterLimit", e.capacity(), "adapter " + adapter + ": no room for the counters of "
                    + resource + ": all " + e.capacity() + " counters of the process's RAS file (RasConfig.counterLimit) are in use by"
                    + " its adapters; close resources, or raise the limit with ProcessRas.configure before the first adapter opens", e);
        }
    }

    /** Counters labelled {@code <prefix> <name>}, allocated all or none (none left behind when one fails). */
    public static Counter[] allocate(RasFile file, int typeId, String prefix, long ownerKey, String... names) {
        Counter[] out = new Counter[names.length];
        try {
            for (int i = 0; i < names.length; i++) {
                out[i] = file.counters().allocate(typeId, prefix + " " + names[i], ownerKey);
            }
        } catch (RuntimeException e) {
            closeAll(out);
            throw e;
        }
        return out;
    }

    /** Closes the non-null counters (idempotent). */
    public static void closeAll(Counter... counters) {
        for (Counter c : counters) {
            if (c != null) {
                c.close();
            }
        }
    }

    /** The adapter's next number of {@code kind} (CQs, SRQs and PDs are numbered from 1 per adapter). */
    public int nextNumber(ResourceKind kind) {
        return numbers.get(kind).getAndIncrement();
    }

    /** Records an error once per distinct cause (with a count) in the process's error log. */
    public void error(String cause, String detail) {
        file.errorLog().record(adapter + ": " + cause, detail);
    }

    /** A work completion of {@code status} was generated (on any CQ of the adapter). */
    void completion(CompletionStatus status) {
        completionsByStatus[status.ordinal()].incrementAtomic();
    }

    /** An async event found every queue full and was dropped. */
    void asyncEventDropped() {
        asyncEventsDropped.incrementAtomic();
    }

    /** Records a resource in the RAS file's owner table (read from outside by {@code tandem stat --resources}). */
    ResourceSlot registerResource(String kind, long id, String name, Owner owner) {
        return file.resources().register(kind, id, name, owner.thread(), owner.callSite());
    }

    /** Checks every marker of the process's RAS file; throws {@link dev.tandem.ras.CorruptStructureException} naming a bad one. */
    void verify() {
        file.verify();
    }

    @Override
    public void close() {
        asyncEventsDropped.close();
        closeAll(completionsByStatus);
        ProcessRas.release();
    }
}

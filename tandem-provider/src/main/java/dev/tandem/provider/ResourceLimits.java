package dev.tandem.provider;

import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.ResourceLimitException;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.ToIntFunction;

/**
 * How many resources of each limited kind one adapter has open, against the maximum its
 * {@link DeviceAttributes} advertise. A create takes a slot before it allocates anything (so the STag
 * table or the RAS file never refuses first) and gives it back if it fails; a close gives it back. The
 * one more than the maximum is refused with {@link ResourceLimitException} naming the attribute.
 */
public final class ResourceLimits {

    /** A kind of resource the attributes bound, with the attribute that bounds it. */
    public enum Kind {
        QUEUE_PAIR("queue pairs", "maxQueuePairs", DeviceAttributes::maxQueuePairs),
        /** Regions and windows draw from one STag index space. */
        STAG("memory regions and windows", "maxMemoryRegions", DeviceAttributes::maxMemoryRegions),
        COMPLETION_QUEUE("completion queues", "maxCompletionQueues", DeviceAttributes::maxCompletionQueues),
        SHARED_RECEIVE_QUEUE("shared receive queues", "maxSharedReceiveQueues", DeviceAttributes::maxSharedReceiveQueues),
        PROTECTION_DOMAIN("protection domains", "maxProtectionDomains", DeviceAttributes::maxProtectionDomains);

        private final String plural;
        /** The attribute as a user reads it, e.g. {@code DeviceAttributes.maxQueuePairs}. */
        private final String attribute;
        private final ToIntFunction<DeviceAttributes> max;

        Kind(String plural, String attribute, ToIntFunction<DeviceAttributes> max) {
            this.plural = plural;
            this.attribute = "DeviceAttributes." + attribute;
            this.max = max;
        }

        /** What it counts, in the plural ("queue pairs"), as reports name it. */
        public String plural() {
            return plural;
        }
    }

    private final String adapter;
    private final int[] max;
    private final AtomicIntegerArray open;

    public ResourceLimits(String adapter, DeviceAttributes attributes) {
        this.adapter = adapter;
        Kind[] kinds = Kind.values();
        this.max = new int[kinds.length];
        for (Kind k : kinds) {
            max[k.ordinal()] = k.max.applyAsInt(attributes);
        }
        this.open = new AtomicIntegerArray(kinds.length);
    }

    /**
     * Takes a slot for one more resource of {@code kind}; pair with {@link #giveBack} when its create fails
     * or it closes.
     *
     * @throws ResourceLimitException when the advertised maximum is open already
     */
    public void take(Kind kind) {
        int i = kind.ordinal();
        int now;
        do {
            now = open.get(i);
            if (now >= max[i]) {
                throw new ResourceLimitException(kind.attribute, max[i], "adapter " + adapter + ": all " + max[i] + " "
                        + kind.plural + " (" + kind.attribute + ") are in use; close one before creating another");
            }
        } while (!open.compareAndSet(i, now, now + 1));
    }

    /** Gives back the slot of a resource of {@code kind} that closed or failed to be created. */
    public void giveBack(Kind kind) {
        int i = kind.ordinal();
        int now;
        do {
            now = open.get(i);
            if (now == 0) {
                throw new IllegalStateException("adapter " + adapter + ": gave back more " + kind.plural + " than it took");
            }
        } while (!open.compareAndSet(i, now, now - 1));
    }

    /** Resources of {@code kind} open now. */
    public int open(Kind kind) {
        return open.get(kind.ordinal());
    }

    /** The advertised maximum of {@code kind}. */
    public int max(Kind kind) {
        return max[kind.ordinal()];
    }
}

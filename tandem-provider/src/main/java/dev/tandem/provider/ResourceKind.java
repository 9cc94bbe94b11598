package dev.tandem.provider;

/**
 * The kinds of resource an adapter tracks, in the order they close whoever closes them (the adapter,
 * a PD, a reset): listeners first (no new connections), then QPs (they reference regions and queues),
 * windows, regions, SRQs, PDs, and CQs last (closing QPs still flushes into them). Each names the
 * attribute that bounds it ({@link ResourceLimits.Kind}), if any, and how its labels read.
 */
public enum ResourceKind {
    LISTENER("listener", null, false),
    QP("qp", ResourceLimits.Kind.QUEUE_PAIR, false),
    MW("mw", ResourceLimits.Kind.STAG, true),
    MR("mr", ResourceLimits.Kind.STAG, true),
    SRQ("srq", ResourceLimits.Kind.SHARED_RECEIVE_QUEUE, false),
    PD("pd", ResourceLimits.Kind.PROTECTION_DOMAIN, false),
    CQ("cq", ResourceLimits.Kind.COMPLETION_QUEUE, false);

    private final String label;
    private final ResourceLimits.Kind limit;
    private final boolean hexNumber;

    ResourceKind(String label, ResourceLimits.Kind limit, boolean hexNumber) {
        this.label = label;
        this.limit = limit;
        this.hexNumber = hexNumber;
    }

    /** The limited kind it counts against, or null when nothing bounds it (a listener). */
    public ResourceLimits.Kind limit() {
        return limit;
    }

    /** How counter labels and owner tables name one: {@code qp 3}, {@code mr 0x00000100}, {@code cq 1}. */
    public String label(long number) {
        return hexNumber ? String.format("%s 0x%08x", label, number) : label + " " + number;
    }
}

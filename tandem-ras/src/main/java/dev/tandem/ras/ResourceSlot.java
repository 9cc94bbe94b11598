package dev.tandem.ras;

/**
 * A resource's entry in the {@link Resources} table: the owner keeps its detail text current and
 * closes it when the resource is destroyed. When the table was full the slot records nothing
 * ({@link #recorded()} is false) and its methods do nothing, so resource creation never fails for
 * want of RAS space. Safe to use from any thread.
 */
public final class ResourceSlot implements AutoCloseable {
    private final Resources table;
    private final int slot;
    private final long entry;
    private boolean closed;

    ResourceSlot(Resources table, int slot, long entry) {
        this.table = table;
        this.slot = slot;
        this.entry = entry;
        this.closed = slot < 0;
    }

    /**
     * Replaces the detail text, e.g. {@code "state RTS peer 127.0.1.2:4791"} (null clears it; cut to
     * {@value RasFileDescriptor#MAX_RESOURCE_DETAIL_LENGTH} UTF-8 bytes). Does nothing once the slot is
     * closed (its entry may describe another resource by then) or when it was not recorded.
     */
    public synchronized void detail(String text) {
        if (!closed && table.mapped()) {
            table.detail(entry, text);
        }
    }

    /** Frees the entry: the resource no longer shows. Idempotent; does nothing after the RAS file was closed. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (table.mapped()) {
            table.free(entry);
        }
    }

    /** False when the table was full at registration (the registration was counted as dropped). */
    public boolean recorded() {
        return slot >= 0;
    }

    /** Index of the entry in the table, or -1 when not recorded. */
    public int slot() {
        return slot;
    }

    @Override
    public String toString() {
        return recorded() ? "ResourceSlot[" + slot + "]" : "ResourceSlot[not recorded]";
    }
}

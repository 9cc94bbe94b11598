package dev.tandem.ras;

/** Every counter slot of the RAS file is allocated; raise {@link RasConfig#counterCapacity()} or close counters. */
public final class CountersFullException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    CountersFullException(int capacity, String label) {
        super("all " + capacity + " counters of the RAS file are allocated, none left for '" + label
                + "'; raise RasConfig.counterCapacity or close counters that are no longer used");
    }
}

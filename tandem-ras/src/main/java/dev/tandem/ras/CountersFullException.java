package dev.tandem.ras;

/** The RAS file holds {@link RasConfig#counterLimit()} counters, all allocated; raise the limit or close counters. */
public final class CountersFullException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final int capacity;

    CountersFullException(int capacity, int pages, int pageCapacity, String label) {
        super("all " + capacity + " counters of the RAS file (RasConfig.counterLimit; " + pages + " pages of " + pageCapacity
                + ") are allocated, none left for '" + label + "'; raise RasConfig.counterLimit or close counters that"
                + " are no longer used");
        this.capacity = capacity;
    }

    /** Counters the file holds, all allocated: {@link RasConfig#counterLimit()}. */
    public int capacity() {
        return capacity;
    }
}

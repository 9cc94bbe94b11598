package dev.tandem.verbs;

/**
 * One scatter/gather entry: {@code length} bytes at {@code offset} of a registered region.
 * The region stands in for the lkey; the provider checks the entry when the request is posted.
 */
public record Sge(MemoryRegion region, long offset, int length) {
    public Sge {
        if (region == null) {
            throw new InvalidArgumentException("Sge region is null; pass the MemoryRegion that holds the bytes");
        }
        if (offset < 0) {
            throw new InvalidArgumentException("Sge offset " + offset + " is negative; it is a byte offset into the region");
        }
        if (length < 0) {
            throw new InvalidArgumentException("Sge length " + length + " is negative");
        }
    }

    /** The whole region as one entry. */
    public static Sge of(MemoryRegion region) {
        if (region.length() > Integer.MAX_VALUE) {
            throw new InvalidArgumentException("Sge.of: region of " + region.length() + " bytes is longer than one SGE may be ("
                    + Integer.MAX_VALUE + "); use several SGEs");
        }
        return new Sge(region, 0, (int) region.length());
    }
}

package dev.tandem.verbs;

/**
 * One scatter/gather entry: {@code length} bytes at {@code offset} of a registered region.
 * The region stands in for its lkey; the device the request is posted to resolves it and checks the
 * entry when the request is posted. A region of another device may be named where the device posted
 * to registered the same memory under the same lkey (devices of one node given one
 * {@link StagSource}, as a fail-over device does); anywhere else the post fails with
 * {@link LocalProtectionException} saying why.
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

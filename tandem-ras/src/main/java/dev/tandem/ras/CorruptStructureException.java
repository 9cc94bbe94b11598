package dev.tandem.ras;

/**
 * Fatal: a structure marker did not hold what it must, so the structure it brackets was overwritten
 * (or the file is not a RAS file of this layout version). Names the structure, where, and what was
 * found against what was expected; nothing in the structure may be trusted afterwards.
 */
public final class CorruptStructureException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String structure;
    private final long offset;
    private final String expected;
    private final String found;

    /**
     * @param structure the structure's name, e.g. {@code "error log of /tmp/tandem/42.ras"}
     * @param offset    byte offset of the bad marker or field in its segment
     * @param expected  what should have been there (printable)
     * @param found     what was there (printable)
     */
    public CorruptStructureException(String structure, long offset, String expected, String found) {
        super("corrupt structure '" + structure + "' at offset " + offset + ": expected " + expected + ", found " + found
                + "; the structure was overwritten or is not of this layout version");
        this.structure = structure;
        this.offset = offset;
        this.expected = expected;
        this.found = found;
    }

    /** The structure's name. */
    public String structure() {
        return structure;
    }

    /** Byte offset of the bad marker or field. */
    public long offset() {
        return offset;
    }

    /** What should have been there. */
    public String expected() {
        return expected;
    }

    /** What was there. */
    public String found() {
        return found;
    }
}

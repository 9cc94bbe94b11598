package dev.tandem.ras;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;

/**
 * A 16-byte eye-catcher that starts or ends an off-heap structure: up to 11 readable ASCII
 * characters, a space, {@code v} and a three-digit version, e.g. {@code "TANDEMRAS   v001"}, so a hex
 * dump shows where each structure begins and ends (the reference's section 5.1.4 and 5.3.2.3).
 * Checking it compares two longs; a mismatch throws {@link CorruptStructureException} naming the
 * structure.
 */
public final class StructureMarker {
    /** Bytes a marker occupies. */
    public static final int LENGTH = 16;
    /** Longest eye-catcher. */
    public static final int MAX_EYE_CATCHER_LENGTH = 11;

    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;

    private final String eyeCatcher;
    private final int version;
    private final byte[] bytes;
    private final long word0;
    private final long word1;

    private StructureMarker(String eyeCatcher, int version) {
        this.eyeCatcher = eyeCatcher;
        this.version = version;
        this.bytes = String.format("%-" + MAX_EYE_CATCHER_LENGTH + "s v%03d", eyeCatcher, version)
                .getBytes(StandardCharsets.US_ASCII);
        MemorySegment heap = MemorySegment.ofArray(bytes);
        this.word0 = heap.get(WORD, 0);
        this.word1 = heap.get(WORD, 8);
    }

    /**
     * A marker with {@code eyeCatcher} (1..11 printable ASCII characters, no space) and {@code version}
     * (0..999).
     */
    public static StructureMarker of(String eyeCatcher, int version) {
        if (eyeCatcher == null || eyeCatcher.isEmpty() || eyeCatcher.length() > MAX_EYE_CATCHER_LENGTH
                || !eyeCatcher.chars().allMatch(c -> c > 0x20 && c < 0x7F)) {
            throw new IllegalArgumentException("eye-catcher '" + eyeCatcher + "' must be 1.." + MAX_EYE_CATCHER_LENGTH
                    + " printable ASCII characters without spaces");
        }
        if (version < 0 || version > 999) {
            throw new IllegalArgumentException("marker version " + version + " must be 0..999");
        }
        return new StructureMarker(eyeCatcher, version);
    }

    /** The readable name part, e.g. {@code "TANDEMRAS"}. */
    public String eyeCatcher() {
        return eyeCatcher;
    }

    /** The layout version the marker carries. */
    public int version() {
        return version;
    }

    /** The full 16 characters as they appear in memory. */
    public String text() {
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    /** Writes the marker at {@code offset}. */
    public void write(MemorySegment segment, long offset) {
        MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, offset, LENGTH);
    }

    /**
     * Writes the marker after a release fence, so a reader that sees it also sees every store made
     * before (used for the file's start marker, written last when the file is ready).
     */
    public void publish(MemorySegment segment, long offset) {
        VarHandle.releaseFence();
        write(segment, offset);
    }

    /** True when the 16 bytes at {@code offset} are this marker. */
    public boolean matches(MemorySegment segment, long offset) {
        return segment.get(WORD, offset) == word0 && segment.get(WORD, offset + 8) == word1;
    }

    /**
     * Checks the 16 bytes at {@code offset}.
     *
     * @param structure names the structure in the exception, e.g. {@code "trace ring of /tmp/tandem/42.ras"}
     * @throws CorruptStructureException when they are not this marker (including another version of it)
     */
    public void check(MemorySegment segment, long offset, String structure) {
        if (offset < 0 || offset + LENGTH > segment.byteSize()) {
            throw new CorruptStructureException(structure, offset, "marker '" + text() + "'",
                    "the structure ends before its marker (segment is " + segment.byteSize() + " bytes)");
        }
        if (!matches(segment, offset)) {
            throw new CorruptStructureException(structure, offset, "marker '" + text() + "'", describe(segment, offset));
        }
    }

    private String describe(MemorySegment segment, long offset) {
        byte[] found = segment.asSlice(offset, LENGTH).toArray(ValueLayout.JAVA_BYTE);
        boolean zero = true;
        StringBuilder text = new StringBuilder(LENGTH);
        for (byte b : found) {
            zero &= b == 0;
            text.append(b >= 0x20 && b < 0x7F ? (char) b : '.');
        }
        if (zero) {
            return "16 zero bytes (never written, or the file is not initialised yet)";
        }
        String shown = "'" + text + "'";
        String prefix = text().substring(0, MAX_EYE_CATCHER_LENGTH + 2);
        if (text.toString().startsWith(prefix)) {
            return shown + " (same structure, another layout version: this code reads v" + String.format("%03d", version) + ")";
        }
        return shown;
    }

    @Override
    public String toString() {
        return text();
    }
}

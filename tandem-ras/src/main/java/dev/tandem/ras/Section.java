package dev.tandem.ras;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static dev.tandem.ras.RasFileDescriptor.SECTION_BODY_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.SECTION_ENTRY_CAPACITY_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.SECTION_ENTRY_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.SECTION_HEADER_LENGTH;

/**
 * Where one section lies in the file: absolute offsets of its header, body and end marker.
 *
 * @param kind          which section
 * @param offset        start of the section (its start marker)
 * @param length        whole section, padded to the section alignment
 * @param bodyLength    bytes of entries (or of the byte log)
 * @param entryCapacity entries in the body (0 for the byte log)
 * @param structure     name used in {@link CorruptStructureException}, e.g. "error log of /tmp/t/42.ras"
 */
record Section(RasSection kind, long offset, long length, long bodyLength, int entryCapacity, String structure) {

    long bodyOffset() {
        return offset + SECTION_HEADER_LENGTH;
    }

    long endMarkerOffset() {
        return bodyOffset() + bodyLength;
    }

    /** Absolute offset of entry {@code index}. */
    long entryOffset(int index) {
        return bodyOffset() + (long) index * kind.entryLength;
    }

    /** Writes the section header and both markers (owner, at creation). */
    void format(MemorySegment file) {
        kind.start.write(file, offset);
        file.set(ValueLayout.JAVA_LONG, offset + SECTION_BODY_LENGTH_OFFSET, bodyLength);
        file.set(ValueLayout.JAVA_INT, offset + SECTION_ENTRY_LENGTH_OFFSET, kind.entryLength);
        file.set(ValueLayout.JAVA_INT, offset + SECTION_ENTRY_CAPACITY_OFFSET, entryCapacity);
        kind.end.write(file, endMarkerOffset());
    }

    /** Checks both markers; throws {@link CorruptStructureException} naming this section. */
    void check(MemorySegment file) {
        kind.start.check(file, offset, structure);
        kind.end.check(file, endMarkerOffset(), structure);
    }
}

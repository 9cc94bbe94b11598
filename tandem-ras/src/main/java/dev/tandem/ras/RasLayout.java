package dev.tandem.ras;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

import static dev.tandem.ras.RasFileDescriptor.COMMAND_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.COMMAND_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.COUNTER_PAGES_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.COUNTER_PAGE_ALIGNMENT;
import static dev.tandem.ras.RasFileDescriptor.FILE_END_MARKER;
import static dev.tandem.ras.RasFileDescriptor.FILE_HEADER_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.FILE_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.FILE_START_MARKER;
import static dev.tandem.ras.RasFileDescriptor.HEADER_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.LAYOUT_VERSION;
import static dev.tandem.ras.RasFileDescriptor.LAYOUT_VERSION_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.MAX_COMMAND_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.PID_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.SECTION_ALIGNMENT;
import static dev.tandem.ras.RasFileDescriptor.SECTION_BODY_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.SECTION_COUNT_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.SECTION_ENTRY_CAPACITY_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.SECTION_ENTRY_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.SECTION_HEADER_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.SECTION_TABLE_ENTRY_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.SECTION_TABLE_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.START_TIME_MS_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.align;

/**
 * The sections of one RAS file: planned from a {@link RasConfig} by the owner, or read back and
 * validated from the header by a reader. Knows how to format and check every marker, and where the
 * counter pages appended after the fixed part lie.
 */
record RasLayout(String fileName, long fileLength, List<Section> sections) {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    /** Name of the whole file in exceptions. */
    String structure() {
        return "RAS file " + fileName;
    }

    Section section(RasSection kind) {
        return sections.get(kind.ordinal());
    }

    long endMarkerOffset() {
        return fileLength - StructureMarker.LENGTH;
    }

    /** Plans the file for {@code config}. */
    static RasLayout plan(RasConfig config, String fileName) {
        long[] bodies = {
                (long) config.counterCapacity() * RasSection.COUNTER_METADATA.entryLength,
                (long) config.counterCapacity() * RasSection.COUNTER_VALUES.entryLength,
                align(config.errorLogBytes(), SECTION_ALIGNMENT),
                (long) config.traceComponentCapacity() * RasSection.TRACE_LEVELS.entryLength,
                config.traceRingBytes(),
                (long) config.resourceCapacity() * RasSection.RESOURCES.entryLength};
        RasSection[] kinds = RasSection.values();
        Section[] sections = new Section[kinds.length];
        long offset = FILE_HEADER_LENGTH;
        for (RasSection kind : kinds) {
            long body = bodies[kind.ordinal()];
            long length = sectionLength(body);
            int capacity = kind.entryLength == 0 ? 0 : (int) (body / kind.entryLength);
            sections[kind.ordinal()] = new Section(kind, offset, length, body, capacity, name(kind, fileName));
            offset += length;
        }
        return new RasLayout(fileName, offset + StructureMarker.LENGTH, List.of(sections));
    }

    /**
     * Writes the header (all but the start marker, which the owner publishes last), every section
     * header and marker, and the end marker.
     */
    void format(MemorySegment file, long pid, long startTimeMs, String command) {
        file.set(ValueLayout.JAVA_INT, LAYOUT_VERSION_OFFSET, LAYOUT_VERSION);
        file.set(ValueLayout.JAVA_INT, HEADER_LENGTH_OFFSET, FILE_HEADER_LENGTH);
        file.set(ValueLayout.JAVA_LONG, PID_OFFSET, pid);
        file.set(ValueLayout.JAVA_LONG, START_TIME_MS_OFFSET, startTimeMs);
        file.set(ValueLayout.JAVA_LONG, FILE_LENGTH_OFFSET, fileLength);
        file.set(ValueLayout.JAVA_INT, SECTION_COUNT_OFFSET, sections.size());
        for (Section s : sections) {
            long entry = SECTION_TABLE_OFFSET + (long) s.kind().ordinal() * SECTION_TABLE_ENTRY_LENGTH;
            file.set(ValueLayout.JAVA_LONG, entry, s.offset());
            file.set(ValueLayout.JAVA_LONG, entry + 8, s.length());
            s.format(file);
        }
        byte[] cmd = command.getBytes(StandardCharsets.US_ASCII);
        int n = Math.min(cmd.length, MAX_COMMAND_LENGTH);
        MemorySegment.copy(cmd, 0, file, ValueLayout.JAVA_BYTE, COMMAND_OFFSET, n);
        file.set(ValueLayout.JAVA_INT, COMMAND_LENGTH_OFFSET, n);
        FILE_END_MARKER.write(file, endMarkerOffset());
    }

    /** Checks the file's start and end markers (cheap: four long compares). */
    void checkFile(MemorySegment file) {
        FILE_START_MARKER.check(file, 0, structure());
        FILE_END_MARKER.check(file, endMarkerOffset(), structure());
    }

    /** Checks every marker in the file. */
    void checkAll(MemorySegment file) {
        checkFile(file);
        for (Section s : sections) {
            s.check(file);
        }
    }

    /**
     * Reads and validates the layout of a mapped file: markers, version, lengths and the section table.
     *
     * @throws CorruptStructureException naming the first structure that does not hold
     */
    static RasLayout read(MemorySegment file, String fileName) {
        String structure = "RAS file " + fileName;
        long size = file.byteSize();
        long minimum = FILE_HEADER_LENGTH + StructureMarker.LENGTH;
        if (size < minimum) {
            throw new CorruptStructureException(structure, 0, "a file of at least " + minimum + " bytes", size + " bytes");
        }
        FILE_START_MARKER.check(file, 0, structure);
        expect(file, structure, LAYOUT_VERSION_OFFSET, "layout version", LAYOUT_VERSION);
        expect(file, structure, HEADER_LENGTH_OFFSET, "header length", FILE_HEADER_LENGTH);
        long fileLength = file.get(ValueLayout.JAVA_LONG, FILE_LENGTH_OFFSET);
        if (fileLength < minimum || fileLength > size) {
            throw new CorruptStructureException(structure, FILE_LENGTH_OFFSET, "file length " + minimum + ".." + size
                    + " (the file's size; counter pages may follow the fixed part)", String.valueOf(fileLength));
        }
        FILE_END_MARKER.check(file, fileLength - StructureMarker.LENGTH, structure);
        RasSection[] kinds = RasSection.values();
        expect(file, structure, SECTION_COUNT_OFFSET, "section count", kinds.length);
        Section[] sections = new Section[kinds.length];
        long previousEnd = FILE_HEADER_LENGTH;
        for (RasSection kind : kinds) {
            long entry = SECTION_TABLE_OFFSET + (long) kind.ordinal() * SECTION_TABLE_ENTRY_LENGTH;
            long offset = file.get(ValueLayout.JAVA_LONG, entry);
            long length = file.get(ValueLayout.JAVA_LONG, entry + 8);
            if (offset < previousEnd || offset % SECTION_ALIGNMENT != 0
                    || length < SECTION_HEADER_LENGTH + StructureMarker.LENGTH || length > fileLength - StructureMarker.LENGTH - offset) {
                throw new CorruptStructureException(structure, entry, "a section table entry for the " + kind.description
                        + " inside the file, after byte " + previousEnd, "offset " + offset + " length " + length);
            }
            sections[kind.ordinal()] = readSection(file, kind, offset, length, name(kind, fileName));
            previousEnd = offset + length;
        }
        Section meta = sections[RasSection.COUNTER_METADATA.ordinal()];
        Section values = sections[RasSection.COUNTER_VALUES.ordinal()];
        checkSameCapacity(meta, values);
        Section ring = sections[RasSection.TRACE_RING.ordinal()];
        if (Integer.bitCount(ring.entryCapacity()) != 1) {
            throw new CorruptStructureException(ring.structure(), ring.offset() + SECTION_ENTRY_CAPACITY_OFFSET,
                    "a power-of-two record capacity", String.valueOf(ring.entryCapacity()));
        }
        return new RasLayout(fileName, fileLength, List.of(sections));
    }

    /**
     * Reads and validates the header and markers of the section of {@code kind} at {@code offset}, which the
     * caller checked to lie inside the file.
     */
    static Section readSection(MemorySegment file, RasSection kind, long offset, long length, String name) {
        kind.start.check(file, offset, name);
        long body = file.get(ValueLayout.JAVA_LONG, offset + SECTION_BODY_LENGTH_OFFSET);
        expect(file, name, offset + SECTION_ENTRY_LENGTH_OFFSET, "entry length", kind.entryLength);
        int capacity = file.get(ValueLayout.JAVA_INT, offset + SECTION_ENTRY_CAPACITY_OFFSET);
        boolean fits = body >= 0 && SECTION_HEADER_LENGTH + body + StructureMarker.LENGTH <= length;
        boolean consistent = kind.entryLength == 0 ? capacity == 0 : capacity >= 0 && (long) capacity * kind.entryLength == body;
        if (!fits || !consistent) {
            throw new CorruptStructureException(name, offset + SECTION_BODY_LENGTH_OFFSET, "a body of entry capacity x "
                    + kind.entryLength + " bytes within " + length + " section bytes", "body length " + body
                    + ", capacity " + capacity);
        }
        Section s = new Section(kind, offset, length, body, capacity, name);
        s.check(file);
        return s;
    }

    /** The counter metadata and values of one page have one capacity: entry i of each is counter i. */
    static void checkSameCapacity(Section metadata, Section values) {
        if (metadata.entryCapacity() != values.entryCapacity()) {
            throw new CorruptStructureException(values.structure(), values.offset() + SECTION_ENTRY_CAPACITY_OFFSET,
                    "the counter metadata's capacity " + metadata.entryCapacity(), String.valueOf(values.entryCapacity()));
        }
    }

    /** Bytes of a section with a body of {@code bodyLength}: header, body and end marker, padded to the alignment. */
    static long sectionLength(long bodyLength) {
        return align(SECTION_HEADER_LENGTH + bodyLength + StructureMarker.LENGTH, SECTION_ALIGNMENT);
    }

    // ---------------------------------------------------------------- counter pages

    /** Counter page 0: the file's own counter sections. */
    CounterPage firstCounterPage(MemorySegment file) {
        return new CounterPage(0, file, section(RasSection.COUNTER_METADATA), section(RasSection.COUNTER_VALUES));
    }

    /** Counters per page. */
    int counterPageCapacity() {
        return section(RasSection.COUNTER_METADATA).entryCapacity();
    }

    /** Where appended counter page {@code number} (1, 2, ...) starts in the file. */
    long counterPageOffset(int number) {
        return align(fileLength, COUNTER_PAGE_ALIGNMENT) + (number - 1L) * CounterPage.length(counterPageCapacity());
    }

    /**
     * Every counter page of a mapped file a reader sees: page 0 and the appended pages that the header's
     * page count names and that lie inside {@code file} (a page appended after the file was mapped is not).
     *
     * @throws CorruptStructureException naming the first page whose markers or header do not hold
     */
    List<CounterPage> counterPages(MemorySegment file) {
        int appended = (int) INT.getAcquire(file, (long) COUNTER_PAGES_OFFSET);
        long pageLength = CounterPage.length(counterPageCapacity());
        List<CounterPage> pages = new ArrayList<>();
        pages.add(firstCounterPage(file));
        for (int n = 1; n <= appended && counterPageOffset(n) + pageLength <= file.byteSize(); n++) {
            pages.add(CounterPage.read(n, file.asSlice(counterPageOffset(n), pageLength), counterPageCapacity(), fileName));
        }
        return pages;
    }

    static void expect(MemorySegment file, String structure, long offset, String what, int expected) {
        int found = file.get(ValueLayout.JAVA_INT, offset);
        if (found != expected) {
            throw new CorruptStructureException(structure, offset, what + " " + expected, String.valueOf(found));
        }
    }

    static String name(RasSection kind, String fileName) {
        return kind.description + " of " + fileName;
    }
}

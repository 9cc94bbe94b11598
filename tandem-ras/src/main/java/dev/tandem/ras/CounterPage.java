package dev.tandem.ras;

import java.lang.foreign.MemorySegment;

import static dev.tandem.ras.RasFileDescriptor.COUNTER_PAGE_ALIGNMENT;
import static dev.tandem.ras.RasFileDescriptor.align;

/**
 * One page of counters: a counter metadata section and a counter values section of one capacity, over
 * the segment that holds them. Page 0 is the RAS file's own pair of sections (offsets within the file);
 * page n &ge; 1 is appended to the file when the pages before it are full (offsets within the page; see
 * {@link RasFileDescriptor}, "Counter pages"). Counter {@code page x capacity + i} is entry i of both.
 *
 * @param number   0 for the file's own sections, 1, 2, ... for appended pages
 * @param segment  the bytes the section offsets are relative to
 * @param metadata the counter metadata section
 * @param values   the counter values section
 */
record CounterPage(int number, MemorySegment segment, Section metadata, Section values) {

    /** Bytes of an appended page of {@code capacity} counters (a multiple of 4096, so that each maps on its own). */
    static long length(int capacity) {
        return align(metadataLength(capacity) + RasLayout.sectionLength((long) capacity * RasSection.COUNTER_VALUES.entryLength),
                COUNTER_PAGE_ALIGNMENT);
    }

    private static long metadataLength(int capacity) {
        return RasLayout.sectionLength((long) capacity * RasSection.COUNTER_METADATA.entryLength);
    }

    /** Appended page {@code number} over {@code segment} (its own {@link #length} bytes), to be {@link #format}ted. */
    static CounterPage plan(int number, MemorySegment segment, int capacity, String fileName) {
        long metadataLength = metadataLength(capacity);
        long valuesBody = (long) capacity * RasSection.COUNTER_VALUES.entryLength;
        return new CounterPage(number, segment,
                new Section(RasSection.COUNTER_METADATA, 0, metadataLength, (long) capacity * RasSection.COUNTER_METADATA.entryLength,
                        capacity, name(RasSection.COUNTER_METADATA, number, fileName)),
                new Section(RasSection.COUNTER_VALUES, metadataLength, RasLayout.sectionLength(valuesBody), valuesBody, capacity,
                        name(RasSection.COUNTER_VALUES, number, fileName)));
    }

    /**
     * Reads and validates appended page {@code number} over {@code segment} (its {@link #length} bytes).
     *
     * @throws CorruptStructureException when a marker, an entry length or the capacity does not hold
     */
    static CounterPage read(int number, MemorySegment segment, int capacity, String fileName) {
        CounterPage planned = plan(number, segment, capacity, fileName);
        Section metadata = RasLayout.readSection(segment, RasSection.COUNTER_METADATA, 0, planned.metadata.length(),
                planned.metadata.structure());
        Section values = RasLayout.readSection(segment, RasSection.COUNTER_VALUES, planned.values.offset(),
                planned.values.length(), planned.values.structure());
        RasLayout.checkSameCapacity(metadata, values);
        if (metadata.entryCapacity() != capacity) {
            throw new CorruptStructureException(metadata.structure(), RasFileDescriptor.SECTION_ENTRY_CAPACITY_OFFSET,
                    "the capacity of counter page 0, " + capacity, String.valueOf(metadata.entryCapacity()));
        }
        return new CounterPage(number, segment, metadata, values);
    }

    private static String name(RasSection kind, int number, String fileName) {
        return kind.description + " of counter page " + number + " of " + fileName;
    }

    /** Counters the page holds. */
    int capacity() {
        return metadata.entryCapacity();
    }

    /** Writes both sections' headers and markers (owner, before publishing the page). */
    void format() {
        metadata.format(segment);
        values.format(segment);
    }

    /** Checks both sections' markers; throws {@link CorruptStructureException} naming the bad one. */
    void check() {
        metadata.check(segment);
        values.check(segment);
    }
}

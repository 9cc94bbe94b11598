package dev.tandem.ras;

import static dev.tandem.ras.RasFileDescriptor.COUNTER_METADATA_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.COUNTER_VALUE_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.LAYOUT_VERSION;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_ENTRY_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.TRACE_LEVEL_SLOT_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.TRACE_RECORD_LENGTH;

/** The sections of a RAS file, in file order, with their markers and entry length (0: a byte log). */
enum RasSection {
    COUNTER_METADATA("counter metadata", "CTRMETA", COUNTER_METADATA_LENGTH),
    COUNTER_VALUES("counter values", "CTRVALUES", COUNTER_VALUE_LENGTH),
    ERROR_LOG("error log", "ERRORLOG", 0),
    TRACE_LEVELS("trace level table", "TRACELVL", TRACE_LEVEL_SLOT_LENGTH),
    TRACE_RING("trace ring", "TRACERING", TRACE_RECORD_LENGTH),
    RESOURCES("resource table", "RESOURCES", RESOURCE_ENTRY_LENGTH);

    final String description;
    final StructureMarker start;
    final StructureMarker end;
    final int entryLength;

    RasSection(String description, String eyeCatcher, int entryLength) {
        this.description = description;
        this.start = StructureMarker.of(eyeCatcher, LAYOUT_VERSION);
        this.end = StructureMarker.of("/" + eyeCatcher, LAYOUT_VERSION);
        this.entryLength = entryLength;
    }
}

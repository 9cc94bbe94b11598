package dev.tandem.ras;

/**
 * Layout of a RAS file, {@code <dir>/<pid>.ras}: one file per process holding its counters, distinct
 * error log, trace level table, trace ring and resource owner table, mapped by the owner read-write
 * and by readers read-only (the trace level table and the dump request field read-write, so an
 * outside tool can change levels and ask for a dump). Integers are in the platform's native byte
 * order (little-endian on every supported machine). All offsets are bytes. Layout version 2 added
 * the resource table and the dump request and dump done fields of the header; version 3 added the
 * counter pages, so that the counters grow with the resources they count instead of capping them.
 *
 * <h2>File</h2>
 * <pre>
 *  0          512 (128-aligned sections, in this order)                                     fileLength-16
 *  +----------+-----------+-----------+-----------+-----------+-----------+-----------+----------+
 *  |  header  |  counter  |  counter  |   error   |   trace   |   trace   | resource  |   end    |
 *  |          |  metadata |  values   |    log    |   levels  |   ring    |   table   |  marker  |
 *  +----------+-----------+-----------+-----------+-----------+-----------+-----------+----------+
 *
 *  align(fileLength, 4096): counter pages, appended while the owner runs, never removed
 *  +-----------+-----------+-----------+-----------+-----
 *  |  counter  |  counter  |  counter  |  counter  |
 *  |  metadata |  values   |  metadata |  values   | ...
 *  +-----------+-----------+-----------+-----------+-----
 *  |     counter page 1    |     counter page 2    |
 * </pre>
 *
 * <h2>Counter pages</h2>
 * When every counter slot is allocated, the owner appends a counter page (until the file holds
 * {@link RasConfig#counterLimit()} counters; the file's own counter sections are page 0): a
 * counter metadata section and a counter values section, each exactly like the file's own (same markers,
 * same entry capacity), page n at {@code align(fileLength, 4096) + (n - 1) x pageLength} with
 * {@code pageLength} = the two sections' lengths rounded up to 4096. The owner grows the file, formats the
 * page and then publishes the page count in the header (release); a reader reads the pages the count
 * names that lie inside what it mapped. Counter id {@code page x capacity + entry}. The file's size is
 * its fixed part ({@code fileLength}) plus its pages, so the counters cost file space as they are used.
 *
 * <h2>File header (512 bytes)</h2>
 * <pre>
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +---------------------------------------------------------------+
 *   |        start marker "TANDEMRAS   v003" (16 bytes, written     |   0
 *   |        last: a reader that sees it sees a complete file)      |
 *   +-------------------------------+-------------------------------+
 *   |        layout version         |     header length (512)       |  16
 *   +-------------------------------+-------------------------------+
 *   |                          pid (long)                           |  24
 *   +---------------------------------------------------------------+
 *   |                   start time, epoch ms (long)                 |  32
 *   +---------------------------------------------------------------+
 *   |       file length (long; the fixed part, before any page)     |  40
 *   +-------------------------------+-------------------------------+
 *   |  owner state (0 init, 1 open, |      section count (6)        |  48
 *   |  2 closed; release)           |                               |
 *   +-------------------------------+-------------------------------+
 *   |  counter pages appended (n;   |          reserved             |  56
 *   |  release, after the page)     |                               |
 *   +-------------------------------+-------------------------------+
 *   |   heartbeat, epoch ms (long; owner-written line 64..127)      |  64
 *   +---------------------------------------------------------------+
 *   |   dump done sequence (long; release, after the name below)    |  72
 *   +-------------------------------+-------------------------------+
 *   |  dump name version (odd while |  dump name length (0: none,   |  80
 *   |  the name changes)            |  or that dump failed)         |
 *   +-------------------------------+-------------------------------+
 *   |   name of the dump written for the last served request,      ...  88
 *   |   ASCII, without "<pid>-" and ".dump" (up to 40 bytes)        |
 *   +---------------------------------------------------------------+
 *   |   section table: 6 x (offset long, length long), in the       | 128
 *   |   order of the file diagram                                   |
 *   +---------------------------------------------------------------+
 *   |   dump request sequence (long; outside tools CAS-increment    | 224
 *   |   it through a read-write mapping of the header)              |
 *   +---------------------------------------------------------------+
 *   |                       reserved to 256                         | 232
 *   +-------------------------------+-------------------------------+
 *   |  command length (int)         |  command, ASCII (252 bytes)  ...  256
 *   +-------------------------------+-------------------------------+
 * </pre>
 * A dump request: a tool increments the request sequence; the owner's duty ({@link RasFile#heartbeat()})
 * sees request &gt; done, writes {@code <dir>/<pid>-<name>.dump}, stores the name (under the name
 * version) and then publishes done = request. A dump that failed leaves the name empty and its cause in
 * the error log.
 *
 * <h2>Every section (128-aligned, padded to a multiple of 128)</h2>
 * <pre>
 *   +---------------------------------------------------------------+
 *   |   start marker, e.g. "ERRORLOG    v003" (16 bytes)            |   0
 *   +---------------------------------------------------------------+
 *   |                       body length (long)                      |  16
 *   +-------------------------------+-------------------------------+
 *   |  entry length (0: variable)   |        entry capacity         |  24
 *   +-------------------------------+-------------------------------+
 *   |   section fields, written once (32..63)                       |  32
 *   +---------------------------------------------------------------+
 *   |   section fields updated at run time (own cache line 64..127) |  64
 *   +---------------------------------------------------------------+
 *   |   body: entryCapacity x entryLength bytes, or a byte log      | 128
 *   +---------------------------------------------------------------+
 *   |   end marker, e.g. "/ERRORLOG   v003" (16 bytes), right after | 128 + body length
 *   |   the body so an overrun hits it                              |
 *   +---------------------------------------------------------------+
 * </pre>
 * Section fields: the error log keeps its tail (bytes used, CAS'd by writers) at 64 and the
 * observations dropped because it was full at 72; the trace ring keeps its clock base (epoch ns at
 * 32, {@code System.nanoTime()} at 40) and its tail sequence (getAndAdd'd by writers) at 64; the
 * resource table keeps the registrations dropped because it was full at 64.
 *
 * <h2>Counter metadata entry (160 bytes), one per counter id</h2>
 * <pre>
 *   +-------------------------------+-------------------------------+
 *   |  state (0 unused, 1 allocated,|           type id             |   0
 *   |  2 reclaimed; release)        |                               |
 *   +-------------------------------+-------------------------------+
 *   |                      owner key (long)                         |   8
 *   +-------------------------------+-------------------------------+
 *   |       label length            |           reserved            |  16
 *   +-------------------------------+-------------------------------+
 *   |                label, UTF-8 (up to 120 bytes)                ...  24
 *   +---------------------------------------------------------------+
 *   |                       reserved to 160                         | 144
 *   +---------------------------------------------------------------+
 * </pre>
 *
 * <h2>Counter value slot (128 bytes), one per counter id</h2>
 * <pre>
 *   +---------------------------------------------------------------+
 *   |   value (long), alone in 128 bytes: no false sharing, even    |   0
 *   |   with adjacent-line prefetch                                 |
 *   +---------------------------------------------------------------+
 * </pre>
 *
 * <h2>Error log record (variable, 8-aligned), appended at the tail</h2>
 * <pre>
 *   +-------------------------------+-------------------------------+
 *   |  record length (0 until the   |          key length           |   0
 *   |  record is complete; release) |                               |
 *   +-------------------------------+-------------------------------+
 *   |                 observation count (long, atomic add)          |   8
 *   +---------------------------------------------------------------+
 *   |                 first observation, epoch ms                   |  16
 *   +---------------------------------------------------------------+
 *   |                 last observation, epoch ms (CAS to max)       |  24
 *   +-------------------------------+-------------------------------+
 *   |          text length          |           reserved            |  32
 *   +-------------------------------+-------------------------------+
 *   |   key (the distinct cause, UTF-8, up to 256), then the first  |  40
 *   |   observation's text (UTF-8, up to 2048), padded to 8        ...
 *   +---------------------------------------------------------------+
 * </pre>
 *
 * <h2>Trace level slot (64 bytes), one per component</h2>
 * <pre>
 *   +-------------------------------+-------------------------------+
 *   |  level 0..9 (the owner's duty | name length (0: free slot;    |   0
 *   |  copies it to the hot path)   | written last)                 |
 *   +-------------------------------+-------------------------------+
 *   |                 name, ASCII (up to 48 bytes)                 ...   8
 *   +---------------------------------------------------------------+
 * </pre>
 *
 * <h2>Trace record (128 bytes), ring of a power-of-two count, oldest overwritten</h2>
 * <pre>
 *   +---------------------------------------------------------------+
 *   | stamp: sequence + 1 when complete, -(sequence + 1) while      |   0
 *   | written, 0 never written                                      |
 *   +---------------------------------------------------------------+
 *   |                 time, System.nanoTime (long)                  |   8
 *   +---------------------------------------------------------------+
 *   |                 thread id (long)                              |  16
 *   +---------------------------------------------------------------+
 *   |                 event: up to 8 ASCII bytes                    |  24
 *   +---------------------------------------------------------------+
 *   |                 a, b, c, d (4 longs)                          |  32
 *   +---------------+-------+-------+-------------------------------+
 *   | component slot| level | text  |  text, ASCII (up to 48 bytes) ...  64
 *   | (short)       |       | length|                               |
 *   +---------------+-------+-------+-------------------------------+
 * </pre>
 *
 * <h2>Resource entry (256 bytes), one per live verbs resource</h2>
 * <pre>
 *   +-------------------------------+-------------------------------+
 *   |  state (0 free, 1 claimed by  |  version (odd while fields    |   0
 *   |  CAS, 2 live; release, last)  |  change: a seqlock)           |
 *   +-------------------------------+-------------------------------+
 *   |                 id (long; e.g. a QP number)                   |   8
 *   +---------------------------------------------------------------+
 *   |                 owner pid (long)                              |  16
 *   +---------------------------------------------------------------+
 *   |                 created, epoch ms (long)                      |  24
 *   +-------+-------+-------+-------+-------+-----------------------+
 *   | type  | name  | thread| call  | detail|   reserved            |  32
 *   | length| length| length| site l| length|                       |
 *   +-------+-------+-------+-------+-------+-----------------------+
 *   |   type, ASCII (up to 8, e.g. "QP", "LISTENER")                |  40
 *   +---------------------------------------------------------------+
 *   |   name, UTF-8 (up to 48, e.g. "iwarp0@127.0.1.1 qp 3")       ...  48
 *   +---------------------------------------------------------------+
 *   |   owner thread name, UTF-8 (up to 40)                        ...  96
 *   +---------------------------------------------------------------+
 *   |   creating call site, UTF-8 (up to 64)                       ... 136
 *   +---------------------------------------------------------------+
 *   |   detail, UTF-8 (up to 56; the owner updates it)             ... 200
 *   +---------------------------------------------------------------+
 * </pre>
 * Text longer than its field is cut at a character boundary and marked with {@code "…"} in place of
 * the cut part: the call site keeps its end (class, method, file and line; the package prefix goes),
 * every other field keeps its beginning.
 */
public final class RasFileDescriptor {
    private RasFileDescriptor() {
    }

    /** Version of this layout; it is also part of every marker. */
    public static final int LAYOUT_VERSION = 3;
    /** File name suffix. */
    public static final String FILE_SUFFIX = ".ras";

    /** First bytes of the file. */
    public static final StructureMarker FILE_START_MARKER = StructureMarker.of("TANDEMRAS", LAYOUT_VERSION);
    /** Last bytes of the file. */
    public static final StructureMarker FILE_END_MARKER = StructureMarker.of("/TANDEMRAS", LAYOUT_VERSION);

    // File header.
    public static final int FILE_HEADER_LENGTH = 512;
    public static final int START_MARKER_OFFSET = 0;
    public static final int LAYOUT_VERSION_OFFSET = 16;
    public static final int HEADER_LENGTH_OFFSET = 20;
    public static final int PID_OFFSET = 24;
    public static final int START_TIME_MS_OFFSET = 32;
    public static final int FILE_LENGTH_OFFSET = 40;
    public static final int OWNER_STATE_OFFSET = 48;
    public static final int SECTION_COUNT_OFFSET = 52;
    public static final int COUNTER_PAGES_OFFSET = 56;
    public static final int HEARTBEAT_MS_OFFSET = 64;
    public static final int DUMP_DONE_OFFSET = 72;
    public static final int DUMP_NAME_VERSION_OFFSET = 80;
    public static final int DUMP_NAME_LENGTH_OFFSET = 84;
    public static final int DUMP_NAME_OFFSET = 88;
    public static final int MAX_DUMP_NAME_LENGTH = 40;
    public static final int SECTION_TABLE_OFFSET = 128;
    public static final int SECTION_TABLE_ENTRY_LENGTH = 16;
    public static final int DUMP_REQUEST_OFFSET = 224;
    public static final int COMMAND_LENGTH_OFFSET = 256;
    public static final int COMMAND_OFFSET = 260;
    public static final int MAX_COMMAND_LENGTH = FILE_HEADER_LENGTH - COMMAND_OFFSET;

    // Every section.
    public static final int SECTION_ALIGNMENT = 128;
    public static final int SECTION_HEADER_LENGTH = 128;
    public static final int SECTION_BODY_LENGTH_OFFSET = 16;
    public static final int SECTION_ENTRY_LENGTH_OFFSET = 24;
    public static final int SECTION_ENTRY_CAPACITY_OFFSET = 28;

    // Counter metadata entry.
    public static final int COUNTER_METADATA_LENGTH = 160;
    public static final int COUNTER_STATE_OFFSET = 0;
    public static final int COUNTER_TYPE_ID_OFFSET = 4;
    public static final int COUNTER_OWNER_KEY_OFFSET = 8;
    public static final int COUNTER_LABEL_LENGTH_OFFSET = 16;
    public static final int COUNTER_LABEL_OFFSET = 24;
    public static final int MAX_COUNTER_LABEL_LENGTH = 120;
    public static final int COUNTER_STATE_UNUSED = 0;
    public static final int COUNTER_STATE_ALLOCATED = 1;
    public static final int COUNTER_STATE_RECLAIMED = 2;

    // Counter value slot.
    public static final int COUNTER_VALUE_LENGTH = 128;

    // Counter pages.
    public static final int COUNTER_PAGE_ALIGNMENT = 4096;

    // Error log section fields and record.
    public static final int ERROR_LOG_TAIL_OFFSET = 64;
    public static final int ERROR_LOG_DROPPED_OFFSET = 72;
    public static final int ERROR_RECORD_LENGTH_OFFSET = 0;
    public static final int ERROR_KEY_LENGTH_OFFSET = 4;
    public static final int ERROR_COUNT_OFFSET = 8;
    public static final int ERROR_FIRST_MS_OFFSET = 16;
    public static final int ERROR_LAST_MS_OFFSET = 24;
    public static final int ERROR_TEXT_LENGTH_OFFSET = 32;
    public static final int ERROR_KEY_OFFSET = 40;
    public static final int ERROR_RECORD_ALIGNMENT = 8;
    public static final int MAX_ERROR_KEY_LENGTH = 256;
    public static final int MAX_ERROR_TEXT_LENGTH = 2048;

    // Trace level slot.
    public static final int TRACE_LEVEL_SLOT_LENGTH = 64;
    public static final int TRACE_SLOT_LEVEL_OFFSET = 0;
    public static final int TRACE_SLOT_NAME_LENGTH_OFFSET = 4;
    public static final int TRACE_SLOT_NAME_OFFSET = 8;
    public static final int MAX_COMPONENT_NAME_LENGTH = 48;

    // Trace ring section fields and record.
    public static final int TRACE_RING_CLOCK_EPOCH_NS_OFFSET = 32;
    public static final int TRACE_RING_CLOCK_NANO_TIME_OFFSET = 40;
    public static final int TRACE_RING_TAIL_OFFSET = 64;
    public static final int TRACE_RECORD_LENGTH = 128;
    public static final int TRACE_STAMP_OFFSET = 0;
    public static final int TRACE_TIME_OFFSET = 8;
    public static final int TRACE_THREAD_OFFSET = 16;
    public static final int TRACE_EVENT_OFFSET = 24;
    public static final int TRACE_A_OFFSET = 32;
    public static final int TRACE_B_OFFSET = 40;
    public static final int TRACE_C_OFFSET = 48;
    public static final int TRACE_D_OFFSET = 56;
    public static final int TRACE_COMPONENT_OFFSET = 64;
    public static final int TRACE_LEVEL_OFFSET = 66;
    public static final int TRACE_TEXT_LENGTH_OFFSET = 67;
    public static final int TRACE_TEXT_OFFSET = 68;
    public static final int MAX_TRACE_TEXT_LENGTH = 48;

    // Resource table section field and entry.
    public static final int RESOURCES_DROPPED_OFFSET = 64;
    public static final int RESOURCE_ENTRY_LENGTH = 256;
    public static final int RESOURCE_STATE_OFFSET = 0;
    public static final int RESOURCE_VERSION_OFFSET = 4;
    public static final int RESOURCE_ID_OFFSET = 8;
    public static final int RESOURCE_PID_OFFSET = 16;
    public static final int RESOURCE_CREATED_MS_OFFSET = 24;
    public static final int RESOURCE_TYPE_LENGTH_OFFSET = 32;
    public static final int RESOURCE_NAME_LENGTH_OFFSET = 33;
    public static final int RESOURCE_THREAD_LENGTH_OFFSET = 34;
    public static final int RESOURCE_CALL_SITE_LENGTH_OFFSET = 35;
    public static final int RESOURCE_DETAIL_LENGTH_OFFSET = 36;
    public static final int RESOURCE_TYPE_OFFSET = 40;
    public static final int MAX_RESOURCE_TYPE_LENGTH = 8;
    public static final int RESOURCE_NAME_OFFSET = 48;
    public static final int MAX_RESOURCE_NAME_LENGTH = 48;
    public static final int RESOURCE_THREAD_OFFSET = 96;
    public static final int MAX_RESOURCE_THREAD_LENGTH = 40;
    public static final int RESOURCE_CALL_SITE_OFFSET = 136;
    public static final int MAX_RESOURCE_CALL_SITE_LENGTH = 64;
    public static final int RESOURCE_DETAIL_OFFSET = 200;
    public static final int MAX_RESOURCE_DETAIL_LENGTH = 56;
    public static final int RESOURCE_STATE_FREE = 0;
    public static final int RESOURCE_STATE_CLAIMED = 1;
    public static final int RESOURCE_STATE_LIVE = 2;

    /** Owner state: the file is being written. */
    public static final int OWNER_STATE_INITIALISING = 0;
    /** Owner state: the owner has the file open. */
    public static final int OWNER_STATE_OPEN = 1;
    /** Owner state: the owner closed the file cleanly (open + dead process = it died). */
    public static final int OWNER_STATE_CLOSED = 2;

    /** {@code value} rounded up to a multiple of {@code alignment} (a power of two). */
    static long align(long value, int alignment) {
        return (value + alignment - 1) & -alignment;
    }
}

package dev.tandem.ras;

/**
 * Layout of a dump file, {@code <dir>/<pid>-<yyyyMMdd-HHmmss-SSS>-<reason>.dump} (time in UTC): one
 * process's state at one moment, written by {@link ProcessRas#dump} (or, from a dead process's RAS
 * file alone, by {@link DumpFiles#writeFromRasFile}) and decoded by {@link DumpReader}. It holds a
 * header, the state tree that the registered {@link SnapshotSource}s wrote, and a byte copy of the
 * whole RAS file (counters, error log, trace levels and ring, resource table), which
 * {@link DumpReader#ras()} reads like the file itself. A dump is written under a temporary name and
 * renamed when complete, so a dump file under its final name is whole. Integers are in native byte
 * order; offsets are bytes.
 *
 * <h2>File</h2>
 * <pre>
 *  0        128             header length                 copy offset - 16 (copy offset 128-aligned)   file length
 *  +--------+---------------+----------------------+------+---------+------------+----------+-------------+
 *  | header | reason,       | STATETREE marker,    | zero | RASCOPY | RAS file   | /RASCOPY | /TANDEMDUMP |
 *  | fields | command       | body, /STATETREE     | pad  | marker  | bytes      | marker   | marker      |
 *  +--------+---------------+----------------------+------+---------+------------+----------+-------------+
 * </pre>
 *
 * <h2>Header (128 bytes, then the texts)</h2>
 * <pre>
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +---------------------------------------------------------------+
 *   |        start marker "TANDEMDUMP  v001" (16 bytes)             |   0
 *   +-------------------------------+-------------------------------+
 *   |        format version         | header length (128 + texts,   |  16
 *   |                               | padded to 8)                  |
 *   +-------------------------------+-------------------------------+
 *   |        pid the dump describes (long)                          |  24
 *   +---------------------------------------------------------------+
 *   |        pid that wrote it (long; differs for a RAS-file-only   |  32
 *   |        dump of a dead process)                                |
 *   +---------------------------------------------------------------+
 *   |        time written, epoch ms (long)                          |  40
 *   +---------------------------------------------------------------+
 *   |        file length (long; a shorter file is truncated)        |  48
 *   +---------------------------------------------------------------+
 *   |        state tree offset (long; its start marker)             |  56
 *   +---------------------------------------------------------------+
 *   |        state tree body length (long)                          |  64
 *   +---------------------------------------------------------------+
 *   |        RAS copy offset (long; 128-aligned, marker just before)|  72
 *   +---------------------------------------------------------------+
 *   |        RAS copy length (long)                                 |  80
 *   +-------------------------------+-------------------------------+
 *   |  reason length (int, UTF-8)   |  command length (int, UTF-8)  |  88
 *   +-------------------------------+-------------------------------+
 *   |                       reserved to 128                         |  96
 *   +---------------------------------------------------------------+
 *   |  reason (up to 256 bytes), then command (up to 1024 bytes)   ... 128
 *   +---------------------------------------------------------------+
 * </pre>
 *
 * <h2>State tree body (between "STATETREE" and "/STATETREE")</h2>
 * <pre>
 *   +---------------+-----------------------------------------------+
 *   | string count  | strings: each a varint byte length + UTF-8    |
 *   | (varint)      | (keys, kinds, names and text values, once     |
 *   |               | each; an op names a string by its index)      |
 *   +---------------+-----------------------------------------------+
 *   | ops, to the end of the body:                                  |
 *   |   1 BEGIN  kind name           a group opens                  |
 *   |   2 END                        the innermost group closes     |
 *   |   3 LONG   key value           value: zigzag varint           |
 *   |   4 TEXT   key value                                          |
 *   |   5 ENUM   key type constant    the enum's simple class name  |
 *   |   6 HEX    key length n bytes   area length; its first n bytes |
 *   |   7 ERROR  source where error   a source threw; the dump went |
 *   |                                 on                            |
 *   +---------------------------------------------------------------+
 * </pre>
 * Varints are unsigned LEB128 (7 bits a byte, low first); key, kind, name, type, constant, source,
 * where and error are string indexes. Groups nest; BEGIN and END balance.
 */
public final class DumpFileDescriptor {
    private DumpFileDescriptor() {
    }

    /** Version of this format; it is also part of every marker. */
    public static final int FORMAT_VERSION = 1;
    /** File name suffix. */
    public static final String FILE_SUFFIX = ".dump";

    public static final StructureMarker FILE_START_MARKER = StructureMarker.of("TANDEMDUMP", FORMAT_VERSION);
    public static final StructureMarker FILE_END_MARKER = StructureMarker.of("/TANDEMDUMP", FORMAT_VERSION);
    public static final StructureMarker TREE_START_MARKER = StructureMarker.of("STATETREE", FORMAT_VERSION);
    public static final StructureMarker TREE_END_MARKER = StructureMarker.of("/STATETREE", FORMAT_VERSION);
    public static final StructureMarker COPY_START_MARKER = StructureMarker.of("RASCOPY", FORMAT_VERSION);
    public static final StructureMarker COPY_END_MARKER = StructureMarker.of("/RASCOPY", FORMAT_VERSION);

    // Header.
    public static final int HEADER_FIXED_LENGTH = 128;
    public static final int FORMAT_VERSION_OFFSET = 16;
    public static final int HEADER_LENGTH_OFFSET = 20;
    public static final int PID_OFFSET = 24;
    public static final int WRITER_PID_OFFSET = 32;
    public static final int TIME_MS_OFFSET = 40;
    public static final int FILE_LENGTH_OFFSET = 48;
    public static final int TREE_OFFSET_OFFSET = 56;
    public static final int TREE_LENGTH_OFFSET = 64;
    public static final int COPY_OFFSET_OFFSET = 72;
    public static final int COPY_LENGTH_OFFSET = 80;
    public static final int REASON_LENGTH_OFFSET = 88;
    public static final int COMMAND_LENGTH_OFFSET = 92;
    public static final int TEXTS_OFFSET = 128;
    public static final int MAX_REASON_LENGTH = 256;
    public static final int MAX_COMMAND_LENGTH = 1024;
    public static final int COPY_ALIGNMENT = 128;

    // State tree ops.
    public static final int OP_BEGIN = 1;
    public static final int OP_END = 2;
    public static final int OP_LONG = 3;
    public static final int OP_TEXT = 4;
    public static final int OP_ENUM = 5;
    public static final int OP_HEX = 6;
    public static final int OP_ERROR = 7;
}

package dev.tandem.ras;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static dev.tandem.ras.DumpFileDescriptor.COMMAND_LENGTH_OFFSET;
import static dev.tandem.ras.DumpFileDescriptor.COPY_ALIGNMENT;
import static dev.tandem.ras.DumpFileDescriptor.COPY_END_MARKER;
import static dev.tandem.ras.DumpFileDescriptor.COPY_LENGTH_OFFSET;
import static dev.tandem.ras.DumpFileDescriptor.COPY_OFFSET_OFFSET;
import static dev.tandem.ras.DumpFileDescriptor.COPY_START_MARKER;
import static dev.tandem.ras.DumpFileDescriptor.FILE_END_MARKER;
import static dev.tandem.ras.DumpFileDescriptor.FILE_LENGTH_OFFSET;
import static dev.tandem.ras.DumpFileDescriptor.FILE_START_MARKER;
import static dev.tandem.ras.DumpFileDescriptor.FORMAT_VERSION;
import static dev.tandem.ras.DumpFileDescriptor.FORMAT_VERSION_OFFSET;
import static dev.tandem.ras.DumpFileDescriptor.HEADER_FIXED_LENGTH;
import static dev.tandem.ras.DumpFileDescriptor.HEADER_LENGTH_OFFSET;
import static dev.tandem.ras.DumpFileDescriptor.MAX_COMMAND_LENGTH;
import static dev.tandem.ras.DumpFileDescriptor.MAX_REASON_LENGTH;
import static dev.tandem.ras.DumpFileDescriptor.PID_OFFSET;
import static dev.tandem.ras.DumpFileDescriptor.REASON_LENGTH_OFFSET;
import static dev.tandem.ras.DumpFileDescriptor.TEXTS_OFFSET;
import static dev.tandem.ras.DumpFileDescriptor.TIME_MS_OFFSET;
import static dev.tandem.ras.DumpFileDescriptor.TREE_END_MARKER;
import static dev.tandem.ras.DumpFileDescriptor.TREE_LENGTH_OFFSET;
import static dev.tandem.ras.DumpFileDescriptor.TREE_OFFSET_OFFSET;
import static dev.tandem.ras.DumpFileDescriptor.TREE_START_MARKER;
import static dev.tandem.ras.DumpFileDescriptor.WRITER_PID_OFFSET;

/**
 * Reads a dump file ({@link DumpFileDescriptor}): checks every marker and length when it opens it,
 * decodes the header and the state tree, and reads the embedded copy of the RAS file through a
 * {@link RasReader} (valid until this reader is closed). A truncated or overwritten dump fails to open
 * with a {@link CorruptStructureException} that says where and what.
 */
public final class DumpReader implements AutoCloseable {
    private final Path path;
    private final Arena arena;
    private final DumpHeader header;
    private final List<SnapshotNode> tree;
    private final RasReader ras;

    private DumpReader(Path path, Arena arena, DumpHeader header, List<SnapshotNode> tree, RasReader ras) {
        this.path = path;
        this.arena = arena;
        this.header = header;
        this.tree = tree;
        this.ras = ras;
    }

    /**
     * Opens and checks the dump at {@code file}.
     *
     * @throws CorruptStructureException when it is truncated, or a marker, length or the state tree does not hold
     * @throws UncheckedIOException      when it cannot be read
     */
    public static DumpReader open(Path file) {
        Arena arena = Arena.ofShared();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            MemorySegment dump = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
            return read(file, arena, dump);
        } catch (IOException e) {
            arena.close();
            throw new UncheckedIOException("cannot read dump " + file + ": " + e, e);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    private static DumpReader read(Path file, Arena arena, MemorySegment dump) {
        String structure = "dump " + file;
        long size = dump.byteSize();
        long minimum = HEADER_FIXED_LENGTH + StructureMarker.LENGTH;
        if (size < minimum) {
            throw new CorruptStructureException(structure, 0, "a dump of at least " + minimum + " bytes",
                    size + " bytes (truncated, or not a dump)");
        }
        FILE_START_MARKER.check(dump, 0, structure);
        int version = dump.get(ValueLayout.JAVA_INT, FORMAT_VERSION_OFFSET);
        if (version != FORMAT_VERSION) {
            throw new CorruptStructureException(structure, FORMAT_VERSION_OFFSET, "format version " + FORMAT_VERSION,
                    String.valueOf(version));
        }
        long fileLength = dump.get(ValueLayout.JAVA_LONG, FILE_LENGTH_OFFSET);
        if (fileLength != size) {
            throw new CorruptStructureException(structure, FILE_LENGTH_OFFSET, "file length " + fileLength
                    + " as the header says", size + " bytes: the dump is " + (size < fileLength ? "truncated" : "longer than written"));
        }
        FILE_END_MARKER.check(dump, size - StructureMarker.LENGTH, structure);
        int headerLength = dump.get(ValueLayout.JAVA_INT, HEADER_LENGTH_OFFSET);
        int reasonLength = dump.get(ValueLayout.JAVA_INT, REASON_LENGTH_OFFSET);
        int commandLength = dump.get(ValueLayout.JAVA_INT, COMMAND_LENGTH_OFFSET);
        if (reasonLength < 0 || reasonLength > MAX_REASON_LENGTH || commandLength < 0 || commandLength > MAX_COMMAND_LENGTH
                || headerLength < TEXTS_OFFSET + reasonLength + commandLength || headerLength > size) {
            throw new CorruptStructureException(structure, HEADER_LENGTH_OFFSET, "a header holding its reason and command",
                    "header length " + headerLength + ", reason " + reasonLength + ", command " + commandLength);
        }
        DumpHeader header = new DumpHeader(version, dump.get(ValueLayout.JAVA_LONG, PID_OFFSET),
                dump.get(ValueLayout.JAVA_LONG, WRITER_PID_OFFSET), dump.get(ValueLayout.JAVA_LONG, TIME_MS_OFFSET),
                Text.utf8(dump, TEXTS_OFFSET, reasonLength), Text.utf8(dump, TEXTS_OFFSET + reasonLength, commandLength));

        long treeOffset = dump.get(ValueLayout.JAVA_LONG, TREE_OFFSET_OFFSET);
        long treeLength = dump.get(ValueLayout.JAVA_LONG, TREE_LENGTH_OFFSET);
        long copyOffset = dump.get(ValueLayout.JAVA_LONG, COPY_OFFSET_OFFSET);
        long copyLength = dump.get(ValueLayout.JAVA_LONG, COPY_LENGTH_OFFSET);
        long treeEnd = treeOffset + StructureMarker.LENGTH + treeLength;
        if (treeOffset < headerLength || treeLength < 0 || treeEnd + StructureMarker.LENGTH > copyOffset - StructureMarker.LENGTH
                || copyOffset % COPY_ALIGNMENT != 0 || copyLength < 0
                || copyOffset + copyLength + 2L * StructureMarker.LENGTH != size) {
            throw new CorruptStructureException(structure, TREE_OFFSET_OFFSET, "a state tree and a RAS copy inside the "
                    + size + "-byte file, in this order", "tree at " + treeOffset + " (" + treeLength + " bytes), copy at "
                    + copyOffset + " (" + copyLength + " bytes)");
        }
        String treeStructure = "state tree of " + structure;
        TREE_START_MARKER.check(dump, treeOffset, treeStructure);
        TREE_END_MARKER.check(dump, treeEnd, treeStructure);
        String copyStructure = "RAS copy of " + structure;
        COPY_START_MARKER.check(dump, copyOffset - StructureMarker.LENGTH, copyStructure);
        COPY_END_MARKER.check(dump, copyOffset + copyLength, copyStructure);
        List<SnapshotNode> tree = StateTreeDecoder.decode(dump, treeOffset + StructureMarker.LENGTH, treeLength, treeStructure);
        RasReader ras = RasReader.copyIn(dump.asSlice(copyOffset, copyLength), file);
        return new DumpReader(file, arena, header, tree, ras);
    }

    public DumpHeader header() {
        return header;
    }

    /** The state tree: one node per top-level group (or source error) the sources wrote, in order. */
    public List<SnapshotNode> tree() {
        return tree;
    }

    /**
     * The copy of the process's RAS file as it was when the dump was written: counters, errors, trace
     * levels and records, resources. It changes nothing ({@link RasReader#setTraceLevel} and
     * {@link RasReader#requestDump} refuse); valid until this reader is closed.
     */
    public RasReader ras() {
        return ras;
    }

    public Path path() {
        return path;
    }

    /** Unmaps the dump. */
    @Override
    public void close() {
        arena.close();
    }
}

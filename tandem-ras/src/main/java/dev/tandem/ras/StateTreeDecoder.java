package dev.tandem.ras;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static dev.tandem.ras.DumpFileDescriptor.OP_BEGIN;
import static dev.tandem.ras.DumpFileDescriptor.OP_END;
import static dev.tandem.ras.DumpFileDescriptor.OP_ENUM;
import static dev.tandem.ras.DumpFileDescriptor.OP_ERROR;
import static dev.tandem.ras.DumpFileDescriptor.OP_HEX;
import static dev.tandem.ras.DumpFileDescriptor.OP_LONG;
import static dev.tandem.ras.DumpFileDescriptor.OP_TEXT;

/**
 * Decodes a state tree body (as {@link SnapshotWriter} encodes it) into {@link SnapshotNode}s; any
 * inconsistency is a {@link CorruptStructureException} naming the byte where decoding stopped.
 */
final class StateTreeDecoder {
    private final MemorySegment file;
    private final long end;
    private final String structure;
    private long at;
    private String[] strings;

    private StateTreeDecoder(MemorySegment file, long offset, long length, String structure) {
        this.file = file;
        this.at = offset;
        this.end = offset + length;
        this.structure = structure;
    }

    /** The top-level nodes of the body at {@code offset} of {@code length} bytes in {@code file}. */
    static List<SnapshotNode> decode(MemorySegment file, long offset, long length, String structure) {
        return new StateTreeDecoder(file, offset, length, structure).decode();
    }

    private List<SnapshotNode> decode() {
        long count = varint("a string count");
        if (count > end - at) {
            throw corrupt("a string count of at most " + (end - at), String.valueOf(count));
        }
        strings = new String[(int) count];
        for (int i = 0; i < count; i++) {
            long n = varint("a string length");
            if (n > end - at) {
                throw corrupt("a string of at most " + (end - at) + " bytes", n + " bytes");
            }
            strings[i] = new String(file.asSlice(at, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            at += n;
        }
        ArrayDeque<List<SnapshotNode>> children = new ArrayDeque<>();
        ArrayDeque<String[]> groups = new ArrayDeque<>();
        List<SnapshotNode> top = new ArrayList<>();
        List<SnapshotNode> current = top;
        while (at < end) {
            long opAt = at;
            int op = file.get(ValueLayout.JAVA_BYTE, at++);
            switch (op) {
                case OP_BEGIN -> {
                    groups.push(new String[]{string(), string()});
                    children.push(current);
                    current = new ArrayList<>();
                }
                case OP_END -> {
                    if (groups.isEmpty()) {
                        throw new CorruptStructureException(structure, opAt, "an op inside a group for END", "END at the top");
                    }
                    String[] g = groups.pop();
                    SnapshotNode group = new SnapshotNode.Group(g[0], g[1], current);
                    current = children.pop();
                    current.add(group);
                }
                case OP_LONG -> {
                    String key = string();
                    long v = varint("a number");
                    current.add(new SnapshotNode.LongField(key, (v >>> 1) ^ -(v & 1)));
                }
                case OP_TEXT -> current.add(new SnapshotNode.TextField(string(), string()));
                case OP_ENUM -> current.add(new SnapshotNode.EnumField(string(), string(), string()));
                case OP_HEX -> {
                    String key = string();
                    long length = varint("an area length");
                    long n = varint("a byte count");
                    if (n > SnapshotWriter.MAX_HEX_BYTES || n > length || n > end - at) {
                        throw corrupt("at most " + Math.min(SnapshotWriter.MAX_HEX_BYTES, end - at) + " bytes of a "
                                + length + "-byte area", n + " bytes");
                    }
                    current.add(new SnapshotNode.HexField(key, length,
                            HexFormat.of().formatHex(file.asSlice(at, n).toArray(ValueLayout.JAVA_BYTE))));
                    at += n;
                }
                case OP_ERROR -> current.add(new SnapshotNode.SourceError(string(), string(), string()));
                default -> throw new CorruptStructureException(structure, opAt, "a state tree op 1..7", String.valueOf(op));
            }
        }
        if (!groups.isEmpty()) {
            throw corrupt("every group closed at the end of the state tree", groups.size() + " group(s) open");
        }
        return top;
    }

    private String string() {
        long i = varint("a string index");
        if (i >= strings.length) {
            throw corrupt("a string index below " + strings.length, String.valueOf(i));
        }
        return strings[(int) i];
    }

    private long varint(String what) {
        long start = at;
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (at >= end) {
                throw new CorruptStructureException(structure, start, what, "the end of the state tree");
            }
            int b = file.get(ValueLayout.JAVA_BYTE, at++) & 0xFF;
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new CorruptStructureException(structure, start, what + " of at most 10 bytes", "a longer varint");
    }

    private CorruptStructureException corrupt(String expected, String found) {
        return new CorruptStructureException(structure, at, expected, found);
    }
}

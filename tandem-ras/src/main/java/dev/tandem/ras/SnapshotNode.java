package dev.tandem.ras;

import java.util.List;

/** One node of a dump's state tree as {@link DumpReader} decodes it: a group, a typed field, or a source's failure. */
public sealed interface SnapshotNode {

    /**
     * A group, e.g. kind {@code "adapter"} name {@code "iwarp0@127.0.1.1"}, or kind {@code "qp"} name {@code "3"}.
     *
     * @param kind     what the group is
     * @param name     which one
     * @param children its fields and groups, in the order written
     */
    record Group(String kind, String name, List<SnapshotNode> children) implements SnapshotNode {
        public Group {
            children = List.copyOf(children);
        }
    }

    /**
     * A number.
     *
     * @param key   field name
     * @param value its value
     */
    record LongField(String key, long value) implements SnapshotNode {
    }

    /**
     * A text (cut to {@value SnapshotWriter#MAX_TEXT_BYTES} UTF-8 bytes).
     *
     * @param key   field name
     * @param value its value
     */
    record TextField(String key, String value) implements SnapshotNode {
    }

    /**
     * An enum constant, kept by name.
     *
     * @param key      field name
     * @param type     the enum's simple class name, e.g. {@code QpState}
     * @param constant the constant's name, e.g. {@code RTS}
     */
    record EnumField(String key, String type, String constant) implements SnapshotNode {
    }

    /**
     * The first bytes of a memory area.
     *
     * @param key    field name
     * @param length the area's whole length
     * @param hex    its first (up to {@value SnapshotWriter#MAX_HEX_BYTES}) bytes, two lower-case hex digits each
     */
    record HexField(String key, long length, String hex) implements SnapshotNode {
    }

    /**
     * A snapshot source that threw (or left groups open); what it wrote before stays in the tree.
     *
     * @param source the source's class
     * @param where  the groups that were open when it failed, e.g. {@code "adapter iwarp0@127.0.1.1 / qp 3"}
     *               (empty at the top)
     * @param error  the exception with its first stack frames, or what went wrong
     */
    record SourceError(String source, String where, String error) implements SnapshotNode {
    }
}

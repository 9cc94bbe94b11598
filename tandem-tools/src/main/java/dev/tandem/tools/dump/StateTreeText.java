package dev.tandem.tools.dump;

import dev.tandem.ras.SnapshotNode;
import dev.tandem.tools.text.TextTable;

import java.io.PrintWriter;
import java.util.List;

/**
 * A dump's state tree for people: each group as {@code kind name} with its fields indented under it
 * (names padded to a column), enums by constant name, memory as hex lines, and a source that failed
 * marked with {@code !} and its exception.
 */
final class StateTreeText {
    private static final String STEP = "  ";
    private static final int HEX_PER_LINE = 16;

    private StateTreeText() {
    }

    static void print(PrintWriter out, List<SnapshotNode> nodes, String indent) {
        int keyWidth = nodes.stream().mapToInt(n -> switch (n) {
            case SnapshotNode.LongField f -> f.key().length();
            case SnapshotNode.TextField f -> f.key().length();
            case SnapshotNode.EnumField f -> f.key().length();
            case SnapshotNode.HexField f -> f.key().length();
            case SnapshotNode.Group g -> 0;
            case SnapshotNode.SourceError e -> 0;
        }).max().orElse(0);
        for (SnapshotNode node : nodes) {
            switch (node) {
                case SnapshotNode.Group g -> {
                    out.println(indent + TextTable.oneLine(g.kind() + " " + g.name()));
                    print(out, g.children(), indent + STEP);
                }
                case SnapshotNode.LongField f -> field(out, indent, keyWidth, f.key(), Long.toString(f.value()));
                case SnapshotNode.TextField f -> field(out, indent, keyWidth, f.key(), f.value());
                case SnapshotNode.EnumField f -> field(out, indent, keyWidth, f.key(), f.constant());
                case SnapshotNode.HexField f -> {
                    int shown = f.hex().length() / 2;
                    field(out, indent, keyWidth, f.key(), f.length() + " bytes" + (shown < f.length() ? ", first " + shown : "")
                            + (shown > 0 ? ":" : ""));
                    hex(out, indent + STEP + STEP, f.hex());
                }
                case SnapshotNode.SourceError e -> {
                    out.println(indent + "! snapshot source " + e.source() + " failed"
                            + (e.where().isEmpty() ? "" : " in " + TextTable.oneLine(e.where())) + ":");
                    for (String line : e.error().split("\\R")) {
                        out.println(indent + "    " + TextTable.oneLine(line.replace("\t", "    ")));
                    }
                }
            }
        }
    }

    private static void field(PrintWriter out, String indent, int width, String key, String value) {
        out.println(indent + TextTable.oneLine(key) + " ".repeat(width - key.length() + 2) + TextTable.oneLine(value));
    }

    /** Lines of {@value #HEX_PER_LINE} bytes: offset, hex bytes, printable ASCII. */
    private static void hex(PrintWriter out, String indent, String hex) {
        int bytes = hex.length() / 2;
        for (int line = 0; line < bytes; line += HEX_PER_LINE) {
            StringBuilder b = new StringBuilder(indent).append(String.format("%04x ", line));
            StringBuilder text = new StringBuilder();
            for (int i = line; i < line + HEX_PER_LINE; i++) {
                if (i < bytes) {
                    String h = hex.substring(2 * i, 2 * i + 2);
                    int v = Integer.parseInt(h, 16);
                    b.append(' ').append(h);
                    text.append(v >= 0x20 && v < 0x7F ? (char) v : '.');
                } else {
                    b.append("   ");
                }
            }
            out.println(b.append("  |").append(text).append('|'));
        }
    }
}

package dev.tandem.tools.dump;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain text table for the dump printout: a header row, rows of cells, columns padded to their
 * widest cell; a header starting with {@code >} is right-aligned. Control characters in cells (text
 * from the dump) show as {@code ?}, so a row stays one line.
 */
final class Columns {
    private final String[] header;
    private final boolean[] right;
    private final List<String[]> rows = new ArrayList<>();

    Columns(String... header) {
        this.header = new String[header.length];
        this.right = new boolean[header.length];
        for (int i = 0; i < header.length; i++) {
            right[i] = header[i].startsWith(">");
            this.header[i] = right[i] ? header[i].substring(1) : header[i];
        }
    }

    Columns row(Object... cells) {
        if (cells.length != header.length) {
            throw new IllegalArgumentException(cells.length + " cells for " + header.length + " columns");
        }
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            row[i] = oneLine(String.valueOf(cells[i]));
        }
        rows.add(row);
        return this;
    }

    /** Prints the header and the rows, each line starting with {@code indent}. */
    void print(PrintWriter out, String indent) {
        int[] width = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            width[i] = header[i].length();
            for (String[] row : rows) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        line(out, indent, header, width);
        for (String[] row : rows) {
            line(out, indent, row, width);
        }
    }

    private void line(PrintWriter out, String indent, String[] cells, int[] width) {
        StringBuilder b = new StringBuilder(indent);
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                b.append("  ");
            }
            String pad = " ".repeat(width[i] - cells[i].length());
            b.append(right[i] ? pad + cells[i] : cells[i] + pad);
        }
        out.println(b.toString().stripTrailing());
    }

    /** {@code s} with control characters shown as {@code ?}. */
    static String oneLine(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || c == 0x7F ? '?' : c);
        }
        return b.toString();
    }
}

package dev.tandem.tools.text;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain text table: a header row, rows of cells, columns padded to their widest cell, two spaces
 * apart. Cells often hold text read from a RAS or dump file (labels, commands, call sites), so control
 * characters in them show as {@code ?} and each row stays one line.
 */
public final class TextTable {
    private final String[] header;
    private final boolean[] rightAligned;
    private final List<String[]> rows = new ArrayList<>();

    /** Columns named {@code header}; a name starting with {@code >} is right-aligned (the {@code >} is dropped). */
    public TextTable(String... header) {
        this.header = new String[header.length];
        this.rightAligned = new boolean[header.length];
        for (int i = 0; i < header.length; i++) {
            rightAligned[i] = header[i].startsWith(">");
            this.header[i] = rightAligned[i] ? header[i].substring(1) : header[i];
        }
    }

    /** Adds a row, one cell per column (each shown as {@link String#valueOf(Object)}). */
    public TextTable row(Object... cells) {
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

    /** True when no row was added. */
    public boolean isEmpty() {
        return rows.isEmpty();
    }

    /** Prints the header and the rows, each line starting with {@code indent}. */
    public void print(PrintWriter out, String indent) {
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
            boolean last = i == cells.length - 1;
            String pad = " ".repeat(width[i] - cells[i].length());
            if (rightAligned[i]) {
                b.append(pad).append(cells[i]);
            } else {
                b.append(cells[i]);
                if (!last) {
                    b.append(pad);
                }
            }
        }
        out.println(b.toString().stripTrailing());
    }

    /** {@code s} with control characters (e.g. in a label or command from a file) shown as {@code ?}, so it stays one line. */
    public static String oneLine(String s) {
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7F) {
                if (b == null) {
                    b = new StringBuilder(s);
                }
                b.setCharAt(i, '?');
            }
        }
        return b == null ? s : b.toString();
    }
}

package dev.tandem.ras;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import static dev.tandem.ras.DumpFileDescriptor.OP_BEGIN;
import static dev.tandem.ras.DumpFileDescriptor.OP_END;
import static dev.tandem.ras.DumpFileDescriptor.OP_ENUM;
import static dev.tandem.ras.DumpFileDescriptor.OP_ERROR;
import static dev.tandem.ras.DumpFileDescriptor.OP_HEX;
import static dev.tandem.ras.DumpFileDescriptor.OP_LONG;
import static dev.tandem.ras.DumpFileDescriptor.OP_TEXT;

/**
 * Writes a dump's state tree: nested groups ({@link #begin}/{@link #end}, e.g. kind "adapter" name
 * "iwarp0@127.0.1.1", then kind "qp" name "3") holding typed fields. Encoded compactly as
 * {@link DumpFileDescriptor} draws it, each distinct string stored once. Bounded: texts are cut to
 * {@value #MAX_TEXT_BYTES} UTF-8 bytes, memory areas to their first {@value #MAX_HEX_BYTES} bytes, and a
 * tree past {@value #MAX_TREE_BYTES} bytes drops further fields (the dump says so). One thread writes it.
 */
public final class SnapshotWriter {
    /** Bytes of a memory area that {@link #hex} keeps. */
    public static final int MAX_HEX_BYTES = 256;
    /** UTF-8 bytes a text keeps. */
    public static final int MAX_TEXT_BYTES = 4096;
    /** Size past which further fields are dropped. */
    public static final int MAX_TREE_BYTES = 16 << 20;
    /** Stack frames an error entry keeps. */
    private static final int ERROR_FRAMES = 12;

    private final Map<String, Integer> index = new HashMap<>();
    private final List<byte[]> strings = new ArrayList<>();
    private final ByteArrayOutputStream ops = new ByteArrayOutputStream(4096);
    /** Per open group, innermost first: whether its BEGIN was written (not dropped for size). */
    private final ArrayDeque<Boolean> written = new ArrayDeque<>();
    private final ArrayDeque<String> path = new ArrayDeque<>();
    private long stringBytes;
    private boolean cut;

    SnapshotWriter() {
    }

    /**
     * Opens a group inside the current one.
     *
     * @param kind what it is, e.g. {@code "adapter"}, {@code "qp"}
     * @param name which one, e.g. {@code "iwarp0@127.0.1.1"}, {@code "3"}
     */
    public SnapshotWriter begin(String kind, String name) {
        require(kind, "group kind", "e.g. \"adapter\" or \"qp\"");
        if (name == null) {
            throw new IllegalArgumentException("group name is null for kind '" + kind + "'; give which one, e.g. \"3\"");
        }
        path.push(kind + " " + name);
        boolean emit = !cut;
        written.push(emit);
        if (emit) {
            op(OP_BEGIN);
            string(kind);
            string(name);
            checkSize();
        }
        return this;
    }

    /**
     * Closes the innermost group.
     *
     * @throws IllegalStateException when no group is open
     */
    public SnapshotWriter end() {
        if (written.isEmpty()) {
            throw new IllegalStateException("end() without an open group: every end() closes one begin()");
        }
        path.pop();
        if (written.pop()) {
            op(OP_END);
        }
        return this;
    }

    /** A number, e.g. {@code field("sq depth", 128)}. */
    public SnapshotWriter field(String key, long value) {
        key(key);
        if (!cut) {
            op(OP_LONG);
            string(key);
            varint((value << 1) ^ (value >> 63));
            checkSize();
        }
        return this;
    }

    /** A text, e.g. {@code field("peer", "127.0.1.2:4791")}; null is written as {@code "null"}. */
    public SnapshotWriter field(String key, String value) {
        key(key);
        if (!cut) {
            op(OP_TEXT);
            string(key);
            string(String.valueOf(value));
            checkSize();
        }
        return this;
    }

    /** An enum constant, kept by name (and its enum's simple name), e.g. {@code field("state", QpState.RTS)}. */
    public SnapshotWriter field(String key, Enum<?> value) {
        key(key);
        if (!cut) {
            op(OP_ENUM);
            string(key);
            string(value == null ? "" : value.getDeclaringClass().getSimpleName());
            string(value == null ? "null" : value.name());
            checkSize();
        }
        return this;
    }

    /**
     * The first {@value #MAX_HEX_BYTES} bytes of a memory area (and its whole length), e.g. a received
     * header; the area must be readable by this thread.
     */
    public SnapshotWriter hex(String key, MemorySegment bytes) {
        key(key);
        if (bytes == null) {
            throw new IllegalArgumentException("hex field '" + key + "' has no segment; give the memory to show");
        }
        if (!cut) {
            int n = (int) Math.min(bytes.byteSize(), MAX_HEX_BYTES);
            byte[] copy = new byte[n];
            MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, 0, copy, 0, n);
            op(OP_HEX);
            string(key);
            varint(bytes.byteSize());
            varint(n);
            ops.write(copy, 0, n);
            checkSize();
        }
        return this;
    }

    /** Groups open now. */
    int depth() {
        return written.size();
    }

    /**
     * Closes what {@code source} left open above {@code depth} and records an error entry for
     * {@code error} (null: it returned normally but left groups open; nothing is recorded if it did not).
     */
    void finishSource(int depth, Object source, Throwable error) {
        int open = written.size() - depth;
        if (error == null && open <= 0) {
            return;
        }
        String where = where();
        for (int i = 0; i < open; i++) {
            end();
        }
        String what = error != null ? describe(error)
                : "left " + open + " group(s) open; the dump closed them";
        errorEntry(name(source.getClass()), where, what);
    }

    /** A source's class name; a lambda's as its declaring class with {@code " (lambda)"}. */
    private static String name(Class<?> type) {
        String name = type.getName();
        int lambda = name.indexOf("$$Lambda");
        return type.isHidden() && lambda > 0 ? name.substring(0, lambda) + " (lambda)" : name;
    }

    /** The encoded body: string table, then ops (closing any group still open). */
    byte[] encode() {
        while (!written.isEmpty()) {
            end();
        }
        if (cut) {
            errorEntry("dump", "", "state tree cut at " + MAX_TREE_BYTES + " bytes: later fields were dropped");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 16, stringBytes + ops.size() + 16));
        writeVarint(out, strings.size());
        for (byte[] s : strings) {
            writeVarint(out, s.length);
            out.write(s, 0, s.length);
        }
        byte[] opBytes = ops.toByteArray();
        out.write(opBytes, 0, opBytes.length);
        return out.toByteArray();
    }

    private void errorEntry(String source, String where, String error) {
        op(OP_ERROR);
        string(source);
        string(where);
        string(error);
    }

    private String where() {
        List<String> outerFirst = new ArrayList<>(path.size());
        for (Iterator<String> i = path.descendingIterator(); i.hasNext(); ) {
            outerFirst.add(i.next());
        }
        return String.join(" / ", outerFirst);
    }

    private static String describe(Throwable error) {
        StringBuilder text = new StringBuilder(error.toString());
        StackTraceElement[] stack = error.getStackTrace();
        for (int i = 0; i < Math.min(stack.length, ERROR_FRAMES); i++) {
            text.append("\n\tat ").append(stack[i]);
        }
        if (stack.length > ERROR_FRAMES) {
            text.append("\n\t... ").append(stack.length - ERROR_FRAMES).append(" more");
        }
        for (Throwable cause = error.getCause(); cause != null && cause != error; cause = cause.getCause()) {
            text.append("\nCaused by: ").append(cause);
        }
        return text.toString();
    }

    private static void require(String s, String what, String example) {
        if (s == null || s.isBlank()) {
            throw new IllegalArgumentException(what + " is " + (s == null ? "null" : "blank") + "; give one, " + example);
        }
    }

    private static void key(String key) {
        require(key, "field key", "e.g. \"state\"");
    }

    private void op(int code) {
        ops.write(code);
    }

    private void string(String s) {
        Integer i = index.get(s);
        if (i == null) {
            byte[] bytes = Text.utf8(s, MAX_TEXT_BYTES);
            i = strings.size();
            strings.add(bytes);
            index.put(s, i);
            stringBytes += bytes.length + 5;
        }
        varint(i);
    }

    private void varint(long value) {
        writeVarint(ops, value);
    }

    private static void writeVarint(ByteArrayOutputStream out, long value) {
        long v = value;
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    private void checkSize() {
        if (stringBytes + ops.size() > MAX_TREE_BYTES) {
            cut = true;
        }
    }
}

package dev.tandem.ras;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static dev.tandem.ras.DumpFileDescriptor.COMMAND_LENGTH_OFFSET;
import static dev.tandem.ras.DumpFileDescriptor.COPY_ALIGNMENT;
import static dev.tandem.ras.DumpFileDescriptor.COPY_END_MARKER;
import static dev.tandem.ras.DumpFileDescriptor.COPY_LENGTH_OFFSET;
import static dev.tandem.ras.DumpFileDescriptor.COPY_OFFSET_OFFSET;
import static dev.tandem.ras.DumpFileDescriptor.COPY_START_MARKER;
import static dev.tandem.ras.DumpFileDescriptor.FILE_END_MARKER;
import static dev.tandem.ras.DumpFileDescriptor.FILE_LENGTH_OFFSET;
import static dev.tandem.ras.DumpFileDescriptor.FILE_START_MARKER;
import static dev.tandem.ras.DumpFileDescriptor.FILE_SUFFIX;
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
 * Dump files on disk: their names ({@code <pid>-<yyyyMMdd-HHmmss-SSS>-<reason>.dump}, time in UTC, the
 * reason as a slug), writing one (under a temporary name, renamed when complete), listing a pid's
 * dumps, keeping only the newest periodic ones, and dumping a dead process from its RAS file alone.
 */
public final class DumpFiles {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("uuuuMMdd-HHmmss-SSS").withZone(ZoneOffset.UTC);
    private static final Pattern NAME = Pattern.compile("([0-9]+)-([0-9]{8}-[0-9]{6}-[0-9]{3})-([a-z0-9-]+)\\.dump");
    private static final int MAX_SLUG_LENGTH = 32;
    /** Same-millisecond dumps with the same reason get {@code -2} .. this suffix. */
    private static final int MAX_SAME_NAME = 1000;
    /** Bytes of the RAS file copied per write (a ByteBuffer holds at most 2 GiB). */
    private static final long COPY_CHUNK = 1 << 30;

    private DumpFiles() {
    }

    /**
     * The reason as it appears in a file name: lower-case letters and digits, every other run of
     * characters one {@code -}, at most 32 characters; {@code "dump"} when nothing is left.
     */
    public static String slug(String reason) {
        StringBuilder slug = new StringBuilder();
        for (char c : reason.toLowerCase(Locale.ROOT).toCharArray()) {
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
                slug.append(c);
            } else if (!slug.isEmpty() && slug.charAt(slug.length() - 1) != '-') {
                slug.append('-');
            }
        }
        String s = slug.length() > MAX_SLUG_LENGTH ? slug.substring(0, MAX_SLUG_LENGTH) : slug.toString();
        while (s.endsWith("-")) {
            s = s.substring(0, s.length() - 1);
        }
        return s.isEmpty() ? "dump" : s;
    }

    /** The dumps of process {@code pid} in {@code dir}, oldest first; empty when the directory does not exist. */
    public static List<Path> list(Path dir, long pid) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.filter(p -> {
                        Matcher m = NAME.matcher(p.getFileName().toString());
                        return m.matches() && m.group(1).equals(Long.toString(pid));
                    })
                    .sorted(Comparator.comparing((Path p) -> stamp(p)).thenComparingInt(p -> p.getFileName().toString().length())
                            .thenComparing(p -> p.getFileName().toString()))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list dumps in " + dir + ": " + e, e);
        }
    }

    private static String stamp(Path p) {
        Matcher m = NAME.matcher(p.getFileName().toString());
        return m.matches() ? m.group(2) : "";
    }

    /**
     * Writes a dump of the process whose RAS file is {@code rasFile} (typically one that died) from that
     * file alone: no state tree, only the copy of its RAS file. The header names the file's pid and
     * command, and this process as the writer.
     *
     * @param dir    where to write it (created if missing)
     * @param reason why, e.g. {@code "post-mortem"}
     * @return the dump file
     * @throws CorruptStructureException when the RAS file is corrupt
     * @throws UncheckedIOException      when it cannot be read or the dump cannot be written
     */
    public static Path writeFromRasFile(Path rasFile, Path dir, String reason) {
        checkReason(reason);
        try (RasReader reader = RasReader.open(rasFile)) {
            RasHeader ras = reader.header();
            DumpHeader header = new DumpHeader(FORMAT_VERSION, ras.pid(), ProcessHandle.current().pid(),
                    System.currentTimeMillis(), reason, ras.command());
            return write(dir, header, new SnapshotWriter().encode(), reader.segment());
        }
    }

    static void checkReason(String reason) {
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("dump reason is " + (reason == null ? "null" : "blank")
                    + "; say why, e.g. \"adapter fatal\" (it is part of the file name)");
        }
    }

    /**
     * Writes one dump file into {@code dir}: {@code header}, the encoded state tree and a copy of
     * {@code ras} (a whole RAS file). Returns the file, complete under its final name.
     */
    static Path write(Path dir, DumpHeader header, byte[] tree, MemorySegment ras) {
        byte[] reason = Text.utf8(header.reason(), MAX_REASON_LENGTH);
        byte[] command = Text.utf8(header.command(), MAX_COMMAND_LENGTH);
        long headerLength = RasFileDescriptor.align(TEXTS_OFFSET + reason.length + command.length, 8);
        long treeOffset = headerLength;
        long treeEnd = treeOffset + StructureMarker.LENGTH + tree.length + StructureMarker.LENGTH;
        long copyOffset = RasFileDescriptor.align(treeEnd + StructureMarker.LENGTH, COPY_ALIGNMENT);
        long fileLength = copyOffset + ras.byteSize() + 2L * StructureMarker.LENGTH;
        if (copyOffset > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("state tree of " + tree.length + " bytes is too large for a dump");
        }
        byte[] front = new byte[(int) copyOffset];
        MemorySegment f = MemorySegment.ofArray(front);
        FILE_START_MARKER.write(f, 0);
        f.set(ValueLayout.JAVA_INT_UNALIGNED, FORMAT_VERSION_OFFSET, header.formatVersion());
        f.set(ValueLayout.JAVA_INT_UNALIGNED, HEADER_LENGTH_OFFSET, (int) headerLength);
        f.set(ValueLayout.JAVA_LONG_UNALIGNED, PID_OFFSET, header.pid());
        f.set(ValueLayout.JAVA_LONG_UNALIGNED, WRITER_PID_OFFSET, header.writerPid());
        f.set(ValueLayout.JAVA_LONG_UNALIGNED, TIME_MS_OFFSET, header.timeMs());
        f.set(ValueLayout.JAVA_LONG_UNALIGNED, FILE_LENGTH_OFFSET, fileLength);
        f.set(ValueLayout.JAVA_LONG_UNALIGNED, TREE_OFFSET_OFFSET, treeOffset);
        f.set(ValueLayout.JAVA_LONG_UNALIGNED, TREE_LENGTH_OFFSET, tree.length);
        f.set(ValueLayout.JAVA_LONG_UNALIGNED, COPY_OFFSET_OFFSET, copyOffset);
        f.set(ValueLayout.JAVA_LONG_UNALIGNED, COPY_LENGTH_OFFSET, ras.byteSize());
        f.set(ValueLayout.JAVA_INT_UNALIGNED, REASON_LENGTH_OFFSET, reason.length);
        f.set(ValueLayout.JAVA_INT_UNALIGNED, COMMAND_LENGTH_OFFSET, command.length);
        System.arraycopy(reason, 0, front, TEXTS_OFFSET, reason.length);
        System.arraycopy(command, 0, front, TEXTS_OFFSET + reason.length, command.length);
        TREE_START_MARKER.write(f, treeOffset);
        System.arraycopy(tree, 0, front, (int) treeOffset + StructureMarker.LENGTH, tree.length);
        TREE_END_MARKER.write(f, treeEnd - StructureMarker.LENGTH);
        COPY_START_MARKER.write(f, copyOffset - StructureMarker.LENGTH);
        byte[] back = new byte[2 * StructureMarker.LENGTH];
        COPY_END_MARKER.write(MemorySegment.ofArray(back), 0);
        FILE_END_MARKER.write(MemorySegment.ofArray(back), StructureMarker.LENGTH);

        try {
            Files.createDirectories(dir);
            String base = header.pid() + "-" + STAMP.format(Instant.ofEpochMilli(header.timeMs())) + "-" + slug(header.reason());
            Path temp = Files.createTempFile(dir, "." + base + "-", ".tmp");
            try {
                try (FileChannel out = FileChannel.open(temp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                    writeFully(out, ByteBuffer.wrap(front));
                    for (long at = 0; at < ras.byteSize(); at += COPY_CHUNK) {
                        writeFully(out, ras.asSlice(at, Math.min(COPY_CHUNK, ras.byteSize() - at)).asByteBuffer());
                    }
                    writeFully(out, ByteBuffer.wrap(back));
                }
                return publish(temp, dir, base);
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write a dump of process " + header.pid() + " into " + dir + ": " + e, e);
        }
    }

    private static void writeFully(FileChannel out, ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) {
            out.write(bytes);
        }
    }

    /** Renames the complete {@code temp} to {@code base.dump}, or {@code base-2.dump}, ... when that name is taken. */
    private static Path publish(Path temp, Path dir, String base) throws IOException {
        for (int n = 1; n <= MAX_SAME_NAME; n++) {
            Path target = dir.resolve(base + (n == 1 ? "" : "-" + n) + FILE_SUFFIX);
            if (!Files.exists(target)) {
                return Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            }
        }
        throw new IOException(MAX_SAME_NAME + " dumps named " + base + " exist already");
    }

    /** Deletes all but the newest {@code keep} dumps of {@code pid} in {@code dir} whose reason is {@code slug}. */
    static void prune(Path dir, long pid, String slug, int keep) {
        Pattern same = Pattern.compile(Pattern.quote(slug) + "(-[0-9]+)?");
        List<Path> matching = new ArrayList<>();
        for (Path p : list(dir, pid)) {
            Matcher m = NAME.matcher(p.getFileName().toString());
            if (m.matches() && same.matcher(m.group(3)).matches()) {
                matching.add(p);
            }
        }
        for (int i = 0; i < matching.size() - keep; i++) {
            try {
                Files.deleteIfExists(matching.get(i));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete the old dump " + matching.get(i) + ": " + e, e);
            }
        }
    }
}

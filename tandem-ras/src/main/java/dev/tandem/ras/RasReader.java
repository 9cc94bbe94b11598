package dev.tandem.ras;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static dev.tandem.ras.RasFileDescriptor.COMMAND_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.COMMAND_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.DUMP_DONE_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.DUMP_NAME_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.DUMP_NAME_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.DUMP_NAME_VERSION_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.DUMP_REQUEST_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.FILE_HEADER_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.FILE_START_MARKER;
import static dev.tandem.ras.RasFileDescriptor.FILE_SUFFIX;
import static dev.tandem.ras.RasFileDescriptor.HEARTBEAT_MS_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.LAYOUT_VERSION_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.MAX_COMMAND_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.MAX_DUMP_NAME_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.OWNER_STATE_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.PID_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.START_TIME_MS_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_SLOT_LEVEL_OFFSET;

/**
 * The outside view of a RAS file: maps another (or this) process's file read-only, while the owner
 * runs or after it died, and decodes its header, counters, error log, trace levels, trace ring and
 * resource table. Every marker is checked when the file is attached and those of a section whenever
 * it is read. {@link #setTraceLevel} maps just the level table read-write to change a running
 * process's level, and {@link #requestDump} just the header to ask it for a dump. A reader over the
 * RAS file copy inside a dump ({@link DumpReader#ras()}) reads the same way and changes nothing.
 */
public final class RasReader implements AutoCloseable {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    /** Attempts to read the last dump's name while the owner keeps changing it. */
    private static final int DUMP_NAME_ATTEMPTS = 1000;

    private final Path path;
    private final Arena arena;
    private final MemorySegment file;
    private final RasLayout layout;
    private final boolean copy;

    private RasReader(Path path, Arena arena, MemorySegment file, RasLayout layout, boolean copy) {
        this.path = path;
        this.arena = arena;
        this.file = file;
        this.layout = layout;
        this.copy = copy;
    }

    /**
     * Attaches to the RAS file at {@code path}.
     *
     * @throws CorruptStructureException when a marker, the version or the section table does not hold
     * @throws UncheckedIOException      when the file cannot be opened
     */
    public static RasReader open(Path path) {
        Arena arena = Arena.ofShared();
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            MemorySegment file = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
            RasLayout layout = RasLayout.read(file, path.toString());
            return new RasReader(path, arena, file, layout, false);
        } catch (IOException e) {
            arena.close();
            throw new UncheckedIOException("cannot open RAS file " + path + ": " + e, e);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * Reads the copy of a RAS file held in memory, e.g. inside the dump {@code dump}; {@code bytes} must
     * stay readable (and 8-aligned) while the reader is used. Markers are named {@code "... of copy in <dump>"}.
     *
     * @throws CorruptStructureException when a marker, the version or the section table does not hold
     */
    static RasReader copyIn(MemorySegment bytes, Path dump) {
        return new RasReader(dump, null, bytes, RasLayout.read(bytes, "copy in " + dump), true);
    }

    /** Attaches to the RAS file of process {@code pid} in {@code dir}. */
    public static RasReader open(Path dir, long pid) {
        return open(dir.resolve(pid + FILE_SUFFIX));
    }

    /**
     * The RAS files in {@code dir} (running, closed and dead owners), by pid; an empty list when the
     * directory does not exist. Files that cannot be read are listed with the reason.
     */
    public static List<RasListing> list(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Path> files;
        try (Stream<Path> entries = Files.list(dir)) {
            files = entries.filter(p -> p.getFileName().toString().matches("[0-9]+\\" + FILE_SUFFIX))
                    .sorted(Comparator.comparingLong(p -> Long.parseLong(p.getFileName().toString().replace(FILE_SUFFIX, ""))))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list RAS files in " + dir + ": " + e, e);
        }
        List<RasListing> out = new ArrayList<>(files.size());
        for (Path f : files) {
            try (RasReader reader = open(f)) {
                out.add(new RasListing.Found(f, reader.header(), reader.processAlive()));
            } catch (CorruptStructureException | UncheckedIOException e) {
                out.add(new RasListing.Unreadable(f, e.getMessage()));
            }
        }
        return out;
    }

    /** The file's header (checks the file's markers first). */
    public RasHeader header() {
        layout.checkFile(file);
        int code = (int) INT.getAcquire(file, (long) OWNER_STATE_OFFSET);
        OwnerState state = OwnerState.of(code);
        if (state == null) {
            throw new CorruptStructureException(layout.structure(), OWNER_STATE_OFFSET, "owner state 0, 1 or 2", String.valueOf(code));
        }
        int commandLength = Math.clamp(file.get(ValueLayout.JAVA_INT, COMMAND_LENGTH_OFFSET), 0, MAX_COMMAND_LENGTH);
        return new RasHeader(file.get(ValueLayout.JAVA_INT, LAYOUT_VERSION_OFFSET), file.get(ValueLayout.JAVA_LONG, PID_OFFSET),
                file.get(ValueLayout.JAVA_LONG, START_TIME_MS_OFFSET), (long) LONG.getAcquire(file, (long) HEARTBEAT_MS_OFFSET),
                state, Text.ascii(file, COMMAND_OFFSET, commandLength));
    }

    /** Whether the owner process is running (its pid is alive and started before the file was created). */
    public boolean processAlive() {
        return ProcessLiveness.alive(file.get(ValueLayout.JAVA_LONG, PID_OFFSET), file.get(ValueLayout.JAVA_LONG, START_TIME_MS_OFFSET));
    }

    /** The allocated counters, in id order, from every counter page the file had when it was attached. */
    public List<CounterSnapshot> counters() {
        return Counters.read(layout.counterPages(file));
    }

    /** The distinct errors, oldest cause first. */
    public List<ErrorEntry> errors() {
        return ErrorLog.read(file, layout.section(RasSection.ERROR_LOG));
    }

    /** Error observations dropped because the log was full. */
    public long droppedErrors() {
        return ErrorLog.dropped(file, layout.section(RasSection.ERROR_LOG));
    }

    /** The trace level table. */
    public List<TraceLevelEntry> traceLevels() {
        return Trace.readLevels(file, layout.section(RasSection.TRACE_LEVELS));
    }

    /** The trace ring, oldest to newest. */
    public List<TraceRecord> traceRecords() {
        return TraceRing.read(file, layout.section(RasSection.TRACE_RING), traceLevels());
    }

    /** The live resources of the process (its resource owner table), oldest first. */
    public List<ResourceEntry> resources() {
        return Resources.read(file, layout.section(RasSection.RESOURCES));
    }

    /** Resource registrations dropped because the resource table was full. */
    public long droppedResources() {
        return Resources.dropped(file, layout.section(RasSection.RESOURCES));
    }

    /**
     * Asks the running owner for a dump: increments the file's dump request sequence. The owner's duty
     * (within {@link RasConfig#dutyIntervalMs()}) writes {@code <dir>/<pid>-<time>-requested.dump} and
     * then publishes {@link #dumpDone()} = the returned sequence; {@link #lastDump()} then names the file.
     *
     * @return the request's sequence: wait until {@link #dumpDone()} reaches it
     * @throws IllegalStateException when the owner is not running, has closed the file, or this reads a copy
     */
    public long requestDump() {
        requireLiveOwner("a dump request in its file would never be served", true);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
             Arena writable = Arena.ofConfined()) {
            MemorySegment header = channel.map(FileChannel.MapMode.READ_WRITE, 0, FILE_HEADER_LENGTH, writable);
            FILE_START_MARKER.check(header, 0, layout.structure());
            return (long) LONG.getAndAdd(header, (long) DUMP_REQUEST_OFFSET, 1L) + 1;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map the header of " + path + " for writing: " + e, e);
        }
    }

    /** The sequence of the last dump request the owner served (0: none yet). */
    public long dumpDone() {
        return (long) LONG.getAcquire(file, (long) DUMP_DONE_OFFSET);
    }

    /**
     * The dump the owner wrote for the last request it served ({@link #dumpDone()}), in the RAS file's
     * directory; empty when it served none, that dump failed (its cause is in the error log), or this
     * reads a copy.
     */
    public Optional<Path> lastDump() {
        if (copy) {
            return Optional.empty();
        }
        for (int attempt = 0; attempt < DUMP_NAME_ATTEMPTS; attempt++) {
            int version = (int) INT.getAcquire(file, (long) DUMP_NAME_VERSION_OFFSET);
            if ((version & 1) != 0) {
                Thread.onSpinWait();
                continue;
            }
            int length = Math.clamp(file.get(ValueLayout.JAVA_INT, DUMP_NAME_LENGTH_OFFSET), 0, MAX_DUMP_NAME_LENGTH);
            String stem = Text.ascii(file, DUMP_NAME_OFFSET, length);
            VarHandle.loadLoadFence();
            if ((int) INT.getOpaque(file, (long) DUMP_NAME_VERSION_OFFSET) == version) {
                long pid = file.get(ValueLayout.JAVA_LONG, PID_OFFSET);
                return stem.isEmpty() ? Optional.empty()
                        : Optional.of(path.toAbsolutePath().resolveSibling(pid + "-" + stem + DumpFileDescriptor.FILE_SUFFIX));
            }
        }
        throw new IllegalStateException("the last dump's name in " + path + " kept changing over " + DUMP_NAME_ATTEMPTS
                + " reads; try again");
    }

    private void requireLiveOwner(String otherwise, boolean open) {
        if (copy) {
            throw new IllegalStateException("this reads the RAS file copy in " + path + ", which belongs to no running process");
        }
        if (!processAlive()) {
            throw new IllegalStateException("process " + header().pid() + " of " + path + " is not running; " + otherwise);
        }
        if (open && header().ownerState() != OwnerState.OPEN) {
            throw new IllegalStateException("process " + header().pid() + " has closed " + path + "; " + otherwise);
        }
    }

    /** The mapped file (for copying it into a dump). */
    MemorySegment segment() {
        return file;
    }

    /**
     * Sets the trace level of {@code component} in the running owner process; its hot path uses the
     * new level after the owner's next duty (within {@link RasConfig#dutyIntervalMs()}, at most a second).
     *
     * @throws IllegalArgumentException when the level is not 0..9 or the component is not registered
     * @throws IllegalStateException    when the owner process is not running
     */
    public void setTraceLevel(String component, int level) {
        TraceLevel.check(level);
        TraceLevelEntry entry = traceLevels().stream().filter(e -> e.component().equals(component)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("process " + header().pid() + " has no trace component '"
                        + component + "'; it has " + traceLevels().stream().map(TraceLevelEntry::component).toList()));
        requireLiveOwner("a trace level set in its file would change nothing", false);
        Section table = layout.section(RasSection.TRACE_LEVELS);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
             Arena writable = Arena.ofConfined()) {
            MemorySegment levels = channel.map(FileChannel.MapMode.READ_WRITE, table.offset(), table.length(), writable);
            table.kind().start.check(levels, 0, table.structure());
            table.kind().end.check(levels, table.endMarkerOffset() - table.offset(), table.structure());
            INT.setVolatile(levels, table.entryOffset(entry.slot()) - table.offset() + TRACE_SLOT_LEVEL_OFFSET, level);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map the trace level table of " + path + " for writing: " + e, e);
        }
    }

    /** Checks every marker in the file, counter pages included. */
    public void verify() {
        layout.checkAll(file);
        layout.counterPages(file).forEach(CounterPage::check);
    }

    /** The file read: the RAS file, or the dump holding the copy. */
    public Path path() {
        return path;
    }

    /** Unmaps the file (the file itself is left alone); a reader of a copy leaves that to its {@link DumpReader}. */
    @Override
    public void close() {
        if (arena != null) {
            arena.close();
        }
    }
}

package dev.tandem.ras;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static dev.tandem.ras.RasFileDescriptor.COUNTER_PAGES_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.DUMP_DONE_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.DUMP_NAME_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.DUMP_NAME_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.DUMP_NAME_VERSION_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.DUMP_REQUEST_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.FILE_START_MARKER;
import static dev.tandem.ras.RasFileDescriptor.FILE_SUFFIX;
import static dev.tandem.ras.RasFileDescriptor.HEARTBEAT_MS_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.MAX_DUMP_NAME_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.OWNER_STATE_CLOSED;
import static dev.tandem.ras.RasFileDescriptor.OWNER_STATE_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.OWNER_STATE_OPEN;

/**
 * The owner's side of a process's RAS file {@code <dir>/<pid>.ras}: creates and maps it (replacing a
 * stale file of an earlier process with the same pid), and gives access to its {@link Counters},
 * {@link ErrorLog}, {@link Trace} and {@link Resources}. One per process. Unless
 * {@link RasConfig#dutyIntervalMs()} is 0, a daemon thread {@code tandem-ras-duty-<pid>} calls
 * {@link #heartbeat()} periodically, which also writes the dumps asked for from outside and the
 * periodic ones. Closing stops it, marks the file closed and unmaps it; the file stays for post-mortem
 * reading unless {@link RasConfig#deleteOnClose()}.
 */
public final class RasFile implements AutoCloseable {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final Set<Path> OPEN_FILES = ConcurrentHashMap.newKeySet();
    private static final System.Logger LOGGER = System.getLogger(RasFile.class.getName());
    private static final String PERIODIC = "periodic";

    private final RasConfig config;
    private final Path path;
    private final long pid;
    private final long startTimeMs;
    private final Arena arena;
    /** Open while the file is: counter pages grow the file through it, dumps copy the whole file through it. */
    private final FileChannel channel;
    private final MemorySegment file;
    private final RasLayout layout;
    private final Counters counters;
    private final ErrorLog errorLog;
    private final Trace trace;
    private final Resources resources;
    private final String command;
    private final List<SnapshotSource> snapshotSources;
    private final Object dumpLock = new Object();
    private long lastPeriodicDumpMs;
    private Thread duty;
    private volatile boolean closing;
    private volatile RuntimeException dutyFailure;
    private boolean closed;

    private RasFile(RasConfig config, Path path, long pid, long startTimeMs, Arena arena, FileChannel channel, MemorySegment file,
                    RasLayout layout, String command, List<SnapshotSource> snapshotSources) {
        this.config = config;
        this.path = path;
        this.pid = pid;
        this.startTimeMs = startTimeMs;
        this.arena = arena;
        this.channel = channel;
        this.file = file;
        this.layout = layout;
        this.counters = new Counters(layout.firstCounterPage(file), config.counterLimit(), this::appendCounterPage);
        this.errorLog = new ErrorLog(file, layout);
        this.trace = new Trace(file, layout, config.defaultTraceLevel());
        this.resources = new Resources(file, layout, pid);
        this.command = command;
        this.snapshotSources = snapshotSources;
        this.lastPeriodicDumpMs = startTimeMs;
    }

    /**
     * Creates and maps this process's RAS file in {@code config.dir()} (created if missing).
     *
     * @throws IllegalStateException when this process already has the file open
     * @throws UncheckedIOException  when the file cannot be created or mapped
     */
    public static RasFile create(RasConfig config) {
        return create(config, List.of());
    }

    /** As {@link #create(RasConfig)}; dumps of this file hold the state trees of {@code snapshotSources} (a live list). */
    static RasFile create(RasConfig config, List<SnapshotSource> snapshotSources) {
        long pid = ProcessHandle.current().pid();
        Path path = config.dir().toAbsolutePath().resolve(pid + FILE_SUFFIX);
        if (!OPEN_FILES.add(path)) {
            throw new IllegalStateException("RAS file " + path + " is already open in this process; share one RasFile per process");
        }
        Arena arena = Arena.ofShared();
        FileChannel channel = null;
        try {
            Files.createDirectories(path.getParent());
            RasLayout layout = RasLayout.plan(config, path.toString());
            // A stale file of an earlier process with this pid is unlinked, not truncated: a tool that
            // still maps it keeps reading the old file instead of faulting on vanished pages.
            Files.deleteIfExists(path);
            channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
            channel.write(ByteBuffer.allocate(1), layout.fileLength() - 1);
            MemorySegment file = channel.map(FileChannel.MapMode.READ_WRITE, 0, layout.fileLength(), arena);
            long now = System.currentTimeMillis();
            String command = command();
            layout.format(file, pid, now, command);
            TraceRing.format(file, layout.section(RasSection.TRACE_RING));
            LONG.setRelease(file, (long) HEARTBEAT_MS_OFFSET, now);
            INT.setRelease(file, (long) OWNER_STATE_OFFSET, OWNER_STATE_OPEN);
            FILE_START_MARKER.publish(file, 0);
            RasFile ras = new RasFile(config, path, pid, now, arena, channel, file, layout, command, snapshotSources);
            ras.startDuty();
            return ras;
        } catch (IOException | RuntimeException e) {
            arena.close();
            closeQuietly(channel);
            OPEN_FILES.remove(path);
            if (e instanceof IOException io) {
                throw new UncheckedIOException("cannot create RAS file " + path + ": " + io, io);
            }
            throw (RuntimeException) e;
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                LOGGER.log(System.Logger.Level.WARNING, "cannot close a RAS file channel: " + e, e);
            }
        }
    }

    /**
     * Appends counter page {@code number} (1, 2, ...): grows the file (sparse: the disk holds what is
     * written), maps and formats the page, then publishes the page count to readers. Called by
     * {@link Counters} under its lock when every counter is allocated.
     *
     * @throws UncheckedIOException when the file cannot grow or the page cannot be mapped
     */
    private CounterPage appendCounterPage(int number) {
        long offset = layout.counterPageOffset(number);
        long length = CounterPage.length(layout.counterPageCapacity());
        try {
            channel.write(ByteBuffer.allocate(1), offset + length - 1);
            CounterPage page = CounterPage.plan(number, channel.map(FileChannel.MapMode.READ_WRITE, offset, length, arena),
                    layout.counterPageCapacity(), path.toString());
            page.format();
            INT.setRelease(file, (long) COUNTER_PAGES_OFFSET, number);
            return page;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append counter page " + number + " (" + length + " bytes at " + offset
                    + ") to RAS file " + path + ": " + e, e);
        }
    }

    private static String command() {
        String command = System.getProperty("sun.java.command");
        return command != null ? command : ProcessHandle.current().info().command().orElse("unknown");
    }

    private void startDuty() {
        if (config.dutyIntervalMs() > 0) {
            duty = Thread.ofPlatform().daemon().name("tandem-ras-duty-" + pid).start(this::runDuty);
        }
    }

    private void runDuty() {
        long interval = TimeUnit.MILLISECONDS.toNanos(config.dutyIntervalMs());
        while (!closing) {
            try {
                heartbeat();
                if (dutyFailure instanceof CorruptStructureException) {
                    LOGGER.log(System.Logger.Level.WARNING, "RAS file " + path + ": markers intact again; duty resumed");
                    dutyFailure = null;
                }
            } catch (CorruptStructureException e) {
                // never write into a corrupt file, but keep checking: the owner's components see the
                // failure (adapters go fatal), and the duty resumes once the markers are intact again
                if (!closing && dutyFailure == null) {
                    LOGGER.log(System.Logger.Level.ERROR, "RAS duty of " + path + " paused: " + e.getMessage(), e);
                    recordDutyFailure("RAS duty paused: corrupt structure", e);
                    dutyFailure = e;
                }
            } catch (RuntimeException e) {
                if (!closing) {
                    LOGGER.log(System.Logger.Level.ERROR, "RAS duty of " + path + " stopped: " + e.getMessage(), e);
                    recordDutyFailure("RAS duty stopped", e);
                    dutyFailure = e;
                }
                return;
            }
            LockSupport.parkNanos(this, interval);
        }
    }

    private void recordDutyFailure(String cause, RuntimeException e) {
        try {
            errorLog.record(cause, e);
        } catch (RuntimeException logFailure) {
            LOGGER.log(System.Logger.Level.ERROR, "cannot record the duty failure in the error log", logFailure);
        }
    }

    /**
     * One duty: checks the file's start and end markers, picks up trace levels set from outside
     * ({@link Trace#refresh()}), writes the dump asked for from outside ({@link RasReader#requestDump()})
     * and the periodic dump when one is due ({@link RasConfig#dumpIntervalMs()}), and stores the current
     * time as the heartbeat. The duty thread calls it; call it yourself (e.g. once a second) when
     * {@link RasConfig#dutyIntervalMs()} is 0. A dump that cannot be written is recorded in the error log.
     *
     * @throws CorruptStructureException when a file or trace level table marker was overwritten
     */
    public void heartbeat() {
        layout.checkFile(file);
        trace.refresh();
        serveDumpRequest();
        periodicDump();
        LONG.setRelease(file, (long) HEARTBEAT_MS_OFFSET, System.currentTimeMillis());
    }

    private void serveDumpRequest() {
        if ((long) LONG.getAcquire(file, (long) DUMP_REQUEST_OFFSET) <= (long) LONG.getAcquire(file, (long) DUMP_DONE_OFFSET)) {
            return;
        }
        synchronized (dumpLock) {
            long requested = (long) LONG.getAcquire(file, (long) DUMP_REQUEST_OFFSET);
            if (requested <= (long) LONG.getAcquire(file, (long) DUMP_DONE_OFFSET)) {
                return;
            }
            Path written = tryDump("requested");
            String name = "";
            if (written != null) {
                String fileName = written.getFileName().toString();
                name = fileName.substring(Long.toString(pid).length() + 1, fileName.length() - DumpFileDescriptor.FILE_SUFFIX.length());
            }
            int version = (int) INT.getVolatile(file, (long) DUMP_NAME_VERSION_OFFSET) | 1;
            INT.setVolatile(file, (long) DUMP_NAME_VERSION_OFFSET, version);
            int n = Text.putAscii(file, DUMP_NAME_OFFSET, name, MAX_DUMP_NAME_LENGTH);
            file.set(ValueLayout.JAVA_INT, DUMP_NAME_LENGTH_OFFSET, name.length() <= MAX_DUMP_NAME_LENGTH ? n : 0);
            INT.setRelease(file, (long) DUMP_NAME_VERSION_OFFSET, version + 1);
            LONG.setRelease(file, (long) DUMP_DONE_OFFSET, requested);
        }
    }

    private void periodicDump() {
        if (config.dumpIntervalMs() == 0) {
            return;
        }
        synchronized (dumpLock) {
            long now = System.currentTimeMillis();
            if (now - lastPeriodicDumpMs < config.dumpIntervalMs()) {
                return;
            }
            lastPeriodicDumpMs = now;
            if (tryDump(PERIODIC) != null) {
                try {
                    DumpFiles.prune(config.dir(), pid, PERIODIC, config.dumpsKept());
                } catch (UncheckedIOException e) {
                    recordDumpFailure("RAS periodic dump pruning failed", e);
                }
            }
        }
    }

    /** A dump, or null when it could not be written (recorded in the error log). */
    private Path tryDump(String reason) {
        try {
            return dump(reason);
        } catch (UncheckedIOException e) {
            recordDumpFailure("RAS dump failed", e);
            return null;
        }
    }

    private void recordDumpFailure(String cause, UncheckedIOException e) {
        LOGGER.log(System.Logger.Level.WARNING, cause + " for " + path + ": " + e.getMessage(), e);
        errorLog.record(cause, e);
    }

    /**
     * Writes one dump file into the RAS directory: a header (pid, time, {@code reason}, command), the
     * state tree of every snapshot source (a source that throws is recorded in its place) and a copy of
     * this whole file. Dumps are written one at a time.
     *
     * @return the dump file, {@code <dir>/<pid>-<yyyyMMdd-HHmmss-SSS>-<reason slug>.dump} (UTC)
     * @throws UncheckedIOException when it cannot be written
     */
    Path dump(String reason) {
        DumpFiles.checkReason(reason);
        synchronized (dumpLock) {
            SnapshotWriter tree = new SnapshotWriter();
            for (SnapshotSource source : snapshotSources) {
                int depth = tree.depth();
                Throwable failure = null;
                try {
                    source.snapshot(tree);
                } catch (VirtualMachineError e) {
                    throw e;
                } catch (RuntimeException | Error e) {
                    failure = e;
                }
                tree.finishSource(depth, source, failure);
            }
            DumpHeader header = new DumpHeader(DumpFileDescriptor.FORMAT_VERSION, pid, pid, System.currentTimeMillis(), reason,
                    command);
            // the whole file, counter pages included: a page appended meanwhile is either in the copy or not yet counted
            try (Arena copy = Arena.ofConfined()) {
                MemorySegment whole = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), copy);
                return DumpFiles.write(config.dir().toAbsolutePath(), header, tree.encode(), whole);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot map RAS file " + path + " to copy it into a dump: " + e, e);
            }
        }
    }

    /** Why the duty thread stopped early (a corrupt marker, say), if it did. */
    public Optional<RuntimeException> dutyFailure() {
        return Optional.ofNullable(dutyFailure);
    }

    /** Checks every marker in the file, counter pages included; throws {@link CorruptStructureException} naming the first bad one. */
    public void verify() {
        layout.checkAll(file);
        counters.verify();
    }

    public Counters counters() {
        return counters;
    }

    public ErrorLog errorLog() {
        return errorLog;
    }

    public Trace trace() {
        return trace;
    }

    /** The resource owner table. */
    public Resources resources() {
        return resources;
    }

    /** The file, absolute. */
    public Path path() {
        return path;
    }

    public long pid() {
        return pid;
    }

    /** When the file was created, epoch ms. */
    public long startTimeMs() {
        return startTimeMs;
    }

    public RasConfig config() {
        return config;
    }

    /**
     * Stops the duty thread, marks the file closed and unmaps it; counters and trace components of this
     * file must not be used afterwards (they throw {@link IllegalStateException}). Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closing = true;
        stopDuty();
        try {
            LONG.setRelease(file, (long) HEARTBEAT_MS_OFFSET, System.currentTimeMillis());
            INT.setRelease(file, (long) OWNER_STATE_OFFSET, OWNER_STATE_CLOSED);
        } finally {
            arena.close();
            closeQuietly(channel);
            OPEN_FILES.remove(path);
        }
        if (config.deleteOnClose()) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete RAS file " + path + " on close: " + e, e);
            }
        }
    }

    private void stopDuty() {
        if (duty == null) {
            return;
        }
        LockSupport.unpark(duty);
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (duty.isAlive() && System.nanoTime() - deadline < 0) {
            try {
                duty.join(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()) + 1);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (duty.isAlive()) {
            LOGGER.log(System.Logger.Level.WARNING, duty.getName() + " did not stop within 5 s; unmapping " + path + " anyway");
        }
    }

    @Override
    public String toString() {
        return "RasFile[" + path + "]";
    }
}

package dev.tandem.ras;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The process's one RAS file, shared by every component that reports into it (all adapters of a
 * process write their counters, errors, traces and resources to the same file, as issue 3 asks).
 * Reference counted: created by the first {@link #acquire()}, closed (and left on disk for post-mortem
 * reading) by the last {@link #release()}. Also the process's list of {@link SnapshotSource}s, whose
 * state trees every {@link #dump} holds, including the dumps asked for from outside.
 */
public final class ProcessRas {
    private static final List<SnapshotSource> SOURCES = new CopyOnWriteArrayList<>();
    private static RasConfig config = RasConfig.defaults();
    private static RasFile file;
    private static int users;

    private ProcessRas() {
    }

    /**
     * Sets the configuration the next file is created with; only while no file is open.
     *
     * @throws IllegalStateException when the process's file is already open
     */
    public static synchronized void configure(RasConfig newConfig) {
        if (newConfig == null) {
            throw new IllegalArgumentException("ProcessRas.configure: config is null");
        }
        if (file != null) {
            throw new IllegalStateException("the RAS file " + file.path() + " is already open with " + users
                    + " users; configure before the first adapter opens");
        }
        config = newConfig;
    }

    /** The process's RAS file, created on first use; pair every call with {@link #release()}. */
    public static synchronized RasFile acquire() {
        if (file == null) {
            file = RasFile.create(config, SOURCES);
        }
        users++;
        return file;
    }

    /** Gives one use back; the last one closes the file (which stays on disk). */
    public static synchronized void release() {
        if (users == 0) {
            throw new IllegalStateException("ProcessRas.release without a matching acquire");
        }
        if (--users == 0) {
            file.close();
            file = null;
        }
    }

    /** The open file, or null when no component uses one right now. */
    public static synchronized RasFile current() {
        return file;
    }

    /**
     * Adds a component's state to every dump from now on (whether or not a file is open yet).
     *
     * @throws IllegalArgumentException when {@code source} is null or already added
     */
    public static void addSnapshotSource(SnapshotSource source) {
        if (source == null) {
            throw new IllegalArgumentException("snapshot source is null");
        }
        synchronized (SOURCES) {
            if (SOURCES.contains(source)) {
                throw new IllegalArgumentException("snapshot source " + source + " is already added; add it once, remove it on close");
            }
            SOURCES.add(source);
        }
    }

    /** Removes a source added by {@link #addSnapshotSource}; does nothing if it is not there. */
    public static void removeSnapshotSource(SnapshotSource source) {
        SOURCES.remove(source);
    }

    /**
     * Writes one dump file into the RAS directory, synchronously: a header (pid, time, {@code reason},
     * command), the state tree of every snapshot source (one that throws is recorded in its place, and
     * the dump goes on) and a copy of the whole RAS file (counters, error log, trace ring, resources).
     * The file stays open until the dump is written, even if its last user releases it meanwhile.
     *
     * @param reason why, e.g. {@code "adapter fatal"}; its slug ends the file name
     * @return the dump, {@code <dir>/<pid>-<yyyyMMdd-HHmmss-SSS>-<reason slug>.dump} (time in UTC)
     * @throws IllegalArgumentException     when {@code reason} is null or blank
     * @throws IllegalStateException        when no RAS file is open (no component acquired it)
     * @throws java.io.UncheckedIOException when the dump cannot be written
     */
    public static Path dump(String reason) {
        DumpFiles.checkReason(reason);
        RasFile open;
        synchronized (ProcessRas.class) {
            if (file == null) {
                throw new IllegalStateException("no RAS file is open in this process (no adapter uses one), so there is"
                        + " nothing to dump; dump while a component holds ProcessRas.acquire()");
            }
            open = file;
            users++;
        }
        try {
            return open.dump(reason);
        } finally {
            release();
        }
    }
}

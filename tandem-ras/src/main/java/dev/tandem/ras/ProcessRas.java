package dev.tandem.ras;

/**
 * The process's one RAS file, shared by every component that reports into it (all adapters of a
 * process write their counters, errors and traces to the same file, as issue 3 asks). Reference
 * counted: created by the first {@link #acquire()}, closed (and left on disk for post-mortem
 * reading) by the last {@link #release()}.
 */
public final class ProcessRas {
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
            file = RasFile.create(config);
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
}

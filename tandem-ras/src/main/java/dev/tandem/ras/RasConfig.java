package dev.tandem.ras;

import java.nio.file.Path;

/**
 * Settings of one process's RAS file. Validated here so a bad value fails at start-up with a message,
 * never later on the data path.
 *
 * @param dir                     directory of the {@code <pid>.ras} files (readers list it)
 * @param counterCapacity         counters the file holds at first and each counter page adds, 1..1,048,576
 *                                ({@value RasFileDescriptor#COUNTER_METADATA_LENGTH} +
 *                                {@value RasFileDescriptor#COUNTER_VALUE_LENGTH} bytes each)
 * @param errorLogBytes           bytes for distinct error records, 4 KiB..256 MiB (rounded up to 128)
 * @param traceRingBytes          bytes for trace records, a power of two, 4 KiB..1 GiB
 *                                ({@value RasFileDescriptor#TRACE_RECORD_LENGTH} bytes per record)
 * @param traceComponentCapacity  trace components (level table slots), 1..4096
 * @param defaultTraceLevel       level a newly registered component starts at, 0..9 (1 = errors)
 * @param deleteOnClose           delete the file on a clean close; off keeps it for post-mortem reading
 * @param dutyIntervalMs          how often the RAS duty thread beats the heartbeat, checks the file
 *                                markers and picks up trace levels set from outside, 1..1000 ms; 0 runs
 *                                no thread (the owner then calls {@link RasFile#heartbeat()} itself)
 * @param resourceCapacity        live verbs resources the resource table holds, 1..1,048,576
 *                                ({@value RasFileDescriptor#RESOURCE_ENTRY_LENGTH} bytes each); more are
 *                                counted as dropped
 * @param dumpIntervalMs          how often the duty writes a "periodic" dump, 0 (off) or 1..604,800,000
 *                                (a week)
 * @param dumpsKept               periodic dumps of this pid kept in {@code dir}, 1..1000; older ones are deleted
 * @param counterLimit            counters the file may grow to hold, counterCapacity..1,073,741,824: when every
 *                                counter is allocated a page of counterCapacity more is appended, until this
 *                                many. Pages are kept until the file is closed; the limit bounds the file (against
 *                                a leak of counters), it costs nothing while unused. counterCapacity keeps a file
 *                                of fixed size
 */
public record RasConfig(Path dir, int counterCapacity, int errorLogBytes, int traceRingBytes,
                        int traceComponentCapacity, int defaultTraceLevel, boolean deleteOnClose, int dutyIntervalMs,
                        int resourceCapacity, int dumpIntervalMs, int dumpsKept, int counterLimit) {

    /** Default {@link #counterLimit()}. */
    public static final int DEFAULT_COUNTER_LIMIT = 1 << 22;
    /** Largest {@link #counterLimit()}. */
    public static final int MAX_COUNTER_LIMIT = 1 << 30;

    /** Longest {@link #dumpIntervalMs()}: a week. */
    public static final int MAX_DUMP_INTERVAL_MS = 7 * 24 * 3600 * 1000;

    /** The default directory: {@code ${java.io.tmpdir}/tandem}. */
    public static Path defaultDir() {
        return Path.of(System.getProperty("java.io.tmpdir"), "tandem");
    }

    public RasConfig {
        if (dir == null) {
            throw new IllegalArgumentException("RasConfig dir is null; give a directory (default " + defaultDir() + ")");
        }
        if (counterCapacity < 1 || counterCapacity > 1 << 20) {
            throw new IllegalArgumentException("counterCapacity " + counterCapacity + " must be 1..1048576");
        }
        if (errorLogBytes < 4096 || errorLogBytes > 256 << 20) {
            throw new IllegalArgumentException("errorLogBytes " + errorLogBytes + " must be 4096..268435456");
        }
        if (traceRingBytes < 4096 || traceRingBytes > 1 << 30 || Integer.bitCount(traceRingBytes) != 1) {
            throw new IllegalArgumentException("traceRingBytes " + traceRingBytes
                    + " must be a power of two in 4096..1073741824");
        }
        if (traceComponentCapacity < 1 || traceComponentCapacity > 4096) {
            throw new IllegalArgumentException("traceComponentCapacity " + traceComponentCapacity + " must be 1..4096");
        }
        TraceLevel.check(defaultTraceLevel);
        if (dutyIntervalMs < 0 || dutyIntervalMs > 1000) {
            throw new IllegalArgumentException("dutyIntervalMs " + dutyIntervalMs + " must be 0 (no duty thread) or 1..1000,"
                    + " so a trace level set from outside takes effect within a second");
        }
        if (resourceCapacity < 1 || resourceCapacity > 1 << 20) {
            throw new IllegalArgumentException("resourceCapacity " + resourceCapacity + " must be 1..1048576");
        }
        if (dumpIntervalMs < 0 || dumpIntervalMs > MAX_DUMP_INTERVAL_MS) {
            throw new IllegalArgumentException("dumpIntervalMs " + dumpIntervalMs + " must be 0 (no periodic dumps) or 1.."
                    + MAX_DUMP_INTERVAL_MS + " (a week)");
        }
        if (dumpsKept < 1 || dumpsKept > 1000) {
            throw new IllegalArgumentException("dumpsKept " + dumpsKept + " must be 1..1000");
        }
        if (counterLimit < counterCapacity || counterLimit > MAX_COUNTER_LIMIT) {
            throw new IllegalArgumentException("counterLimit " + counterLimit + " must be counterCapacity (" + counterCapacity
                    + ", a file of fixed size).." + MAX_COUNTER_LIMIT);
        }
    }

    /**
     * Defaults: {@link #defaultDir()}, 4096 counters (1.1 MiB) growing by pages of 4096 up to
     * {@value #DEFAULT_COUNTER_LIMIT} (1.1 GiB of file if all were used: every resource an iWARP adapter
     * advertises, counted, for 15 adapters), 256 KiB error log, 1 MiB trace ring (8192 records), 64 trace components at level 1
     * (errors), file kept on close, a duty every 100 ms, 4096 resources, no periodic dumps (3 kept when
     * turned on).
     */
    public static RasConfig defaults() {
        return new RasConfig(defaultDir(), 4096, 256 << 10, 1 << 20, 64, TraceLevel.ERROR, false, 100, 4096, 0, 3, DEFAULT_COUNTER_LIMIT);
    }

    public RasConfig withDir(Path newDir) {
        return new RasConfig(newDir, counterCapacity, errorLogBytes, traceRingBytes, traceComponentCapacity,
                defaultTraceLevel, deleteOnClose, dutyIntervalMs, resourceCapacity, dumpIntervalMs, dumpsKept, counterLimit);
    }

    public RasConfig withCounterCapacity(int capacity) {
        return new RasConfig(dir, capacity, errorLogBytes, traceRingBytes, traceComponentCapacity,
                defaultTraceLevel, deleteOnClose, dutyIntervalMs, resourceCapacity, dumpIntervalMs, dumpsKept, counterLimit);
    }

    public RasConfig withErrorLogBytes(int bytes) {
        return new RasConfig(dir, counterCapacity, bytes, traceRingBytes, traceComponentCapacity,
                defaultTraceLevel, deleteOnClose, dutyIntervalMs, resourceCapacity, dumpIntervalMs, dumpsKept, counterLimit);
    }

    public RasConfig withTraceRingBytes(int bytes) {
        return new RasConfig(dir, counterCapacity, errorLogBytes, bytes, traceComponentCapacity,
                defaultTraceLevel, deleteOnClose, dutyIntervalMs, resourceCapacity, dumpIntervalMs, dumpsKept, counterLimit);
    }

    public RasConfig withTraceComponentCapacity(int capacity) {
        return new RasConfig(dir, counterCapacity, errorLogBytes, traceRingBytes, capacity,
                defaultTraceLevel, deleteOnClose, dutyIntervalMs, resourceCapacity, dumpIntervalMs, dumpsKept, counterLimit);
    }

    public RasConfig withDefaultTraceLevel(int level) {
        return new RasConfig(dir, counterCapacity, errorLogBytes, traceRingBytes, traceComponentCapacity,
                level, deleteOnClose, dutyIntervalMs, resourceCapacity, dumpIntervalMs, dumpsKept, counterLimit);
    }

    public RasConfig withDeleteOnClose(boolean delete) {
        return new RasConfig(dir, counterCapacity, errorLogBytes, traceRingBytes, traceComponentCapacity,
                defaultTraceLevel, delete, dutyIntervalMs, resourceCapacity, dumpIntervalMs, dumpsKept, counterLimit);
    }

    public RasConfig withDutyIntervalMs(int intervalMs) {
        return new RasConfig(dir, counterCapacity, errorLogBytes, traceRingBytes, traceComponentCapacity,
                defaultTraceLevel, deleteOnClose, intervalMs, resourceCapacity, dumpIntervalMs, dumpsKept, counterLimit);
    }

    public RasConfig withResourceCapacity(int capacity) {
        return new RasConfig(dir, counterCapacity, errorLogBytes, traceRingBytes, traceComponentCapacity,
                defaultTraceLevel, deleteOnClose, dutyIntervalMs, capacity, dumpIntervalMs, dumpsKept, counterLimit);
    }

    public RasConfig withDumpIntervalMs(int intervalMs) {
        return new RasConfig(dir, counterCapacity, errorLogBytes, traceRingBytes, traceComponentCapacity,
                defaultTraceLevel, deleteOnClose, dutyIntervalMs, resourceCapacity, intervalMs, dumpsKept, counterLimit);
    }

    public RasConfig withDumpsKept(int kept) {
        return new RasConfig(dir, counterCapacity, errorLogBytes, traceRingBytes, traceComponentCapacity,
                defaultTraceLevel, deleteOnClose, dutyIntervalMs, resourceCapacity, dumpIntervalMs, kept, counterLimit);
    }

    public RasConfig withCounterLimit(int limit) {
        return new RasConfig(dir, counterCapacity, errorLogBytes, traceRingBytes, traceComponentCapacity,
                defaultTraceLevel, deleteOnClose, dutyIntervalMs, resourceCapacity, dumpIntervalMs, dumpsKept, limit);
    }
}

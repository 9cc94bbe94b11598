package dev.tandem.ras;

import java.time.Instant;
import java.util.Optional;

/** Whether the process that owns a RAS file still runs, guarding against a recycled pid. */
final class ProcessLiveness {
    /** Slack between the process's start and the file's creation (clock granularity). */
    private static final long START_SLACK_MS = 1_000;

    private ProcessLiveness() {
    }

    /**
     * True when {@code pid} runs and started no later than the file was created, i.e. it is the
     * file's owner and not a new process that was given the same pid.
     */
    static boolean alive(long pid, long fileStartTimeMs) {
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive()) {
            return false;
        }
        Optional<Instant> started = handle.get().info().startInstant();
        return started.isEmpty() || started.get().toEpochMilli() <= fileStartTimeMs + START_SLACK_MS;
    }
}

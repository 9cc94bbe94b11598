package dev.tandem.failover;

/**
 * What the fail-over layer did, step by step, for those who watch it ({@link FailoverDevice#watch()}):
 * the demo narrates these, tests and RAS count them. {@link #atNanos()} is {@link System#nanoTime()}
 * when it happened.
 */
public sealed interface FailoverEvent {
    long atNanos();

    /** A path's adapter stopped carrying work (fatal error, lost connection, silent link). */
    record PathDown(long atNanos, int adapter, String cause) implements FailoverEvent {
    }

    /** A connection stopped taking posts (they wait) to move off {@code fromAdapter}. */
    record Holding(long atNanos, int qpNumber, int fromAdapter, int toAdapter, String cause) implements FailoverEvent {
    }

    /** This side told the peer what it knows: its REPORT. */
    record Reported(long atNanos, int qpNumber, int lastReliablySent, int lastReliablyReceived) implements FailoverEvent {
    }

    /** The peer's REPORT arrived. */
    record PeerReported(long atNanos, int qpNumber, int lastReliablySent, int lastReliablyReceived) implements FailoverEvent {
    }

    /**
     * The connection's work moved to the new path: receive completions rebuilt from headers the failed
     * adapter never reported, receives re-posted, Sends and Writes re-posted that the peer had not got.
     */
    record Moved(long atNanos, int qpNumber, int rebuilt, int receivesReposted, int sendsReposted, int writesReposted)
            implements FailoverEvent {
    }

    /** Both sides are MIGRATED: the application's posts run again; {@code pauseNanos} since the path went down. */
    record Migrated(long atNanos, int qpNumber, int toAdapter, long pauseNanos) implements FailoverEvent {
    }

    /** An adapter carries work again (reset after a fatal error, link up): it is a backup again. */
    record PathUp(long atNanos, int adapter) implements FailoverEvent {
    }

    /**
     * A backup path of a connection failed (the connection did not use it, so nothing moved); the healer
     * sets it up again once its adapter works.
     */
    record BackupLost(long atNanos, int qpNumber, int adapter, String cause) implements FailoverEvent {
    }

    /** A path of a connection that had failed is set up again: a backup once more. */
    record PathRestored(long atNanos, int qpNumber, int adapter) implements FailoverEvent {
    }

    /** No path is left for a connection: it fails as on a plain adapter (QP in ERROR, work flushed). */
    record NoPathLeft(long atNanos, int qpNumber, String cause) implements FailoverEvent {
    }
}

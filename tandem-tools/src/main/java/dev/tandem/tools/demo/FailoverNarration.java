package dev.tandem.tools.demo;

import dev.tandem.failover.FailoverEvent;

/**
 * Every step of a fail-over in words, as the demo narrates it: one place, so the in-process demo and a
 * node process of the lab demo (which reports its events on stdout) tell them alike.
 */
public final class FailoverNarration {
    private FailoverNarration() {
    }

    /** {@code e} in words, without the node's name or the time. */
    public static String text(FailoverEvent e) {
        return switch (e) {
            case FailoverEvent.PathDown d -> "detected: adapter " + d.adapter() + " is down (" + d.cause() + ")";
            case FailoverEvent.Holding h -> "holding the application's posts; moving QP " + h.qpNumber() + " off adapter "
                    + h.fromAdapter() + (h.toAdapter() >= 0 ? " to adapter " + h.toAdapter() : "") + " (" + h.cause() + ")";
            case FailoverEvent.Reported r -> "REPORT sent: LAST RELIABLY SENT " + r.lastReliablySent() + ", LAST RELIABLY RECEIVED "
                    + r.lastReliablyReceived();
            case FailoverEvent.PeerReported r -> "REPORT of the peer: LAST RELIABLY SENT " + r.lastReliablySent()
                    + ", LAST RELIABLY RECEIVED " + r.lastReliablyReceived();
            case FailoverEvent.Moved m -> "moved: " + m.rebuilt() + " receive completions rebuilt, " + m.receivesReposted()
                    + " receives, " + m.sendsReposted() + " Sends and " + m.writesReposted() + " Writes re-posted";
            case FailoverEvent.Migrated m -> String.format(java.util.Locale.ROOT,
                    "MIGRATED to adapter %d: the application runs again after a pause of %.1f ms", m.toAdapter(), m.pauseNanos() / 1e6);
            case FailoverEvent.PathUp u -> "adapter " + u.adapter() + " works again";
            case FailoverEvent.BackupLost l -> "backup path on adapter " + l.adapter() + " lost (" + l.cause() + ")";
            case FailoverEvent.PathRestored r -> "path on adapter " + r.adapter() + " set up again: a backup once more";
            case FailoverEvent.NoPathLeft n -> "no path left: " + n.cause();
        };
    }

    /**
     * The adapter {@code e} is about: where a connection moved to (MIGRATED, holding), or the adapter that
     * went down, came up, or got its path back; -1 for REPORTs and the loss of every path.
     */
    public static int adapter(FailoverEvent e) {
        return switch (e) {
            case FailoverEvent.PathDown d -> d.adapter();
            case FailoverEvent.Holding h -> h.toAdapter();
            case FailoverEvent.Migrated m -> m.toAdapter();
            case FailoverEvent.PathUp u -> u.adapter();
            case FailoverEvent.BackupLost l -> l.adapter();
            case FailoverEvent.PathRestored r -> r.adapter();
            case FailoverEvent.Reported _ -> -1;
            case FailoverEvent.PeerReported _ -> -1;
            case FailoverEvent.Moved _ -> -1;
            case FailoverEvent.NoPathLeft _ -> -1;
        };
    }
}

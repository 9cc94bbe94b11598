package dev.tandem.failover.chaos;

import dev.tandem.failover.FailoverDevice;
import dev.tandem.failover.FailoverEvent;
import dev.tandem.failover.FailoverWatch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The fail-over events both nodes told ({@link FailoverDevice#watch()}), in words with the time since
 * the traffic started, for the report; and the one way the harness waits for a condition of the
 * device: until the condition holds, waking on each event (or every {@value #TICK_MS} ms), within a bound.
 */
final class EventLog {
    private static final int TICK_MS = 10;
    private final FailoverWatch[] watches;
    private final TrafficClock clock;
    private final List<String> lines = new ArrayList<>();
    private int migrated;
    private long maxPauseNanos;
    private int noPathLeft;

    EventLog(FailoverDevice a, FailoverDevice b, Resources res, TrafficClock clock) {
        this.watches = new FailoverWatch[] {res.keep(Resources.Group.WATCH, a.watch()), res.keep(Resources.Group.WATCH, b.watch())};
        this.clock = clock;
    }

    /** Takes every event told so far, waiting up to {@code wait} on node a's for the first. */
    synchronized void pump(Duration wait) {
        for (int n = 0; n < 2; n++) {
            FailoverEvent e = watches[n].poll(n == 0 ? wait : Duration.ZERO);
            while (e != null) {
                record(n + 1, e);
                e = watches[n].poll(Duration.ZERO);
            }
        }
    }

    /** Waits until {@code condition} holds, at most {@code bound}; false when it did not. */
    boolean await(BooleanSupplier condition, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            pump(Duration.ofMillis(TICK_MS));
        }
        return true;
    }

    private void record(int node, FailoverEvent e) {
        long ms = (e.atNanos() - clock.startNanos()) / 1_000_000;
        String what = switch (e) {
            case FailoverEvent.PathDown d -> "PathDown adapter " + d.adapter() + ": " + d.cause();
            case FailoverEvent.Holding h -> "Holding qp " + h.qpNumber() + " " + h.fromAdapter() + "->" + h.toAdapter() + ": " + h.cause();
            case FailoverEvent.Reported r -> "Reported qp " + r.qpNumber() + " sent " + r.lastReliablySent() + " received "
                    + r.lastReliablyReceived();
            case FailoverEvent.PeerReported r -> "PeerReported qp " + r.qpNumber() + " sent " + r.lastReliablySent() + " received "
                    + r.lastReliablyReceived();
            case FailoverEvent.Moved m -> "Moved qp " + m.qpNumber() + " rebuilt " + m.rebuilt() + " receives " + m.receivesReposted()
                    + " sends " + m.sendsReposted() + " writes " + m.writesReposted();
            case FailoverEvent.Migrated m -> {
                migrated++;
                maxPauseNanos = Math.max(maxPauseNanos, m.pauseNanos());
                yield "Migrated qp " + m.qpNumber() + " to " + m.toAdapter() + " pause " + m.pauseNanos() / 1_000_000 + "ms";
            }
            case FailoverEvent.PathUp u -> "PathUp adapter " + u.adapter();
            case FailoverEvent.BackupLost l -> "BackupLost qp " + l.qpNumber() + " adapter " + l.adapter() + ": " + l.cause();
            case FailoverEvent.PathRestored r -> "PathRestored qp " + r.qpNumber() + " adapter " + r.adapter();
            case FailoverEvent.NoPathLeft n -> {
                noPathLeft++;
                yield "NoPathLeft qp " + n.qpNumber() + ": " + n.cause();
            }
        };
        lines.add("+" + ms + "ms " + Nodes.name(node) + ": " + what);
    }

    /** Every event taken so far, in words. */
    synchronized List<String> lines() {
        return List.copyOf(lines);
    }

    synchronized int migrated() {
        return migrated;
    }

    synchronized long maxPauseMillis() {
        return maxPauseNanos / 1_000_000;
    }

    synchronized int noPathLeft() {
        return noPathLeft;
    }

    /** Events a watch had to drop (nobody took them in time). */
    long dropped() {
        return watches[0].dropped() + watches[1].dropped();
    }
}

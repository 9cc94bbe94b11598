package dev.tandem.iwarp;

import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bookkeeping of one listener's pending handshakes (TCP connected, MPA Request not complete):
 * their order of arrival, which is also the order of their deadlines (all have the same timeout),
 * how many each source address holds, and which to close when a {@link HandshakeLimits} bound is
 * reached. It does no I/O: the caller closes what it is told to close. Used by the listener's one
 * thread only.
 *
 * @param <T> the caller's handshake type (a key: equal handshakes are the same handshake)
 */
final class PendingHandshakes<T> {
    /** Why a pending handshake has to go. */
    enum Reason {
        /** Its MPA Request was not complete by its deadline. */
        TIMED_OUT,
        /** A newer connection came from a source already at {@link HandshakeLimits#maxPendingPerSource()}. */
        SOURCE_FULL,
        /** A newer connection came while the listener was at {@link HandshakeLimits#maxPending()}. */
        LISTENER_FULL
    }

    /** A handshake the caller must close, and why. */
    record Closed<T>(T handshake, InetAddress source, Reason reason) {
    }

    private record Entry<T>(T handshake, InetAddress source, long deadline) {
    }

    private final long timeoutNanos;
    private final int maxPending;
    private final int maxPerSource;
    private final LinkedHashMap<T, Entry<T>> byArrival = new LinkedHashMap<>();
    private final Map<InetAddress, ArrayDeque<Entry<T>>> bySource = new HashMap<>();

    PendingHandshakes(HandshakeLimits limits) {
        this.timeoutNanos = limits.timeout().toNanos();
        this.maxPending = limits.maxPending();
        this.maxPerSource = limits.maxPendingPerSource();
    }

    /**
     * Admits {@code handshake} from {@code source}, arrived at {@code now} (System.nanoTime, never
     * earlier than a previous call's). Returns what must be closed to make room for it: the oldest
     * handshake of {@code source} if that source is at its bound, else, if the listener is at its
     * bound, the oldest handshake of the source holding the most (of the longest-waiting one among equals).
     */
    List<Closed<T>> admit(T handshake, InetAddress source, long now) {
        if (byArrival.containsKey(handshake)) {
            throw new IllegalArgumentException(handshake + " is pending already");
        }
        List<Closed<T>> closed = new ArrayList<>(1);
        ArrayDeque<Entry<T>> own = bySource.get(source);
        if (own != null && own.size() >= maxPerSource) {
            closed.add(evict(own.peekFirst(), Reason.SOURCE_FULL));
        } else if (byArrival.size() >= maxPending) {
            closed.add(evict(heaviestSource().peekFirst(), Reason.LISTENER_FULL));
        }
        Entry<T> e = new Entry<>(handshake, source, now + timeoutNanos);
        byArrival.put(handshake, e);
        bySource.computeIfAbsent(source, s -> new ArrayDeque<>()).addLast(e);
        return closed;
    }

    private ArrayDeque<Entry<T>> heaviestSource() {
        ArrayDeque<Entry<T>> heaviest = null;
        for (ArrayDeque<Entry<T>> q : bySource.values()) {
            if (heaviest == null || q.size() > heaviest.size()
                    || q.size() == heaviest.size() && q.peekFirst().deadline() - heaviest.peekFirst().deadline() < 0) {
                heaviest = q;
            }
        }
        return heaviest;
    }

    private Closed<T> evict(Entry<T> e, Reason reason) {
        remove(e.handshake());
        return new Closed<>(e.handshake(), e.source(), reason);
    }

    /** Forgets a handshake that completed or failed; false when it was not pending. */
    boolean remove(T handshake) {
        Entry<T> e = byArrival.remove(handshake);
        if (e == null) {
            return false;
        }
        ArrayDeque<Entry<T>> q = bySource.get(e.source());
        q.remove(e);
        if (q.isEmpty()) {
            bySource.remove(e.source());
        }
        return true;
    }

    /** Removes and returns the handshakes whose deadline is at or before {@code now}, oldest first. */
    List<Closed<T>> expire(long now) {
        List<Closed<T>> expired = new ArrayList<>();
        Iterator<Entry<T>> it = byArrival.values().iterator();
        while (it.hasNext()) {
            Entry<T> e = it.next();
            if (e.deadline() - now > 0) {
                break;
            }
            it.remove();
            ArrayDeque<Entry<T>> q = bySource.get(e.source());
            q.remove(e);
            if (q.isEmpty()) {
                bySource.remove(e.source());
            }
            expired.add(new Closed<>(e.handshake(), e.source(), Reason.TIMED_OUT));
        }
        return expired;
    }

    /** Nanoseconds from {@code now} to the earliest deadline (0 if it passed), or -1 when nothing is pending. */
    long nanosToNextDeadline(long now) {
        if (byArrival.isEmpty()) {
            return -1;
        }
        return Math.max(0, byArrival.firstEntry().getValue().deadline() - now);
    }

    /** Pending handshakes of the listener. */
    int size() {
        return byArrival.size();
    }

    /** Pending handshakes from {@code source}. */
    int fromSource(InetAddress source) {
        ArrayDeque<Entry<T>> q = bySource.get(source);
        return q == null ? 0 : q.size();
    }

    /** Removes and returns every pending handshake (the listener closes). */
    List<T> clear() {
        List<T> all = new ArrayList<>(byArrival.keySet());
        byArrival.clear();
        bySource.clear();
        return all;
    }
}

package dev.tandem.verbs.conformance;

import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.RdmaDevice;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The async events of one adapter, as a test sees them: events polled while looking for one kind
 * are kept, so a later look for another kind still finds them.
 */
final class AsyncEventLog {
    private final RdmaDevice device;
    private final List<AsyncEvent> unclaimed = new ArrayList<>();
    private final List<AsyncEvent> seen = new ArrayList<>();

    AsyncEventLog(RdmaDevice device) {
        this.device = device;
    }

    /** The first unclaimed event of {@code type} about {@code resource} (null = any), waiting up to {@code within}; null if none. */
    AsyncEvent find(AsyncEventType type, Object resource, Duration within) {
        AsyncEvent e = claim(type, resource);
        if (e != null) {
            return e;
        }
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            // polls at least once, so a look with no wait still sees the events already queued
            long left = Math.max(0, deadline - System.nanoTime());
            AsyncEvent next = device.pollAsyncEvent(Duration.ofNanos(left));
            if (next == null) {
                return null;
            }
            seen.add(next);
            if (matches(next, type, resource)) {
                return next;
            }
            unclaimed.add(next);
        }
    }

    private AsyncEvent claim(AsyncEventType type, Object resource) {
        for (int i = 0; i < unclaimed.size(); i++) {
            if (matches(unclaimed.get(i), type, resource)) {
                return unclaimed.remove(i);
            }
        }
        return null;
    }

    private static boolean matches(AsyncEvent e, AsyncEventType type, Object resource) {
        return e.type() == type && (resource == null || e.resource() == resource);
    }

    /** Where {@code e} (an event this log returned) came in the order events were polled; -1 if never. */
    int order(AsyncEvent e) {
        for (int i = 0; i < seen.size(); i++) {
            if (seen.get(i) == e) {
                return i;
            }
        }
        return -1;
    }

    /** Every event polled so far, for failure messages. */
    String seen() {
        if (seen.isEmpty()) {
            return "no events at all";
        }
        StringBuilder sb = new StringBuilder();
        for (AsyncEvent e : seen) {
            sb.append(sb.isEmpty() ? "" : ", ").append(e.type()).append('(').append(e.resource()).append(": ").append(e.detail()).append(')');
        }
        return sb.toString();
    }
}

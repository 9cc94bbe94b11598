package dev.tandem.failover;

import java.util.EnumMap;
import java.util.Map;

/**
 * The named points in a connection's life where a test (or the demo) can make a fault happen, so
 * that the fault matrix hits each of them for sure instead of sleeping and hoping. {@link Points}
 * holds what is armed: each armed action runs once, on the thread that reaches the point.
 */
enum FaultPoint {
    /** An application's Send or Write is about to go to the adapter. */
    BEFORE_POST,
    /** A receive's data is placed but its completion not yet reported: the adapter dies with the completion. */
    AFTER_PLACEMENT,
    /** A proof (the injected RDMA Read) was just posted and is in flight. */
    DURING_PROOF,
    /** A heartbeat's probe (an RDMA Read of the peer's proof region) was just posted: any poller may take its answer now. */
    DURING_HEARTBEAT,
    /** A fail-over's REPORT was just written to the peer. */
    DURING_REPORT,
    /** A fail-over is re-posting work on the new path: the first request went. */
    DURING_REPOST;

    /** What is armed at each point of one device. */
    static final class Points {
        private final Map<FaultPoint, Runnable> armed = new EnumMap<>(FaultPoint.class);
        private volatile boolean any;

        /** Runs {@code action} once, the next time a thread reaches {@code point}. */
        synchronized void arm(FaultPoint point, Runnable action) {
            armed.put(point, action);
            any = true;
        }

        /** Reached {@code point}: runs what was armed there, if anything; true when something ran. */
        boolean reached(FaultPoint point) {
            if (!any) {
                return false;
            }
            Runnable r;
            synchronized (this) {
                r = armed.remove(point);
                any = !armed.isEmpty();
            }
            if (r == null) {
                return false;
            }
            r.run();
            return true;
        }
    }
}

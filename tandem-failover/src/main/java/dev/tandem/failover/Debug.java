package dev.tandem.failover;

/** Temporary: decision points printed when -Dtandem.failover.debug=true. */
final class Debug {
    static final boolean ON = Boolean.getBoolean("tandem.failover.debug");

    private Debug() {
    }

    static void log(FailoverQueuePair qp, String what) {
        if (ON) {
            System.err.println("[fo " + (System.nanoTime() / 1_000_000 % 100000) + " " + qp.device.nodeName() + "/qp" + qp.qpNumber + "] " + what);
        }
    }
}

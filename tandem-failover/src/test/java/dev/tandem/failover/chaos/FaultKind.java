package dev.tandem.failover.chaos;

/**
 * The kinds of fault a scenario injects, each reported apart. All but {@link #BOTH_ADAPTERS_OF_A_NODE}
 * leave each node at least one working adapter at every moment, so the promise holds in full: a pause,
 * never a lost, duplicated or reordered completion.
 */
enum FaultKind {
    /** A fatal error of one adapter, reset after 0 to 300 ms. */
    FATAL_RESET,
    /** One adapter's link down for longer than detection (200 to 600 ms), then up. */
    LINK_DOWN_UP,
    /** One adapter's link down for less than detection (20 to 120 ms), then up. */
    BLIP,
    /** The network resets every connection of one adapter. */
    CONNECTION_RESET,
    /** A fault of one adapter; once every connection has all its paths again, at once a fault of the node's other adapter. */
    SECOND_FAULT_WHEN_BACK,
    /** A fatal error of a's adapter 0 and b's adapter 1 together (switched: a1 and b0 still reach each other). */
    CROSS_DOUBLE,
    /** Both adapters of one node fail: the connections must end cleanly, not survive. */
    BOTH_ADAPTERS_OF_A_NODE,
    /** No fault: the control. */
    NONE;

    /** True when a path remains throughout, so nothing may fail, pause aside. */
    boolean survivable() {
        return this != BOTH_ADAPTERS_OF_A_NODE;
    }

    /** True when the kind means something without switches (a0 to b1 needs a switch). */
    boolean allowsSwitchless() {
        return this != CROSS_DOUBLE;
    }
}

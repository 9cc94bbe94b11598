package dev.tandem.verbs;

/** State of an adapter's port (its link). */
public enum PortState {
    /** The adapter can carry traffic. */
    ACTIVE,
    /** The link is down; connections over it fail. */
    DOWN,
    /** The adapter hit a fatal error and must be reset or closed. */
    FATAL
}

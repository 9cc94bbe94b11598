package dev.tandem.failover;

import dev.tandem.verbs.PortState;

import java.util.regex.Pattern;

/**
 * Why a connection failed over, as RAS counts it ({@code fail-overs <label>}). The state of the adapter
 * the connection moves off decides first: a connection often sees its QP fail before the monitor
 * handles the adapter's own event, yet the adapter is {@link PortState#FATAL} (or {@link PortState#DOWN})
 * already. Else the cause text the layer gives its {@link FailoverEvent}s tells, worded the same way each
 * time ({@code "adapter 0 failed: ..."}, {@code "adapter 0 lost its link: ..."}, {@code "silent link:
 * ..."}, {@code "the peer moved the connection ..."}). A path fails over only when its transport broke,
 * so any other cause (the QP's failure detail, a post refused by a broken path, the new path failing
 * during REPORT or MIGRATED) is a lost connection.
 */
enum FailoverCause {
    /** The adapter had a fatal error ({@code DEVICE_FATAL}). */
    ADAPTER_FATAL("adapter fatal"),
    /** The adapter lost its link ({@code PORT_ERROR}), or a heartbeat found the link silent. */
    LINK_DOWN("link down"),
    /** The connection broke under one path (reset, lost, a framing fault), its adapter still working. */
    CONNECTION_LOST("connection lost"),
    /** The peer moved the connection first (its REPORT came over another path): this side followed. */
    PEER_MOVED("peer moved");

    private static final Pattern FATAL = Pattern.compile("adapter \\d+ failed: .*", Pattern.DOTALL);
    private static final Pattern LINK = Pattern.compile("(adapter \\d+ lost its link|silent link)\\b.*", Pattern.DOTALL);

    private final String label;

    FailoverCause(String label) {
        this.label = label;
    }

    /** How counters and the error log name it, e.g. {@code "adapter fatal"}. */
    String label() {
        return label;
    }

    /**
     * The kind of a fail-over off an adapter in {@code state} (null when unknown) for {@code cause}, the
     * event's cause text (null counts as a lost connection).
     */
    static FailoverCause of(PortState state, String cause) {
        if (state == PortState.FATAL) {
            return ADAPTER_FATAL;
        }
        if (state == PortState.DOWN) {
            return LINK_DOWN;
        }
        return of(cause);
    }

    /** The kind of {@code cause}, a fail-over event's cause text; null counts as a lost connection. */
    static FailoverCause of(String cause) {
        if (cause == null) {
            return CONNECTION_LOST;
        }
        if (FATAL.matcher(cause).matches()) {
            return ADAPTER_FATAL;
        }
        if (LINK.matcher(cause).matches()) {
            return LINK_DOWN;
        }
        if (cause.startsWith("the peer moved")) {
            return PEER_MOVED;
        }
        return CONNECTION_LOST;
    }
}

package dev.tandem.verbs;

/**
 * An adapter's link as a capability for fault injection (tests, the fail-over demo): pull the cable,
 * plug it back in, or have the network reset every connection. A provider's device implements it where
 * it can; callers ask with {@code device instanceof LinkControl c}. It is not part of normal operation:
 * no verb depends on it.
 *
 * <p>Down is a black hole, as a pulled cable or a dead switch port is: no byte moves either way on any
 * connection of the adapter, and nothing tells the peers (no FIN, no RST), so they learn of it only by
 * their own timeouts or heartbeats. Posted work stays queued, not flushed; once the link is up again
 * traffic resumes where it stopped and nothing is lost. A fatal error, a reset ({@link AdapterControl})
 * and closing resources still work while the link is down, and leave the link as it is.
 */
public interface LinkControl {
    /**
     * Takes the link down: from now on no byte moves on the adapter's connections, connects from it make
     * no progress (they end by their own timeout with {@link ConnectionTimeoutException}), and connection
     * requests to its listeners get no reply. {@link RdmaDevice#portState()} reports
     * {@link PortState#DOWN} and {@link AsyncEventType#PORT_ERROR} is raised. Nothing when it is down already.
     *
     * @throws ResourceClosedException when the adapter is closed
     */
    void linkDown();

    /**
     * Brings the link up again: traffic resumes where it stopped, {@link RdmaDevice#portState()} reports
     * {@link PortState#ACTIVE} again (unless the adapter failed) and {@link AsyncEventType#PORT_ACTIVE} is
     * raised. Nothing when it is up already.
     *
     * @throws ResourceClosedException when the adapter is closed
     */
    void linkUp();

    /** True unless {@link #linkDown()} took the link down. */
    boolean isLinkUp();

    /**
     * Resets every connection of the adapter as a reset from the network would, whether the link is up or
     * down: each TCP connection is aborted with an RST, the local QPs go to ERROR as on any lost connection
     * (their work flushed, the same async events), and the peers see their connections reset. Connections
     * whose close a downed link holds back are reset too. Handshakes not yet accepted are left alone.
     *
     * @return how many connections were reset
     * @throws ResourceClosedException when the adapter is closed
     */
    int resetConnections();
}

package dev.tandem.verbs;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A reliable-connected queue pair. Created in INIT; {@link #connect} or an accepted
 * {@link ConnectionRequest} takes it to RTS. Posting is thread-safe and lock-free.
 */
public interface QueuePair extends AutoCloseable {
    int qpNumber();

    QpState state();

    QueuePairConfig config();

    ProtectionDomain pd();

    /**
     * Requests a state change the verbs allow a consumer to make ({@link QpState#canModifyTo}):
     * to ERROR (flushes all work), to RESET (from any state; the QP may then be reused only after
     * a new connect), to SQD (drain) and back to RTS.
     */
    void modify(QpState target);

    /** Posts a send-queue work request. In ERROR it completes at once with WR_FLUSH_ERR. */
    void postSend(WorkRequest request);

    /** Posts a receive buffer. Not allowed on a QP that uses an SRQ. */
    void postReceive(ReceiveRequest request);

    /**
     * Connects to a listener at {@code remote}, sending {@code privateData} (at most
     * {@link DeviceAttributes#maxPrivateData()} bytes), and returns the peer's private data.
     *
     * @throws ConnectionRejectedException if the peer rejects
     * @throws ConnectionTimeoutException  if no reply arrives within {@code timeout}
     */
    byte[] connect(InetSocketAddress remote, byte[] privateData, Duration timeout);

    /** Closes the connection; outstanding work flushes and the peer sees the QP go to ERROR. */
    void disconnect();

    /** Local address of the connection, or null before it is connected. */
    InetSocketAddress localAddress();

    /** Peer address of the connection, or null before it is connected. */
    InetSocketAddress remoteAddress();

    /** Inbound RDMA Reads the peer may have outstanding (negotiated). */
    int ird();

    /** Outbound RDMA Reads this side may have outstanding (negotiated). */
    int ord();

    /**
     * Why the QP went to ERROR, once it is there (until a move to RESET); empty while it is not, or
     * where the provider does not tell causes apart.
     */
    default java.util.Optional<QpFailure> failure() {
        return java.util.Optional.empty();
    }

    @Override
    void close();
}

package dev.tandem.verbs;

import java.net.InetSocketAddress;

/** An incoming connection request, to accept onto a QP or reject, each with private data. */
public interface ConnectionRequest {
    InetSocketAddress remoteAddress();

    /** The initiator's private data (without the transport's own words). */
    byte[] privateData();

    /** Inbound RDMA Reads the initiator offers to serve. */
    int remoteIrd();

    /** Outbound RDMA Reads the initiator asks for. */
    int remoteOrd();

    /** Accepts onto {@code qp} (which must be in INIT and of this adapter), sending {@code privateData}. */
    void accept(QueuePair qp, byte[] privateData);

    /** Rejects, sending {@code privateData}; the initiator gets a {@link ConnectionRejectedException}. */
    void reject(byte[] privateData);
}

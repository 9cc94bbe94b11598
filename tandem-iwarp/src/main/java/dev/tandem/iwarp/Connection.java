package dev.tandem.iwarp;

import dev.tandem.provider.OutstandingReads;
import dev.tandem.verbs.PeerIncarnation;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;

/**
 * The established iWARP stream of one QP: the TCP channel, what the MPA exchange negotiated, the
 * read queues, the transmitter and receiver, and the teardown after a Terminate.
 */
final class Connection {
    final IwQueuePair qp;
    final SocketChannel channel;
    final boolean crc;
    final int ird;
    final int ord;
    final int maxUlpdu;
    final InetSocketAddress local;
    final InetSocketAddress remote;
    final OutstandingReads orq;
    final ReadRequestQueue irq;
    final Transmitter tx;
    final Receiver rx;
    /** The peer node's life admitted at set-up, asked before each inbound frame is placed; null when none was exchanged. */
    final PeerIncarnation peer;
    /** Set when a Terminate must go out before the stream closes. */
    volatile Failure pendingTerminate;
    volatile long teardownDeadline;
    private volatile boolean closed;

    Connection(IwQueuePair qp, SocketChannel channel, boolean crc, int ird, int ord, int maxUlpdu, PeerIncarnation peer)
            throws IOException {
        this.qp = qp;
        this.peer = peer;
        this.channel = channel;
        this.crc = crc;
        this.ird = ird;
        this.ord = ord;
        this.maxUlpdu = maxUlpdu;
        this.local = (InetSocketAddress) channel.getLocalAddress();
        this.remote = (InetSocketAddress) channel.getRemoteAddress();
        this.orq = new OutstandingReads(ord);
        this.irq = new ReadRequestQueue(ird);
        this.tx = new Transmitter(this);
        this.rx = new Receiver(this);
    }

    /** Asks the transmitter to send a Terminate, then close; bounded by a deadline. */
    void terminate(Failure failure) {
        teardownDeadline = System.nanoTime() + 200_000_000L;
        pendingTerminate = failure;
        tx.poll();
    }

    boolean isClosed() {
        return closed;
    }

    /** True once the stream may be dropped from the engine: closed, or a Terminate sent or overdue. */
    boolean tearDownIfDue() {
        if (closed) {
            return true;
        }
        Failure t = pendingTerminate;
        if (t == null || tx.terminateSent() || System.nanoTime() - teardownDeadline > 0) {
            close();
            return true;
        }
        return false;
    }

    void close() {
        if (!closed) {
            closed = true;
            try {
                channel.close();
            } catch (IOException e) {
                qp.device().logger().log(System.Logger.Level.DEBUG, "closing " + this + ": " + e);
            }
        }
    }

    @Override
    public String toString() {
        return "Connection[" + local + " -> " + remote + ", crc=" + crc + ", ird=" + ird + ", ord=" + ord + (peer == null ? "" : ", peer " + peer) + "]";
    }
}

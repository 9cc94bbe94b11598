package dev.tandem.iwarp;

import dev.tandem.provider.OutstandingReads;
import dev.tandem.verbs.PeerIncarnation;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;

/**
 * The established iWARP stream of one QP: the TCP channel, what the MPA exchange negotiated, the
 * read queues, the transmitter and receiver, and the teardown after a Terminate. While the adapter's
 * {@link Link} is down the transmitter and receiver leave the channel alone, and a close waits for the
 * link.
 */
final class Connection {
    final IwQueuePair qp;
    final SocketChannel channel;
    final boolean crc;
    final int ird;
    final int ord;
    final int maxUlpdu;
    /** The adapter's link: nothing moves on the channel while it is down. */
    final Link link;
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
    /** The first write the socket refused; null while none was. */
    private volatile IOException writeFailure;

    Connection(IwQueuePair qp, SocketChannel channel, boolean crc, int ird, int ord, int maxUlpdu, Link link, PeerIncarnation peer)
            throws IOException {
        this.qp = qp;
        this.link = link;
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

    /**
     * The socket refused a write ({@code e}): nothing more goes out, and the QP does not fail yet. The
     * peer may have ended the stream with a Terminate or a close the receiver has not read yet, and that,
     * not the refused write, is the QP's cause: the engine's next cycle has the receiver read what is
     * there first ({@link Receiver#afterWriteFailure}).
     */
    void writeFailed(IOException e) {
        if (writeFailure == null) {
            writeFailure = e;
        }
    }

    /** The first write the socket refused, or null. */
    IOException writeFailure() {
        return writeFailure;
    }

    /** True once the stream may be dropped from the engine: closed, or a Terminate sent or overdue. */
    boolean tearDownIfDue() {
        if (closed) {
            return true;
        }
        Failure t = pendingTerminate;
        if (t == null || tx.terminateSent() || writeFailure != null || System.nanoTime() - teardownDeadline > 0) {
            close();
            return true;
        }
        return false;
    }

    /**
     * Closes the stream: now, or once the link is up again while it is down. The peer sees FIN, or RST when bytes
     * it sent are left unread here (a QP in ERROR reads nothing more).
     */
    void close() {
        if (!closed) {
            closed = true;
            link.close(channel);
        }
    }

    /**
     * Aborts the stream at once, whatever the link (the peer sees RST), as a reset from the network does;
     * false when it was closed already (a close parked on a downed link is aborted by {@link Link#abortParked()}).
     */
    boolean abort() {
        if (closed) {
            return false;
        }
        closed = true;
        Link.abort(channel);
        return true;
    }

    @Override
    public String toString() {
        return "Connection[" + local + " -> " + remote + ", crc=" + crc + ", ird=" + ird + ", ord=" + ord + (peer == null ? "" : ", peer " + peer) + "]";
    }
}

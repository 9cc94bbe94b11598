package dev.tandem.iwarp;

import dev.tandem.iwarp.ras.AdapterRas;
import dev.tandem.iwarp.wire.EnhancedParameters;
import dev.tandem.iwarp.wire.MpaException;
import dev.tandem.iwarp.wire.MpaFrame;
import dev.tandem.iwarp.wire.NodeKeyBlock;
import dev.tandem.ras.TraceLevel;
import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRejectedException;
import dev.tandem.verbs.ConnectionTimeoutException;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.PeerIncarnation;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * The MPA connection setup (RFC 5044 section 7.1 with the RFC 6581 enhancements): the initiator's
 * side under one deadline, the responder's Reply, and IRD/ORD negotiation. The listener's side reads
 * Requests in {@link HandshakeAgent}. Markers are never used: a request for them is answered with a
 * reject, as Linux siw does. An adapter with node keys puts its {@link NodeKeyBlock} after the IRD/ORD
 * words of its Request, and admits the one a Tandem responder answers with.
 */
final class Mpa {
    /** What a successful initiator exchange produced; {@code peer} is the peer node's life, null when none was exchanged. */
    record Outcome(SocketChannel channel, boolean crc, int ird, int ord, byte[] peerPrivateData, PeerIncarnation peer) {
    }

    private Mpa() {
    }

    static void checkPrivateData(byte[] pd, IwarpDevice device) {
        int max = device.attributes().maxPrivateData();
        if (pd.length > max) {
            NodeKeyExchange keys = device.nodeKeys();
            throw new InvalidArgumentException("private data of " + pd.length + " bytes exceeds the limit of " + max
                    + " (MPA's 512 less the 4 bytes of the RFC 6581 IRD/ORD words"
                    + (keys == null ? "" : " and the " + keys.own().length() + " bytes of the node key block that presents node "
                    + keys.own().nodeName() + ", as this adapter was opened with node keys") + ")");
        }
    }

    /**
     * The initiator's side: TCP connect, Request, Reply, all within {@code timeout} from the call, however
     * slowly the peer answers. A deadline that passes is counted ({@code connect timeouts}) and recorded in
     * the error log, and the connection is closed. While the adapter's link is down nothing moves: the
     * connect waits for the link (without spinning) and times out as it would against a black hole.
     */
    static Outcome connect(IwarpDevice device, IwQueuePair qp, InetSocketAddress remote, byte[] privateData, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        SocketChannel ch = null;
        AdapterRas ras = device.ras();
        ras.connectAttempts.incrementAtomic();
        if (ras.cm.enabled(TraceLevel.RARE)) {
            ras.cm.record(TraceLevel.RARE, AdapterRas.CONNECT, qp.qpNumber(), remote.getPort(), 0, 0, remote.getAddress().getHostAddress());
        }
        Link link = device.link();
        try (Selector selector = Selector.open()) {
            if (!awaitLink(device, deadline)) {
                // the adapter failed or closed while the connect waited for its link: say so
                device.checkOpen();
                throw timedOut(device, remote, timeout, "TCP connect", null);
            }
            ch = SocketChannel.open();
            qp.connectingOn(ch, selector);
            ch.bind(new InetSocketAddress(device.config().localAddress(), 0));
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            try {
                ch.socket().connect(remote, (int) Math.max(1, Math.min(Integer.MAX_VALUE, millisLeft(deadline))));
            } catch (SocketTimeoutException e) {
                throw timedOut(device, remote, timeout, "TCP connect", e);
            }
            int ird = qp.config().ird();
            int ord = qp.config().ord();
            NodeKeyExchange keys = device.nodeKeys();
            MpaFrame request = new MpaFrame(false, false, device.config().crc(), false, true, 2,
                    EnhancedParameters.of(ird, ord).prepend(keys == null ? privateData : keys.own().prepend(privateData)));
            MpaFrame reply = exchange(ch, selector, request, deadline, device);
            if (reply == null) {
                device.checkOpen();
                throw timedOut(device, remote, timeout, "MPA Reply", null);
            }
            if (reply.reject()) {
                ras.connectsRejected.incrementAtomic();
                throw rejected(reply, remote, keys);
            }
            if (reply.markers()) {
                throw new MpaException("peer " + remote + " requires MPA markers, which Tandem does not use");
            }
            NodeKeyBlock peerBlock = peerBlock(reply, remote);
            // a block from a peer this adapter presented none to is stripped and ignored, as from any peer when it has no keys
            PeerIncarnation life = keys == null || peerBlock == null ? null : keys.admit(peerBlock, remote);
            EnhancedParameters peer = reply.enhancedParameters();
            int negotiatedOrd = peer == null ? Math.min(ord, 1) : Math.min(ord, peer.ird());
            int negotiatedIrd = peer == null ? ird : Math.min(ird, peer.ord());
            ras.connectsEstablished.incrementAtomic();
            Outcome o = new Outcome(ch, request.crc() || reply.crc(), negotiatedIrd, negotiatedOrd, reply.applicationData(), life);
            ch = null;
            return o;
        } catch (ConnectionException e) {
            throw e;
        } catch (MpaException e) {
            throw new ConnectionException(e.getMessage(), e);
        } catch (IOException e) {
            // a fatal error resets a connect in progress: say so rather than what the reset socket said
            device.checkOpen();
            throw new ConnectionException("connecting to " + remote + " failed: " + e.getMessage(), e);
        } finally {
            qp.connectingOn(null, null);
            link.close(ch);
        }
    }

    /** Waits until the adapter's link is up, the deadline passed, or the adapter failed or closed; true when it is up. */
    private static boolean awaitLink(IwarpDevice device, long deadline) {
        try {
            return device.link().awaitUp(deadline, () -> device.isClosed() || device.fatalCause().isPresent());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * The exception for a reject Reply: the application's reject, or the responder's refusal of the key
     * this adapter presented as one of an earlier incarnation of its node (R in the Reply's block).
     */
    private static ConnectionRejectedException rejected(MpaFrame reply, InetSocketAddress remote, NodeKeyExchange keys) {
        NodeKeyBlock block;
        byte[] data;
        try {
            block = reply.nodeKeyBlock();
            data = reply.applicationData();
        } catch (MpaException e) {
            return new ConnectionRejectedException("peer " + remote + " rejected the connection (and its reject Reply carries a malformed "
                    + "node key block: " + e.getMessage() + ")", new byte[0]);
        }
        if (block != null && block.refusedEarlierLife() && keys != null) {
            return new ConnectionRejectedException("peer " + remote + " (node " + block.nodeName() + ") refused the connection: the incarnation key "
                    + String.format("0x%016x", keys.own().incarnation()) + " this adapter presented for node " + keys.own().nodeName()
                    + " is of an earlier incarnation of " + keys.own().nodeName() + "; the peer has seen a newer one since (a restarted node "
                    + "connects with the key of its new incarnation)", data);
        }
        return new ConnectionRejectedException("peer " + remote + " rejected the connection", data);
    }

    /** The node key block of {@code reply}, or null; a malformed one refuses the Reply, naming the peer. */
    private static NodeKeyBlock peerBlock(MpaFrame reply, InetSocketAddress remote) {
        try {
            return reply.nodeKeyBlock();
        } catch (MpaException e) {
            throw new MpaException("peer " + remote + " answered with a Reply Tandem refuses: " + e.getMessage());
        }
    }

    private static long millisLeft(long deadline) {
        return (deadline - System.nanoTime() + 999_999) / 1_000_000;
    }

    /**
     * Sends {@code request} and reads the whole Reply on {@code ch}, made non-blocking, waiting on a selector
     * of its own until {@code deadline}: a peer that trickles its Reply holds the caller no longer than
     * that; while the link is down it waits for the link instead. Returns null when the deadline passed
     * first, or the adapter failed or closed while it waited for the link; the channel stays non-blocking,
     * as the engine uses it.
     */
    private static MpaFrame exchange(SocketChannel ch, Selector selector, MpaFrame request, long deadline, IwarpDevice device)
            throws IOException {
        Link link = device.link();
        ch.configureBlocking(false);
        ByteBuffer out = ByteBuffer.wrap(request.encode());
        MpaFrameReader reader = new MpaFrameReader(true);
        SelectionKey key = ch.register(selector, 0);
        while (true) {
            if (link.isDown() && !awaitLink(device, deadline)) {
                return null;
            }
            if (out.hasRemaining()) {
                ch.write(out);
            }
            if (!out.hasRemaining()) {
                MpaFrame reply = reader.read(ch);
                if (reply != null) {
                    return reply;
                }
            }
            long left = millisLeft(deadline);
            if (left <= 0) {
                return null;
            }
            key.interestOps(out.hasRemaining() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
            selector.select(left);
            selector.selectedKeys().clear();
        }
    }

    /** Counts and records a connect whose {@code what} did not complete in time, and the exception for the caller. */
    private static ConnectionTimeoutException timedOut(IwarpDevice device, InetSocketAddress remote, Duration timeout, String what,
                                                       Exception cause) {
        device.ras().connectTimeouts.incrementAtomic();
        device.recordError(remote, "connect: no complete " + what + " within " + timeout.toMillis() + " ms; connection closed");
        return new ConnectionTimeoutException("no complete " + what + " from " + remote + " within " + timeout.toMillis() + " ms", cause);
    }

    /** Writes {@code frame} on a blocking channel (a Reply from the application's accept or reject). */
    static void write(SocketChannel ch, MpaFrame frame) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(frame.encode());
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    /**
     * The responder's Reply to {@code request}: CRC if either side wants it, IRD/ORD bounded by the peer's,
     * then {@code block} (the responder's node key block, or null for none) and {@code privateData}.
     */
    static MpaFrame reply(MpaFrame request, boolean crc, int ird, int ord, NodeKeyBlock block, byte[] privateData, boolean reject) {
        byte[] data = block == null ? privateData : block.prepend(privateData);
        EnhancedParameters peer = request.enhancedParameters();
        if (peer == null) {
            return new MpaFrame(true, false, crc || request.crc(), reject, false, 1, data);
        }
        EnhancedParameters mine = EnhancedParameters.of(Math.min(ird, peer.ord()), Math.min(ord, peer.ird()));
        return new MpaFrame(true, false, crc || request.crc(), reject, true, 2, mine.prepend(data));
    }

    static void closeQuietly(SocketChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing after a failure: nothing more to do
            }
        }
    }
}

package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.EnhancedParameters;
import dev.tandem.iwarp.wire.MpaException;
import dev.tandem.iwarp.wire.MpaFrame;
import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRejectedException;
import dev.tandem.verbs.ConnectionTimeoutException;
import dev.tandem.verbs.InvalidArgumentException;

import dev.tandem.ras.TraceLevel;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * The MPA connection setup (RFC 5044 section 7.1 with the RFC 6581 enhancements) on a blocking
 * channel: the initiator's side, the responder's reply, and IRD/ORD negotiation. Markers are never
 * used: a request for them is answered with a reject, as Linux siw does.
 */
final class Mpa {
    /** What a successful initiator exchange produced. */
    record Outcome(SocketChannel channel, boolean crc, int ird, int ord, byte[] peerPrivateData) {
    }

    private Mpa() {
    }

    static void checkPrivateData(byte[] pd, IwarpDevice device) {
        int max = device.attributes().maxPrivateData();
        if (pd.length > max) {
            throw new InvalidArgumentException("private data of " + pd.length + " bytes exceeds the limit of " + max
                    + " (MPA's 512 less the 4 bytes of the RFC 6581 IRD/ORD words)");
        }
    }

    static Outcome connect(IwarpDevice device, IwQueuePair qp, InetSocketAddress remote, byte[] privateData, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        SocketChannel ch = null;
        AdapterRas ras = device.ras();
        ras.connectAttempts.incrementAtomic();
        if (ras.cm.enabled(TraceLevel.RARE)) {
            ras.cm.record(TraceLevel.RARE, AdapterRas.CONNECT, qp.qpNumber(), remote.getPort(), 0, 0, remote.getAddress().getHostAddress());
        }
        try {
            ch = SocketChannel.open();
            ch.bind(new InetSocketAddress(device.config().localAddress(), 0));
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.socket().connect(remote, millisLeft(deadline, remote));
            int ird = qp.config().ird();
            int ord = qp.config().ord();
            MpaFrame request = new MpaFrame(false, false, device.config().crc(), false, true, 2,
                    EnhancedParameters.of(ird, ord).prepend(privateData));
            write(ch, request);
            MpaFrame reply = read(ch, true, millisLeft(deadline, remote));
            if (reply.reject()) {
                ras.connectsRejected.incrementAtomic();
                throw new ConnectionRejectedException("peer " + remote + " rejected the connection", reply.applicationData());
            }
            if (reply.markers()) {
                throw new MpaException("peer " + remote + " requires MPA markers, which Tandem does not use");
            }
            EnhancedParameters peer = reply.enhancedParameters();
            int negotiatedOrd = peer == null ? Math.min(ord, 1) : Math.min(ord, peer.ird());
            int negotiatedIrd = peer == null ? ird : Math.min(ird, peer.ord());
            ras.connectsEstablished.incrementAtomic();
            Outcome o = new Outcome(ch, request.crc() || reply.crc(), negotiatedIrd, negotiatedOrd, reply.applicationData());
            ch = null;
            return o;
        } catch (SocketTimeoutException e) {
            ras.connectTimeouts.incrementAtomic();
            throw new ConnectionTimeoutException("no MPA Reply from " + remote + " within " + timeout.toMillis() + " ms", e);
        } catch (ConnectionException e) {
            throw e;
        } catch (IOException e) {
            throw new ConnectionException("connecting to " + remote + " failed: " + e.getMessage(), e);
        } finally {
            closeQuietly(ch);
        }
    }

    private static int millisLeft(long deadline, InetSocketAddress remote) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
            throw new ConnectionTimeoutException("connecting to " + remote + " timed out");
        }
        return (int) Math.min(Integer.MAX_VALUE, left);
    }

    static void write(SocketChannel ch, MpaFrame frame) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(frame.encode());
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    /** Reads one frame from a blocking channel within {@code timeoutMs}. */
    static MpaFrame read(SocketChannel ch, boolean reply, int timeoutMs) throws IOException {
        ch.socket().setSoTimeout(timeoutMs);
        InputStream in = ch.socket().getInputStream();
        byte[] header = readFully(in, MpaFrame.HEADER_LENGTH);
        int pdLength = MpaFrame.checkHeader(header, reply);
        byte[] pd = readFully(in, pdLength);
        return MpaFrame.decode(header, pd, reply);
    }

    private static byte[] readFully(InputStream in, int n) throws IOException {
        byte[] b = in.readNBytes(n);
        if (b.length != n) {
            throw new MpaException("connection closed after " + b.length + " of " + n + " bytes of the MPA frame");
        }
        return b;
    }

    /** The responder's Reply to {@code request}: CRC if either side wants it, IRD/ORD bounded by the peer's. */
    static MpaFrame reply(MpaFrame request, boolean crc, int ird, int ord, byte[] privateData, boolean reject) {
        EnhancedParameters peer = request.enhancedParameters();
        if (peer == null) {
            return new MpaFrame(true, false, crc || request.crc(), reject, false, 1, privateData);
        }
        EnhancedParameters mine = EnhancedParameters.of(Math.min(ird, peer.ord()), Math.min(ord, peer.ird()));
        return new MpaFrame(true, false, crc || request.crc(), reject, true, 2, mine.prepend(privateData));
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

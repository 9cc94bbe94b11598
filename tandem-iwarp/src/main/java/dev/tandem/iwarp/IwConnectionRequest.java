package dev.tandem.iwarp;

import dev.tandem.iwarp.ras.AdapterRas;
import dev.tandem.iwarp.wire.EnhancedParameters;
import dev.tandem.iwarp.wire.MpaFrame;
import dev.tandem.ras.TraceLevel;
import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.PeerIncarnation;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An MPA Request waiting for the application's accept or reject. While the adapter's link is down no
 * Reply can go out: an accept fails (the request is used up, its initiator times out), a reject sends
 * nothing, and the connection's close waits for the link.
 */
final class IwConnectionRequest implements ConnectionRequest {
    private final IwarpDevice device;
    private final SocketChannel channel;
    private final MpaFrame request;
    private final InetSocketAddress remote;
    /** The life the Request's node key block presented (admitted by the listener), or null when none was. */
    private final PeerIncarnation peer;
    private final AtomicBoolean answered = new AtomicBoolean();

    IwConnectionRequest(IwarpDevice device, SocketChannel channel, MpaFrame request, InetSocketAddress remote, PeerIncarnation peer) {
        this.device = device;
        this.channel = channel;
        this.request = request;
        this.remote = remote;
        this.peer = peer;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public byte[] privateData() {
        return request.applicationData();
    }

    @Override
    public int remoteIrd() {
        EnhancedParameters p = request.enhancedParameters();
        return p == null ? 1 : p.ird();
    }

    @Override
    public int remoteOrd() {
        EnhancedParameters p = request.enhancedParameters();
        return p == null ? 1 : p.ord();
    }

    @Override
    public void accept(QueuePair qp, byte[] privateData) {
        byte[] pd = privateData == null ? new byte[0] : privateData;
        Mpa.checkPrivateData(pd, device);
        if (!(qp instanceof IwQueuePair q) || q.device() != device) {
            throw new InvalidArgumentException("accept: QP " + qp + " is not a QP of adapter " + device.name());
        }
        q.checkOpen();
        if (q.state() != QpState.INIT && q.state() != QpState.RTR || q.connection() != null) {
            throw new InvalidStateException("accept onto QP " + q.qpNumber() + " in state " + q.state() + "; it must be a fresh QP in INIT");
        }
        claim();
        if (device.link().isDown()) {
            device.link().close(channel);
            throw new ConnectionException("accepting " + remote + " failed: the link of adapter " + device.name()
                    + " is down, so no MPA Reply can go out; the request is dropped (its initiator times out)");
        }
        NodeKeyExchange keys = device.nodeKeys();
        MpaFrame reply = Mpa.reply(request, device.config().crc(), q.config().ird(), q.config().ord(),
                keys == null ? null : keys.replyTo(request.nodeKeyBlock()), pd, false);
        try {
            Mpa.write(channel, reply);
        } catch (IOException e) {
            Mpa.closeQuietly(channel);
            throw new ConnectionException("accepting " + remote + " failed: " + e.getMessage(), e);
        }
        AdapterRas ras = device.ras();
        ras.requestsAccepted.incrementAtomic();
        if (ras.cm.enabled(dev.tandem.ras.TraceLevel.RARE)) {
            ras.cm.record(dev.tandem.ras.TraceLevel.RARE, AdapterRas.ACCEPT, q.qpNumber(), remote.getPort(), 0, 0, remote.getAddress().getHostAddress());
        }
        EnhancedParameters mine = reply.enhancedParameters();
        int ird = mine == null ? q.config().ird() : mine.ird();
        int ord = mine == null ? Math.min(1, q.config().ord()) : mine.ord();
        q.establish(channel, reply.crc(), ird, ord, peer);
    }

    @Override
    public void reject(byte[] privateData) {
        byte[] pd = privateData == null ? new byte[0] : privateData;
        Mpa.checkPrivateData(pd, device);
        claim();
        device.ras().requestsRejected.incrementAtomic();
        try {
            if (!device.link().isDown()) {
                Mpa.write(channel, Mpa.reply(request, device.config().crc(), 0, 0, null, pd, true));
            }
        } catch (IOException e) {
            device.logger().log(System.Logger.Level.DEBUG, "reject of " + remote + " not delivered: " + e.getMessage());
        } finally {
            device.link().close(channel);
        }
    }

    private void claim() {
        if (!answered.compareAndSet(false, true)) {
            throw new InvalidStateException("connection request from " + remote + " was already accepted or rejected");
        }
    }

    /** Resets a request nobody answered (its adapter failed): the initiator sees RST at once. */
    void reset() {
        if (answered.compareAndSet(false, true)) {
            device.link().reset(channel);
        }
    }

    /** Drops a request nobody answered (listener closed). */
    void abandon() {
        if (answered.compareAndSet(false, true)) {
            device.link().close(channel);
        }
    }

    @Override
    public String toString() {
        return "ConnectionRequest[from " + remote + ", " + request.applicationData().length + " bytes of private data]";
    }
}

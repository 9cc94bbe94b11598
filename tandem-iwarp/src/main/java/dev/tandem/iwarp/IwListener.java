package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.MpaException;
import dev.tandem.iwarp.wire.MpaFrame;
import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.ConnectionTimeoutException;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.ListenerClosedException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Listens on one address of the adapter. A named acceptor thread takes TCP connections and reads
 * their MPA Request (bounded by the adapter's connect timeout); requests queue up to the backlog
 * for {@link #accept}. Closing stops the thread and wakes every waiter.
 */
final class IwListener implements Listener {
    private final IwarpDevice device;
    private final ServerSocketChannel server;
    private final InetSocketAddress local;
    private final int backlog;
    private final ArrayDeque<IwConnectionRequest> pending = new ArrayDeque<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final Thread acceptor;
    private volatile boolean closed;
    /** The channel whose MPA Request the acceptor is reading (guarded by lock); close() aborts it. */
    private SocketChannel handshaking;

    IwListener(IwarpDevice device, InetSocketAddress address, int backlog) {
        if (address == null) {
            throw new InvalidArgumentException("listen: address is null");
        }
        if (backlog <= 0) {
            throw new InvalidArgumentException("listen: backlog " + backlog + " must be at least 1");
        }
        if (!address.getAddress().equals(device.config().localAddress()) && !address.getAddress().isAnyLocalAddress()) {
            throw new InvalidArgumentException("listen on " + address + ": adapter " + device.name() + " owns only "
                    + device.config().localAddress().getHostAddress());
        }
        this.device = device;
        this.backlog = backlog;
        try {
            server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(new InetSocketAddress(device.config().localAddress(), address.getPort()), backlog);
            local = (InetSocketAddress) server.getLocalAddress();
        } catch (IOException e) {
            throw new ConnectionException("cannot listen on " + address + ": " + e.getMessage(), e);
        }
        acceptor = Thread.ofPlatform().daemon().name("tandem-" + device.name() + "-listen-" + local.getPort()).unstarted(this::acceptLoop);
        acceptor.start();
    }

    private void acceptLoop() {
        while (!closed) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closed) {
                    device.logger().log(System.Logger.Level.WARNING, "accept on " + local + " failed: " + e.getMessage());
                }
                continue;
            }
            lock.lock();
            try {
                if (closed) {
                    Mpa.closeQuietly(ch);
                    return;
                }
                handshaking = ch;
            } finally {
                lock.unlock();
            }
            handshake(ch);
            lock.lock();
            try {
                handshaking = null;
            } finally {
                lock.unlock();
            }
        }
    }

    private void handshake(SocketChannel ch) {
        InetSocketAddress remote = null;
        try {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            remote = (InetSocketAddress) ch.getRemoteAddress();
            MpaFrame request = Mpa.read(ch, false, (int) device.config().connectTimeoutMs());
            try {
                request.enhancedParameters();
            } catch (MpaException e) {
                // RFC 6581: an Enhanced Request must carry the IRD/ORD words; refuse it as siw does
                Mpa.write(ch, new MpaFrame(true, false, request.crc(), true, false, request.revision(), new byte[0]));
                Mpa.closeQuietly(ch);
                device.logger().log(System.Logger.Level.INFO, "refused " + remote + ": " + e.getMessage());
                return;
            }
            if (request.markers()) {
                Mpa.write(ch, Mpa.reply(request, device.config().crc(), 0, 0, new byte[0], true));
                Mpa.closeQuietly(ch);
                device.logger().log(System.Logger.Level.INFO, "refused " + remote + ": it asked for MPA markers, which Tandem declines");
                return;
            }
            IwConnectionRequest r = new IwConnectionRequest(device, ch, request, remote);
            lock.lock();
            try {
                // from here the channel belongs to the request (and to whoever accepts it), not to
                // the handshake that close() may abort
                handshaking = null;
                if (pending.size() >= backlog || closed) {
                    r.reject(new byte[0]);
                    return;
                }
                pending.add(r);
                arrived.signalAll();
            } finally {
                lock.unlock();
            }
        } catch (MpaException e) {
            device.logger().log(System.Logger.Level.INFO, "malformed MPA Request from " + remote + ": " + e.getMessage());
            Mpa.closeQuietly(ch);
        } catch (IOException e) {
            device.logger().log(System.Logger.Level.INFO, "MPA Request from " + remote + " not received: " + e.getMessage());
            Mpa.closeQuietly(ch);
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public ConnectionRequest accept(Duration timeout) {
        if (timeout == null) {
            throw new InvalidArgumentException("accept: timeout is null");
        }
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            while (true) {
                if (closed) {
                    throw new ListenerClosedException("listener on " + local + " is closed");
                }
                IwConnectionRequest r = pending.poll();
                if (r != null) {
                    return r;
                }
                if (nanos <= 0) {
                    throw new ConnectionTimeoutException("no connection request on " + local + " within " + timeout.toMillis() + " ms");
                }
                nanos = arrived.awaitNanos(nanos);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectionTimeoutException("interrupted while waiting for a connection request on " + local);
        } finally {
            lock.unlock();
        }
    }

    boolean isAcceptorAlive() {
        return acceptor.isAlive();
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            arrived.signalAll();
            for (IwConnectionRequest r : pending) {
                r.abandon();
            }
            pending.clear();
            Mpa.closeQuietly(handshaking);
            handshaking = null;
        } finally {
            lock.unlock();
        }
        try {
            server.close();
        } catch (IOException e) {
            device.logger().log(System.Logger.Level.DEBUG, "closing listener " + local + ": " + e.getMessage());
        }
        try {
            acceptor.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        device.forget(this);
    }

    @Override
    public String toString() {
        return "Listener[" + local + "]";
    }
}

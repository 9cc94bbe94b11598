package dev.tandem.iwarp;

import dev.tandem.provider.ResourceKind;
import dev.tandem.provider.TrackedResource;
import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.ConnectionTimeoutException;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.ListenerClosedException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Listens on one address of the adapter. Its {@link HandshakeAgent} thread takes TCP connections and
 * reads their MPA Requests without blocking, within the adapter's {@link HandshakeLimits}; complete
 * requests queue up to the backlog for {@link #accept}, and one beyond the backlog is rejected.
 * Closing stops the thread, closes the queued requests and wakes every waiter.
 */
final class IwListener implements Listener, TrackedResource {
    private final IwarpDevice device;
    private final ServerSocketChannel server;
    private final InetSocketAddress local;
    private final int backlog;
    private final ArrayDeque<IwConnectionRequest> pending = new ArrayDeque<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final HandshakeAgent agent;
    private volatile boolean closed;
    /** The adapter failed: the listener takes no connection any more; close it (guarded by lock). */
    private boolean failed;
    /** Why the handshake thread died, if it did (guarded by lock); accept then fails with it. */
    private Throwable agentFailure;

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
        HandshakeLimits limits = device.config().handshakes();
        ServerSocketChannel s = null;
        try {
            s = ServerSocketChannel.open();
            s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            // the kernel queues connections the agent has not taken yet: as many as may be pending
            s.bind(new InetSocketAddress(device.config().localAddress(), address.getPort()), Math.max(backlog, limits.maxPending()));
            server = s;
            local = (InetSocketAddress) s.getLocalAddress();
            agent = new HandshakeAgent(device, this, s, limits);
        } catch (IOException e) {
            closeQuietly(s);
            throw new ConnectionException("cannot listen on " + address + ": " + e.getMessage(), e);
        }
    }

    /** The agent has a complete, valid MPA Request: queue it for {@link #accept}, or reject it when the backlog is full. */
    void offer(IwConnectionRequest r) {
        lock.lock();
        try {
            if (failed) {
                r.reset();
                return;
            }
            if (!closed && pending.size() < backlog) {
                pending.add(r);
                arrived.signalAll();
                return;
            }
        } finally {
            lock.unlock();
        }
        r.reject(new byte[0]);
    }

    /**
     * The adapter failed: as a failed RNIC, the listener stops at once. Its queued requests and pending
     * handshakes are reset (their initiators see RST now, or once a downed link is up) and its socket is
     * closed (new connects are refused); {@link #accept} says the adapter failed. The owner still closes it.
     */
    void adapterFailed() {
        lock.lock();
        try {
            if (closed || failed) {
                return;
            }
            failed = true;
            arrived.signalAll();
            for (IwConnectionRequest r : pending) {
                r.reset();
            }
            pending.clear();
        } finally {
            lock.unlock();
        }
        agent.stop(true);
        closeQuietly(server);
    }

    /** The handshake thread died (a bug): the listener stops taking connections and accept says why. */
    void agentFailed(Throwable t) {
        device.logger().log(System.Logger.Level.ERROR, "the handshake thread of listener " + local + " failed", t);
        device.recordError(this, "the handshake thread of a listener failed: " + t);
        lock.lock();
        try {
            agentFailure = t;
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public ResourceKind kind() {
        return ResourceKind.LISTENER;
    }

    /** Its port. */
    @Override
    public long number() {
        return local.getPort();
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
                if (failed) {
                    device.checkOpen();
                    throw new ListenerClosedException("listener on " + local + " stopped taking connections: adapter " + device.name()
                            + " failed; close it and listen again");
                }
                IwConnectionRequest r = pending.poll();
                if (r != null) {
                    return r;
                }
                if (agentFailure != null) {
                    throw new ListenerClosedException("listener on " + local + " stopped taking connections: its thread failed ("
                            + agentFailure + "); close it and listen again");
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
        return agent.isAlive();
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
        } finally {
            lock.unlock();
        }
        agent.stop();
        closeQuietly(server);
        device.core().forget(this);
    }

    private void closeQuietly(ServerSocketChannel s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                device.logger().log(System.Logger.Level.DEBUG, "closing listener " + local + ": " + e.getMessage());
            }
        }
    }

    @Override
    public String toString() {
        return "Listener[" + local + "]";
    }
}

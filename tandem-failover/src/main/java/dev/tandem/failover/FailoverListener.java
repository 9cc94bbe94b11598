package dev.tandem.failover;

import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.ConnectionTimeoutException;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.ListenerClosedException;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The application's listener: one port on every adapter ({@link AdapterListeners}, threads
 * {@code tandem-failover-accept-DEVICE-k}). The first path of a new connection waits here for the
 * application's {@link #accept}. The later paths of a connection, and the paths set up again after a
 * fault, join through the device's own {@link JoinListener}, so they need no listener of the
 * application's (a JOIN that comes here anyway is passed on). Closing the listener stops its threads.
 */
final class FailoverListener implements Listener {
    private static final System.Logger LOG = System.getLogger("dev.tandem.failover");

    private final FailoverDevice device;
    private final int backlog;
    private final AdapterListeners adapters;
    private final InetSocketAddress local;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final ArrayDeque<FailoverConnectionRequest> pending = new ArrayDeque<>();
    private volatile boolean closed;

    FailoverListener(FailoverDevice device, InetSocketAddress address, int backlog) {
        if (address == null) {
            throw new InvalidArgumentException("listen: address is null");
        }
        if (backlog < 1) {
            throw new InvalidArgumentException("listen: backlog " + backlog + " must be at least 1");
        }
        this.device = device;
        this.backlog = backlog;
        int named = -1;
        for (int k = 0; k < device.adapterCount(); k++) {
            if (device.address(k).equals(address.getAddress())) {
                named = k;
            }
        }
        if (named < 0 && !address.getAddress().isAnyLocalAddress()) {
            throw new InvalidArgumentException("listen on " + address + ": device " + device.name() + " has no adapter with that address");
        }
        device.joins(); // paths join there: it listens before any connection is accepted
        this.adapters = new AdapterListeners(device, address.getPort(), true, backlog, "tandem-failover-accept", this::arrived);
        int k = named < 0 ? 0 : named;
        this.local = new InetSocketAddress(device.address(k), adapters.port(k));
    }

    private void arrived(int k, ConnectionRequest request) {
        Hello hello;
        try {
            hello = Hello.decode(request.privateData(), "peer " + request.remoteAddress());
        } catch (ConnectionException e) {
            request.reject(new byte[0]);
            LOG.log(System.Logger.Level.WARNING, device.name() + ": refused " + request.remoteAddress() + ": " + e.getMessage());
            return;
        }
        if (hello.kind() == Hello.JOIN) {
            JoinListener.join(device, k, request, hello);
            return;
        }
        lock.lock();
        try {
            if (pending.size() >= backlog || closed) {
                request.reject(new byte[0]);
                return;
            }
            pending.addLast(new FailoverConnectionRequest(this, k, request, hello));
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    FailoverDevice device() {
        return device;
    }

    /** Adapter {@code k} failed: its listener goes. */
    void release(int k) {
        adapters.release(k);
    }

    /** Adapter {@code k} is back: it listens on the same port again. */
    void rebuild(int k) {
        if (!closed) {
            adapters.rebuild(k);
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
        long left = timeout.toNanos();
        lock.lock();
        try {
            while (true) {
                if (closed) {
                    throw new ListenerClosedException("listener on " + local + " is closed");
                }
                FailoverConnectionRequest r = pending.pollFirst();
                if (r != null) {
                    return r;
                }
                if (left <= 0) {
                    throw new ConnectionTimeoutException("no connection request on " + local + " within " + timeout.toMillis() + " ms");
                }
                left = arrived.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectionTimeoutException("interrupted while waiting for a connection request on " + local);
        } finally {
            lock.unlock();
        }
    }

    /** Closes the adapters' listeners, stops the threads, refuses the requests nobody took, and wakes every waiter. */
    @Override
    public void close() {
        List<FailoverConnectionRequest> left;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            left = new ArrayList<>(pending);
            pending.clear();
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
        adapters.close();
        for (FailoverConnectionRequest r : left) {
            try {
                r.reject(new byte[0]);
            } catch (RuntimeException e) {
                // the initiator gave up already
            }
        }
        device.forget(this);
    }

    /** The threads taking requests (for tests that prove they stop). */
    List<Thread> threads() {
        return adapters.threads();
    }

    @Override
    public String toString() {
        return "Listener[" + local + " on " + device.name() + "]";
    }
}

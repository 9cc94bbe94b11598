package dev.tandem.failover;

import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.ConnectionTimeoutException;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.ListenerClosedException;
import dev.tandem.verbs.RdmaException;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Listens on one port of every adapter. A thread per adapter ({@code tandem-failover-accept-DEVICE-k})
 * takes that adapter's connection requests: the first path of a new connection waits here for the
 * application's {@link #accept}; a later path of a connection already accepted joins it at once.
 * Closing the listener stops the threads.
 */
final class FailoverListener implements Listener {
    private static final System.Logger LOG = System.getLogger("dev.tandem.failover");
    private static final int PORT_TRIES = 16;

    private final FailoverDevice device;
    private final int backlog;
    private final Listener[] under;
    private final List<InetSocketAddress> listening = new ArrayList<>();
    private final InetSocketAddress local;
    private final List<Thread> threads = new ArrayList<>();
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
        this.under = new Listener[device.adapterCount()];
        int named = -1;
        for (int k = 0; k < under.length; k++) {
            if (device.address(k).equals(address.getAddress())) {
                named = k;
            }
        }
        if (named < 0 && !address.getAddress().isAnyLocalAddress()) {
            throw new InvalidArgumentException("listen on " + address + ": device " + device.name() + " has no adapter with that address");
        }
        int port = listenEverywhere(address.getPort());
        this.local = new InetSocketAddress(device.address(named < 0 ? 0 : named), port);
        for (int k = 0; k < under.length; k++) {
            listening.add(new InetSocketAddress(device.address(k), port));
        }
        for (int k = 0; k < under.length; k++) {
            if (under[k] != null) {
                int adapter = k;
                Thread t = Thread.ofPlatform().daemon().name("tandem-failover-accept-" + device.name() + "-" + k)
                        .unstarted(() -> acceptLoop(adapter));
                synchronized (threads) {
                    threads.add(t);
                }
                t.start();
            }
        }
    }

    /** Listens on {@code port} of every usable adapter (a free port common to all when 0); returns the port. */
    private int listenEverywhere(int port) {
        RuntimeException last = null;
        for (int tries = 0; tries < (port == 0 ? PORT_TRIES : 1); tries++) {
            int chosen = port;
            try {
                for (int k = 0; k < under.length; k++) {
                    if (device.usable(k)) {
                        under[k] = device.adapter(k).listen(new InetSocketAddress(device.address(k), chosen), backlog);
                        chosen = under[k].localAddress().getPort();
                    }
                }
                return chosen;
            } catch (ConnectionException e) {
                last = e;
                closeUnder();
            }
        }
        throw last != null ? last : new ConnectionException("device " + device.name() + " has no adapter to listen on");
    }

    private void acceptLoop(int k) {
        Listener mine = under[k];
        while (!closed && mine != null && under[k] == mine) {
            ConnectionRequest request;
            try {
                request = mine.accept(Duration.ofSeconds(1));
            } catch (ConnectionTimeoutException e) {
                continue;
            } catch (ListenerClosedException e) {
                return;
            } catch (RdmaException e) {
                if (closed) {
                    return;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // the adapter failed: look again later
                continue;
            }
            try {
                arrived(k, request);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, device.name() + ": a connection request on adapter " + k + " failed: " + e.getMessage());
            }
        }
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
            FailoverQueuePair qp = device.connection(hello.connectionId());
            if (qp == null) {
                request.reject(new byte[0]);
                return;
            }
            qp.acceptJoin(k, request, hello);
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

    /** Adapter {@code k} failed: its listener goes (its thread ends with it). */
    void release(int k) {
        Listener l = under[k];
        under[k] = null;
        if (l != null) {
            try {
                l.close();
            } catch (RuntimeException e) {
                // the adapter drops it on reset
            }
        }
    }

    /** Adapter {@code k} is back: it listens on the same port again, with a thread of its own. */
    void rebuild(int k) {
        if (closed || under[k] != null) {
            return;
        }
        under[k] = device.adapter(k).listen(new InetSocketAddress(device.address(k), local.getPort()), backlog);
        Thread t = Thread.ofPlatform().daemon().name("tandem-failover-accept-" + device.name() + "-" + k).unstarted(() -> acceptLoop(k));
        synchronized (threads) {
            threads.add(t);
        }
        t.start();
    }

    List<InetSocketAddress> listening() {
        return listening;
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
        closeUnder();
        List<Thread> all;
        synchronized (threads) {
            all = List.copyOf(threads);
        }
        for (Thread t : all) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
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
        synchronized (threads) {
            return List.copyOf(threads);
        }
    }

    private void closeUnder() {
        for (int k = 0; k < under.length; k++) {
            if (under[k] != null) {
                try {
                    under[k].close();
                } catch (RuntimeException e) {
                    // a failed adapter closed it already
                }
                under[k] = null;
            }
        }
    }

    @Override
    public String toString() {
        return "Listener[" + local + " on " + device.name() + "]";
    }
}

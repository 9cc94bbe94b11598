package dev.tandem.failover;

import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.ConnectionTimeoutException;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.ListenerClosedException;
import dev.tandem.verbs.RdmaException;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A listener on every usable adapter of a fail-over device, each with a thread
 * ({@code PREFIX-DEVICE-k}) that hands its connection requests to a handler. It follows the adapters:
 * a failed adapter's listener goes ({@link #release}), and comes back on the same port after the reset
 * ({@link #rebuild}), so the addresses once told to peers stay good. {@link #close} stops the threads.
 */
final class AdapterListeners {
    /** Takes a connection request that arrived on adapter {@code k}; runs on that adapter's thread. */
    interface Handler {
        void arrived(int k, ConnectionRequest request);
    }

    private static final System.Logger LOG = System.getLogger("dev.tandem.failover");
    private static final int PORT_TRIES = 16;

    private final FailoverDevice device;
    private final String prefix;
    private final int backlog;
    private final Handler handler;
    private final Listener[] under;
    private final int[] ports;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean closed;

    /**
     * Listens on {@code port} of every usable adapter; with port 0, on a free port common to all when
     * {@code commonPort}, otherwise on a free port of each adapter's own.
     *
     * @throws ConnectionException when an adapter refuses the port, or no adapter can listen
     */
    AdapterListeners(FailoverDevice device, int port, boolean commonPort, int backlog, String prefix, Handler handler) {
        this.device = device;
        this.prefix = prefix;
        this.backlog = backlog;
        this.handler = handler;
        this.under = new Listener[device.adapterCount()];
        this.ports = new int[under.length];
        listenEverywhere(port, commonPort);
        for (int k = 0; k < under.length; k++) {
            if (under[k] != null) {
                startThread(k);
            }
        }
    }

    private void listenEverywhere(int port, boolean commonPort) {
        RuntimeException last = null;
        for (int tries = 0; tries < (port == 0 && commonPort ? PORT_TRIES : 1); tries++) {
            int chosen = port;
            boolean any = false;
            try {
                for (int k = 0; k < under.length; k++) {
                    if (device.canListen(k)) {
                        under[k] = device.adapter(k).listen(new InetSocketAddress(device.address(k), commonPort ? chosen : port), backlog);
                        ports[k] = under[k].localAddress().getPort();
                        chosen = ports[k];
                        any = true;
                    }
                }
                if (!any) {
                    break;
                }
                for (int k = 0; k < under.length; k++) {
                    if (ports[k] == 0) {
                        ports[k] = commonPort ? chosen : 0; // an adapter down now listens once it is back (on the common port)
                    }
                }
                return;
            } catch (ConnectionException e) {
                last = e;
                closeUnder();
            }
        }
        throw last != null ? last : new ConnectionException("device " + device.name() + " has no adapter to listen on");
    }

    private void startThread(int k) {
        Thread t = Thread.ofPlatform().daemon().name(prefix + "-" + device.name() + "-" + k).unstarted(() -> acceptLoop(k));
        synchronized (threads) {
            threads.add(t);
        }
        t.start();
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
                handler.arrived(k, request);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, device.name() + ": a connection request on adapter " + k + " failed: " + e.getMessage());
            }
        }
    }

    /** The port adapter {@code k} listens on (0 when it never could). */
    int port(int k) {
        return ports[k];
    }

    /** Where each adapter listens, by adapter: what peers are told. */
    List<InetSocketAddress> addresses() {
        List<InetSocketAddress> l = new ArrayList<>();
        for (int k = 0; k < under.length; k++) {
            l.add(new InetSocketAddress(device.address(k), ports[k]));
        }
        return l;
    }

    /** Adapter {@code k} failed: its listener goes (its thread ends with it). */
    void release(int k) {
        Listener l = under[k];
        under[k] = null;
        Quietly.close(l);
    }

    /** Adapter {@code k} is back: it listens on its port again, with a thread of its own (not once closed: under the lock close takes). */
    synchronized void rebuild(int k) {
        if (closed || under[k] != null) {
            return;
        }
        under[k] = device.adapter(k).listen(new InetSocketAddress(device.address(k), ports[k]), backlog);
        ports[k] = under[k].localAddress().getPort();
        startThread(k);
    }

    /** Closes the adapters' listeners and waits (bounded) for the threads to end. */
    void close() {
        synchronized (this) {
            closed = true;
            closeUnder(); // no rebuild makes one after this
        }
        for (Thread t : threads()) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The threads taking requests (for tests that prove they stop). */
    List<Thread> threads() {
        synchronized (threads) {
            return List.copyOf(threads);
        }
    }

    private void closeUnder() {
        for (int k = 0; k < under.length; k++) {
            release(k);
        }
    }
}

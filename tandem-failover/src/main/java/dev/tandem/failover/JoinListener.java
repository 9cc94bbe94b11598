package dev.tandem.failover;

import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRequest;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * The device's own listener for paths that join a connection it accepted: the later paths of a new
 * connection, and every path the peer sets up again after a fault. It listens on a port of every
 * adapter (threads {@code tandem-failover-join-DEVICE-k}) from the device's first {@code listen}
 * until the device closes, so healing never depends on a listener of the application's (closed once
 * its connections were accepted). Accepted connections tell their peers these addresses.
 */
final class JoinListener {
    private static final System.Logger LOG = System.getLogger("dev.tandem.failover");
    /** Joins are set up one at a time per adapter, and quickly: a small backlog is plenty. */
    private static final int BACKLOG = 16;

    private final AdapterListeners adapters;

    JoinListener(FailoverDevice device) {
        // one port on every adapter: an adapter that cannot listen now (it failed) listens on it once it is back,
        // where the peers told of it expect it
        this.adapters = new AdapterListeners(device, 0, true, BACKLOG, "tandem-failover-join", (k, request) -> arrived(device, k, request));
    }

    private static void arrived(FailoverDevice device, int k, ConnectionRequest request) {
        Hello hello;
        try {
            hello = Hello.decode(request.privateData(), "peer " + request.remoteAddress());
        } catch (ConnectionException e) {
            request.reject(new byte[0]);
            LOG.log(System.Logger.Level.WARNING, device.name() + ": refused a path from " + request.remoteAddress() + ": " + e.getMessage());
            return;
        }
        if (hello.kind() != Hello.JOIN) {
            request.reject(new byte[0]);
            LOG.log(System.Logger.Level.WARNING, device.name() + ": refused " + request.remoteAddress()
                    + ": a new connection came to the port where paths join; connect to the application's listener");
            return;
        }
        join(device, k, request, hello);
    }

    /** A path that joins the connection {@code hello} names, on adapter {@code k}; refused when the device has no such connection. */
    static void join(FailoverDevice device, int k, ConnectionRequest request, Hello hello) {
        FailoverQueuePair qp = device.connection(hello.connectionId());
        if (qp == null) {
            request.reject(new byte[0]);
            return;
        }
        qp.setup().acceptJoin(k, request, hello);
    }

    /** Where paths join, by adapter: what an accepted connection tells its peer. */
    List<InetSocketAddress> addresses() {
        return adapters.addresses();
    }

    void release(int k) {
        adapters.release(k);
    }

    void rebuild(int k) {
        try {
            adapters.rebuild(k);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "paths cannot join on adapter " + k + " again: " + e.getMessage());
        }
    }

    void close() {
        adapters.close();
    }

    List<Thread> threads() {
        return adapters.threads();
    }
}

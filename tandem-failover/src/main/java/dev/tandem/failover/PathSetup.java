package dev.tandem.failover;

import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRejectedException;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;

/**
 * How a connection's paths are set up: the first path by connect or accept (with the hellos that carry
 * where the other paths join and where each side receives), the other paths joining it (adapter k to
 * adapter k in switchless, the peer's unused adapters in switched), and, after a fault, a path set up
 * again with a fresh QP once its adapter works (the healer thread, from the connecting side).
 */
final class PathSetup {
    private static final SecureRandom IDS = new SecureRandom();

    private final FailoverQueuePair qp;

    PathSetup(FailoverQueuePair qp) {
        this.qp = qp;
    }

    /** The first path (on adapter {@code k}) is set up with the peer of {@code theirs}: IRD and ORD are negotiated. */
    private void firstPathUp(long id, Hello theirs, int k, boolean connecting) {
        qp.lock.lock();
        try {
            qp.connectionId = id;
            qp.peer = theirs;
            qp.firstPath = k;
            qp.connectedActively = connecting;
            qp.peerOf[k] = theirs.pathIndex();
            qp.negotiatedOrd = Math.min(qp.config.ord(), theirs.ird());
            qp.negotiatedIrd = Math.min(qp.config.ird(), theirs.ord());
        } finally {
            qp.lock.unlock();
        }
    }

    /** Connects: the first path to {@code remote}, then the other paths join it; the peer's hello names where Sends go. */
    byte[] connect(InetSocketAddress remote, byte[] privateData, Duration timeout) {
        qp.checkUsable();
        if (remote == null || timeout == null) {
            throw new InvalidArgumentException("connect: remote and timeout must not be null");
        }
        byte[] data = privateData == null ? new byte[0] : privateData;
        qp.checkPrivateData(data);
        if (qp.state != QpState.INIT) {
            throw new InvalidStateException("connect on QP " + qp.qpNumber + " in state " + qp.state + "; a QP connects from INIT");
        }
        int first = firstAdapterFor(remote.getAddress());
        long id = IDS.nextLong();
        Hello mine = hello(Hello.CONNECT, first, id, List.of(), data);
        byte[] reply;
        try {
            reply = qp.under[first].connect(remote, mine.encode(), timeout);
        } catch (ConnectionRejectedException e) {
            Hello no = Hello.decode(e.privateData(), "peer " + remote);
            throw new ConnectionRejectedException(e.getMessage(), no.data());
        }
        Hello theirs;
        try {
            theirs = Hello.decode(reply, "peer " + remote);
        } catch (ConnectionException e) {
            qp.under[first].disconnect();
            throw e;
        }
        firstPathUp(id, theirs, first, true);
        joinOtherPaths(theirs, first, timeout);
        qp.lock.lock();
        try {
            int path = qp.pathTo(theirs.recvAdapter());
            if (path < 0) {
                qp.disconnectAll();
                throw new ConnectionException("no path of " + qp.device.name() + " reaches adapter " + theirs.recvAdapter() + " of node "
                        + theirs.node() + ", where the peer receives this connection");
            }
            qp.sendPath = path;
            qp.state = QpState.RTS;
            qp.pathReady.signalAll();
        } finally {
            qp.lock.unlock();
        }
        qp.device.monitor().connected(qp);
        return theirs.data();
    }

    /** The first path's adapter: the one cabled to {@code remote} (switchless), else this QP's receive adapter. */
    private int firstAdapterFor(InetAddress remote) {
        if (qp.device.config().topology() == Topology.SWITCHED && qp.under[qp.recvAdapter] != null) {
            return qp.recvAdapter;
        }
        int best = -1;
        int bestBits = -1;
        for (int k = 0; k < qp.under.length; k++) {
            if (qp.under[k] != null) {
                int bits = commonPrefixBits(qp.device.address(k), remote);
                if (bits > bestBits) {
                    best = k;
                    bestBits = bits;
                }
            }
        }
        if (best < 0) {
            throw new dev.tandem.verbs.DeviceUnavailableException("no adapter of " + qp.device.name() + " can carry work");
        }
        return best;
    }

    private static int commonPrefixBits(InetAddress a, InetAddress b) {
        byte[] x = a.getAddress();
        byte[] y = b.getAddress();
        if (x.length != y.length) {
            return -1;
        }
        int bits = 0;
        for (int i = 0; i < x.length; i++) {
            int diff = (x[i] ^ y[i]) & 0xFF;
            if (diff != 0) {
                return bits + Integer.numberOfLeadingZeros(diff) - 24;
            }
            bits += 8;
        }
        return bits;
    }

    /** Sets up a path on every other adapter: to adapter k of the peer (switchless), else to the peer's adapters not yet used. */
    private void joinOtherPaths(Hello theirs, int first, Duration timeout) {
        boolean[] used = new boolean[Math.max(theirs.adapters().size(), 1)];
        if (theirs.pathIndex() < used.length) {
            used[theirs.pathIndex()] = true;
        }
        for (int k = 0; k < qp.under.length; k++) {
            if (k == first || qp.under[k] == null) {
                continue;
            }
            int target = -1;
            if (qp.device.config().topology() == Topology.SWITCHLESS) {
                target = k < theirs.adapters().size() ? k : -1;
            } else {
                for (int r = 0; r < theirs.adapters().size(); r++) {
                    if (!used[r]) {
                        target = r;
                        break;
                    }
                }
            }
            if (target < 0 || target == theirs.pathIndex()) {
                continue;
            }
            used[target] = true;
            try {
                byte[] reply = qp.under[k].connect(theirs.adapters().get(target), hello(Hello.JOIN, k, qp.connectionId, List.of(), new byte[0]).encode(),
                        timeout);
                Hello ok = Hello.decode(reply, "peer adapter " + target);
                qp.lock.lock();
                try {
                    qp.peerOf[k] = ok.pathIndex();
                } finally {
                    qp.lock.unlock();
                }
            } catch (RuntimeException e) {
                System.getLogger("dev.tandem.failover").log(System.Logger.Level.WARNING, qp.device.name() + " QP " + qp.qpNumber
                        + ": no path from adapter " + k + " to adapter " + target + " of " + theirs.node() + ": " + e.getMessage());
            }
        }
    }

    /** Accepts the first path of a connection, which arrived on adapter {@code k}. */
    void acceptFirst(int k, ConnectionRequest request, Hello theirs, byte[] privateData, List<InetSocketAddress> listening) {
        qp.checkUsable();
        byte[] data = privateData == null ? new byte[0] : privateData;
        qp.checkPrivateData(data);
        if (qp.state != QpState.INIT) {
            throw new InvalidStateException("accept onto QP " + qp.qpNumber + " in state " + qp.state + "; a QP accepts from INIT");
        }
        if (qp.under[k] == null) {
            throw new InvalidStateException("QP " + qp.qpNumber + " has no queue pair on adapter " + k + " where the request arrived");
        }
        firstPathUp(theirs.connectionId(), theirs, k, false);
        qp.device.connected(qp.connectionId, qp);
        try {
            request.accept(qp.under[k], hello(Hello.ACCEPT, k, qp.connectionId, listening, data).encode());
        } catch (RuntimeException e) {
            qp.device.disconnected(qp.connectionId);
            throw e;
        }
        qp.lock.lock();
        try {
            qp.state = QpState.RTS;
            if (qp.peerOf[k] == theirs.recvAdapter()) {
                qp.sendPath = k;
            }
            qp.pathReady.signalAll();
        } finally {
            qp.lock.unlock();
        }
        qp.device.monitor().connected(qp);
    }

    /** The peer set up another path of this connection, arriving on adapter {@code k}. */
    void acceptJoin(int k, ConnectionRequest request, Hello theirs) {
        QueuePair q = qp.under[k];
        if (q != null && q.state() != QpState.INIT && qp.pathDead[k]) {
            q = renew(k); // the path failed before: a fresh QP takes the peer's new attempt
        }
        if (q == null || q.state() != QpState.INIT) {
            request.reject(hello(Hello.REJECT, k, theirs.connectionId(), List.of(), new byte[0]).encode());
            return;
        }
        request.accept(q, hello(Hello.ACCEPT, k, theirs.connectionId(), List.of(), new byte[0]).encode());
        boolean restored = qp.pathDead[k];
        if (restored) {
            qp.device.tell(new FailoverEvent.PathRestored(System.nanoTime(), qp.qpNumber, k));
        }
        qp.lock.lock();
        try {
            qp.pathDead[k] = false;
            qp.heartbeatSent.set(k, 0);
            qp.peerOf[k] = theirs.pathIndex();
            if (qp.sendPath < 0 && qp.peer != null && qp.peerOf[k] == qp.peer.recvAdapter()) {
                qp.sendPath = k;
            }
            qp.pathReady.signalAll();
        } finally {
            qp.lock.unlock();
        }
    }

    /** The hello of this side for a path on adapter {@code k}. */
    Hello hello(int kind, int k, long id, List<InetSocketAddress> listening, byte[] data) {
        return new Hello(kind, k, id, qp.pd.proofRegion().rkey(), qp.config.ird(), qp.config.ord(), qp.qpNumber, qp.device.keys().incarnation(),
                qp.recvAdapter, qp.mailbox.stag(), qp.device.config().nodeName(), listening, data);
    }

    /**
     * Sets up again, from the side that connected, each path that failed and whose adapter works again
     * (the peer's side of it may still be down: then the attempt fails and the next round tries again).
     * The healer thread runs it; a path set up joins the backups.
     */
    void rejoin(Duration timeout) {
        if (!qp.connected() || !qp.connectedActively || qp.migration != null) {
            return;
        }
        for (int k = 0; k < qp.under.length; k++) {
            QueuePair q = qp.under[k];
            int target = qp.peerOf[k];
            if (!qp.pathDead[k] || q == null || !qp.device.usable(k) || target < 0 || target >= qp.peer.adapters().size()) {
                continue;
            }
            if (q.state() != QpState.INIT) {
                q = renew(k);
                if (q == null) {
                    continue;
                }
            }
            try {
                byte[] reply = q.connect(qp.peer.adapters().get(target), hello(Hello.JOIN, k, qp.connectionId, List.of(), new byte[0]).encode(),
                        timeout);
                Hello ok = Hello.decode(reply, "peer adapter " + target);
                qp.lock.lock();
                try {
                    qp.peerOf[k] = ok.pathIndex();
                    qp.heartbeatSent.set(k, 0);
                    qp.pathDead[k] = false;
                } finally {
                    qp.lock.unlock();
                }
                qp.device.tell(new FailoverEvent.PathRestored(System.nanoTime(), qp.qpNumber, k));
            } catch (RuntimeException e) {
                // the peer's side is not back yet: the next round tries again
            }
        }
    }

    /**
     * A fresh QP on adapter {@code k} in place of the one its failed path left: the old one's late
     * completions then carry a QP number no longer routed here, and are dropped. Null when the adapter
     * refuses one.
     */
    private QueuePair renew(int k) {
        qp.lock.lock();
        try {
            QueuePair old = qp.under[k];
            if (old != null) {
                qp.device.unroute(k, old.qpNumber());
                Quietly.close(old); // it failed with its path
            }
            qp.under[k] = null;
            try {
                qp.under[k] = qp.pd.under(k).createQueuePair(qp.adapterConfig(k));
            } catch (RuntimeException e) {
                return null;
            }
            qp.device.route(k, qp.under[k].qpNumber(), qp);
            return qp.under[k];
        } finally {
            qp.lock.unlock();
        }
    }

    /** Adapter {@code k} is back: this connection gets a QP there again, in INIT, for its path to be set up again. */
    void rebuild(int k) {
        qp.lock.lock();
        try {
            if (qp.closed || qp.under[k] != null || qp.pd.under(k) == null || qp.sendCq.under(k) == null || qp.receiveCq.under(k) == null) {
                return;
            }
            qp.under[k] = qp.pd.under(k).createQueuePair(qp.adapterConfig(k));
            qp.device.route(k, qp.under[k].qpNumber(), qp);
        } finally {
            qp.lock.unlock();
        }
    }

    /** Adapter {@code k} failed: this connection's QP there goes (its path is dead already, or was never set up). */
    void release(int k) {
        QueuePair q;
        qp.lock.lock();
        try {
            q = qp.under[k];
            qp.under[k] = null;
            qp.pathDead[k] = true;
            qp.heartbeatSent.set(k, 0);
        } finally {
            qp.lock.unlock();
        }
        if (q != null) {
            qp.device.unroute(k, q.qpNumber());
            Quietly.close(q);
        }
    }
}

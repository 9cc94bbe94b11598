package dev.tandem.failover;

import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRejectedException;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.ConnectionTimeoutException;
import dev.tandem.verbs.DeviceUnavailableException;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;

/**
 * How a connection's paths are set up. The connecting side sets up the first path (connect, with the
 * hellos that say where each side receives and where the other paths join), then every other path the
 * topology has ({@link Paths#expected}: cross paths too when switched), all within the one deadline of
 * the connect; after a fault it sets a path up again, with a fresh QP and the next generation, once its
 * adapter works (the healer thread). The accepting side takes the first path and each join, and posts
 * its receives on its receive path's QP before that path is accepted, so that no Send ever finds it
 * without a buffer.
 */
final class PathSetup {
    private static final SecureRandom IDS = new SecureRandom();

    private final FailoverQueuePair qp;

    PathSetup(FailoverQueuePair qp) {
        this.qp = qp;
    }

    /**
     * An adapter QP's shape: room for the header element, the proofs (an INLINE mark and a Read each), the
     * heartbeat and the layer's own Writes, and the receives (a QP of an SRQ has none of its own).
     */
    private QueuePairConfig adapterConfig(int k) {
        return new QueuePairConfig(qp.sendCq.under(k), qp.receiveCq.under(k), qp.srq == null ? null : qp.srq.under(k),
                2 * qp.config.sendDepth() + FailoverQueuePair.PROOF_SLOTS, qp.srq == null ? qp.config.receiveDepth() : 1,
                qp.config.maxSendSge() + 1, qp.config.maxReceiveSge() + 1,
                Math.max(8, qp.config.maxInlineData() == 0 ? 0 : qp.config.maxInlineData() + FailoverHeader.LENGTH),
                qp.config.ird() + 2, qp.config.ord() + 2, false);
    }

    /** Whether adapter {@code k} can hold a QP of this connection now (its CQs, PD and SRQ are there). */
    private boolean canHoldQp(int k) {
        return qp.device.usable(k) && qp.pd.under(k) != null && qp.sendCq.under(k) != null && qp.receiveCq.under(k) != null
                && (qp.srq == null || qp.srq.under(k) != null);
    }

    /** A new adapter QP on adapter {@code k} for path {@code path}, routed to it. Lock held. */
    private QueuePair newQp(Path path) {
        QueuePair q = qp.pd.under(path.local).createQueuePair(adapterConfig(path.local));
        path.qp = q;
        qp.device.route(path.local, q.qpNumber(), new FailoverDevice.Route(qp, path));
        return q;
    }

    /** Closes path {@code p}'s QP (it failed, or its adapter goes) and unroutes it. Lock held. */
    void dropQp(Path p) {
        QueuePair q = p.qp;
        p.qp = null;
        p.up = false;
        if (q != null) {
            qp.device.unroute(p.local, q.qpNumber());
            Quietly.close(q);
        }
    }

    /** Closes path {@code p}'s QP if it is still {@code q} (a set-up that failed); takes the lock. */
    private void dropQpIfStill(Path p, QueuePair q) {
        qp.lock.lock();
        try {
            if (p.qp == q) {
                dropQp(p);
            }
        } finally {
            qp.lock.unlock();
        }
    }

    /** Checks the private data of a connect or accept against the device's maximum. */
    private void checkPrivateData(byte[] data) {
        int max = qp.device.attributes().maxPrivateData();
        if (data.length > max) {
            throw new InvalidArgumentException("private data of " + data.length + " bytes exceeds the maximum of " + max
                    + " (DeviceAttributes.maxPrivateData)");
        }
    }

    /**
     * Connects: the first path to {@code remote}, then the other paths join it; returns when the paths
     * this side sends and receives on are up, within {@code timeout} in all.
     */
    byte[] connect(InetSocketAddress remote, byte[] privateData, Duration timeout) {
        qp.checkUsable();
        if (remote == null || timeout == null) {
            throw new InvalidArgumentException("connect: remote and timeout must not be null");
        }
        byte[] data = privateData == null ? new byte[0] : privateData;
        checkPrivateData(data);
        long deadline = System.nanoTime() + timeout.toNanos();
        int first = firstAdapterFor(remote.getAddress());
        boolean switched = qp.device.config().topology() == Topology.SWITCHED;
        // switched: this side receives on the first path (its adapter is the receive adapter); switchless: on its cable
        boolean receiveOnFirst = first == qp.receiveAdapter();
        Path firstPath = new Path(Paths.NONE, first, -1);
        QueuePair q;
        long id = IDS.nextLong();
        qp.lock.lock();
        try {
            if (qp.state != QpState.INIT) {
                throw new InvalidStateException("connect on QP " + qp.qpNumber + " in state " + qp.state + "; a QP connects from INIT");
            }
            qp.paths.role(true);
            q = newQp(firstPath);
            firstPath.generation = 1;
            if (receiveOnFirst) {
                qp.receivePosting().postAllOn(firstPath);
            }
        } finally {
            qp.lock.unlock();
        }
        int receivePath = receiveOnFirst ? Hello.THIS_PATH : Paths.id(qp.receiveAdapter(), qp.receiveAdapter());
        Hello mine = hello(Hello.CONNECT, first, 1, receivePath, id, List.of(), data);
        byte[] reply;
        try {
            reply = q.connect(remote, mine.encode(), left(deadline, timeout));
        } catch (ConnectionRejectedException e) {
            dropFirst(firstPath);
            Hello no = Hello.decode(e.privateData(), "peer " + remote);
            throw new ConnectionRejectedException(e.getMessage(), no.data());
        } catch (RuntimeException e) {
            dropFirst(firstPath);
            throw e;
        }
        Hello theirs;
        try {
            theirs = Hello.decode(reply, "peer " + remote);
        } catch (ConnectionException e) {
            q.disconnect();
            dropFirst(firstPath);
            throw e;
        }
        qp.lock.lock();
        try {
            int firstId = Paths.id(first, theirs.pathIndex());
            qp.paths.register(firstPath, firstId, theirs.pathIndex());
            firstPath.up = true;
            qp.connectionId = id;
            qp.peer = theirs;
            qp.firstPath = firstId;
            qp.negotiatedOrd = Math.min(qp.config.ord(), theirs.ird());
            qp.negotiatedIrd = Math.min(qp.config.ird(), theirs.ord());
            qp.paths.receive = receiveOnFirst ? firstId : receivePath;
            qp.paths.send = theirs.receivePath() == Hello.THIS_PATH ? firstId : theirs.receivePath();
        } finally {
            qp.lock.unlock();
        }
        // only the paths the connection needs now (where each side receives) are set up within the connect's
        // deadline; the backups join in the background (the healer), so a dark adapter of the peer costs no time here
        for (int path : new int[] {qp.paths.receive, qp.paths.send}) {
            if (path != qp.firstPath) {
                join(path, deadline, timeout);
            }
        }
        qp.lock.lock();
        try {
            Path in = qp.paths.receivePath();
            Path out = qp.paths.sendPath();
            if (in == null || !in.up || out == null || !out.up) {
                String which = in == null || !in.up ? "this side receives on, " + qp.paths.describe(qp.paths.receive)
                        : "the peer receives on, " + qp.paths.describe(qp.paths.send);
                qp.ends().disconnectAll();
                for (Path p : qp.paths.all()) {
                    dropQp(p);
                }
                qp.paths.clear();
                qp.peer = null;
                qp.connectionId = 0;
                throw new ConnectionException("no path of " + qp.device.name() + " to node " + theirs.node() + " could be set up where "
                        + which + (switched ? "" : " (switchless: adapter k reaches the peer's adapter k only)"));
            }
            qp.state = QpState.RTS;
            qp.pathReady.signalAll();
        } finally {
            qp.lock.unlock();
        }
        qp.device.monitor().connected(qp);
        qp.device.monitor().heal(); // the backup paths join now, in the background
        return theirs.data();
    }

    private void dropFirst(Path firstPath) {
        qp.lock.lock();
        try {
            dropQp(firstPath);
        } finally {
            qp.lock.unlock();
        }
    }

    private static Duration left(long deadline, Duration timeout) {
        long nanos = deadline - System.nanoTime();
        if (nanos <= 0) {
            throw new ConnectionTimeoutException("connect did not finish within " + timeout.toMillis() + " ms");
        }
        return Duration.ofNanos(nanos);
    }

    /** The first path's adapter: this QP's receive adapter (switched), else the one cabled to {@code remote} (switchless). */
    private int firstAdapterFor(InetAddress remote) {
        if (qp.device.config().topology() == Topology.SWITCHED && canHoldQp(qp.receiveAdapter())) {
            return qp.receiveAdapter();
        }
        int best = -1;
        int bestBits = -1;
        for (int k = 0; k < qp.device.adapterCount(); k++) {
            if (canHoldQp(k)) {
                int bits = commonPrefixBits(qp.device.address(k), remote);
                if (bits > bestBits) {
                    best = k;
                    bestBits = bits;
                }
            }
        }
        if (best < 0) {
            throw new DeviceUnavailableException("no adapter of " + qp.device.name() + " can carry work");
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

    /**
     * Sets path {@code id} up (again) from this, the connecting side, with a fresh QP and the next
     * generation; true when it is up. What waited for it (receives on the receive path, requests on the
     * send path) is posted once it is.
     */
    private boolean join(int id, long deadline, Duration timeout) {
        Hello peer = qp.peer;
        int c = Paths.connectingEnd(id);
        int s = Paths.acceptingEnd(id);
        if (peer == null || !canHoldQp(c) || s >= peer.adapters().size()) {
            return false;
        }
        Path p;
        QueuePair q;
        boolean again;
        qp.lock.lock();
        try {
            p = qp.paths.ensure(id);
            if (p.up || qp.closed) {
                return p.up;
            }
            again = p.generation > 0;
            if (p.qp != null) {
                dropQp(p);
            }
            p.generation = p.generation % 0xFFFF + 1; // 16 bits in a hello, never 0
            p.freshSetUp();
            q = newQp(p);
            if (id == qp.paths.receive && !qp.moves().receivesMoving()) {
                qp.receivePosting().postAllOn(p); // the receives wait for this path (switchless: this side's cable)
            }
        } finally {
            qp.lock.unlock();
        }
        try {
            Duration wait = left(deadline, timeout);
            byte[] reply = q.connect(peer.adapters().get(s), hello(Hello.JOIN, c, p.generation, Hello.THIS_PATH, qp.connectionId,
                    List.of(), new byte[0]).encode(), wait);
            Hello.decode(reply, "peer adapter " + s);
        } catch (RuntimeException e) {
            dropQpIfStill(p, q);
            return false;
        }
        return cameUp(p, q, again);
    }

    /**
     * Path {@code p} came up on {@code q}: what waited for it goes now, and a path set up again is told;
     * false when it left that QP (or the connection was closed) meanwhile.
     */
    private boolean cameUp(Path p, QueuePair q, boolean again) {
        qp.lock.lock();
        try {
            if (p.qp != q || qp.closed) {
                return false;
            }
            p.up = true;
            p.freshSetUp();
            pathUp(p);
        } finally {
            qp.lock.unlock();
        }
        if (again) {
            qp.device.tell(new FailoverEvent.PathRestored(System.nanoTime(), qp.qpNumber, p.local));
        }
        return true;
    }

    /** Path {@code p} is up: what waited for it goes now (the receives on the receive path, the requests on the send path). Lock held. */
    private void pathUp(Path p) {
        if (p.id == qp.paths.receive && qp.state != QpState.ERROR && !qp.moves().receivesMoving()) {
            qp.receivePosting().postAllOn(p);
        }
        if ((p.id == qp.paths.send || p.id == qp.paths.receive) && qp.state != QpState.ERROR && !qp.moves().sendMoving()) {
            qp.sending().postPending(); // the requests on the send path, and the windows' binds on the receive path
        }
        qp.pathReady.signalAll();
    }

    /**
     * Accepts the first path of a connection, which arrived on adapter {@code k}: this side receives on the
     * path from the peer's receive adapter to its own (switched: a cross path if need be), or on its cable
     * (switchless), and posts its receives there before that path is accepted.
     */
    void acceptFirst(int k, ConnectionRequest request, Hello theirs, byte[] privateData, List<InetSocketAddress> listening) {
        qp.checkUsable();
        byte[] data = privateData == null ? new byte[0] : privateData;
        checkPrivateData(data);
        boolean switched = qp.device.config().topology() == Topology.SWITCHED;
        int firstId = Paths.id(theirs.pathIndex(), k);
        int receive = switched ? Paths.id(theirs.recvAdapter(), qp.receiveAdapter()) : Paths.id(qp.receiveAdapter(), qp.receiveAdapter());
        Path p;
        qp.lock.lock();
        try {
            if (qp.state != QpState.INIT) {
                throw new InvalidStateException("accept onto QP " + qp.qpNumber + " in state " + qp.state + "; a QP accepts from INIT");
            }
            if (!canHoldQp(k)) {
                throw new InvalidStateException("QP " + qp.qpNumber + " cannot hold a path on adapter " + k + " where the request arrived");
            }
            qp.paths.role(false);
            qp.connectionId = theirs.connectionId();
            qp.peer = theirs;
            qp.firstPath = firstId;
            qp.negotiatedOrd = Math.min(qp.config.ord(), theirs.ird());
            qp.negotiatedIrd = Math.min(qp.config.ird(), theirs.ord());
            qp.paths.receive = receive;
            qp.paths.send = theirs.receivePath() == Hello.THIS_PATH ? firstId : theirs.receivePath();
            p = qp.paths.ensure(firstId);
            p.generation = theirs.generation();
            newQp(p);
            if (firstId == receive) {
                qp.receivePosting().postAllOn(p);
            }
        } finally {
            qp.lock.unlock();
        }
        qp.device.connected(qp.connectionId, qp);
        try {
            request.accept(p.qp, hello(Hello.ACCEPT, k, p.generation, receive, qp.connectionId, listening, data).encode());
        } catch (RuntimeException e) {
            qp.device.disconnected(qp.connectionId);
            qp.lock.lock();
            try {
                dropQp(p);
                qp.paths.clear();
                qp.peer = null;
                qp.connectionId = 0;
            } finally {
                qp.lock.unlock();
            }
            throw e;
        }
        qp.lock.lock();
        try {
            p.up = true;
            qp.state = QpState.RTS;
            pathUp(p);
        } finally {
            qp.lock.unlock();
        }
        qp.device.monitor().connected(qp);
    }

    /**
     * The peer sets up path {@code id} of this connection (the first time, or again with a newer generation
     * after it failed), arriving on adapter {@code k}. Refused while this side still has that path up: the
     * peer tries again once this side, too, found it failed.
     */
    void acceptJoin(int k, ConnectionRequest request, Hello theirs) {
        int id = Paths.id(theirs.pathIndex(), k);
        Path p;
        boolean again;
        qp.lock.lock();
        try {
            p = qp.paths.ensure(id);
            if (qp.peer == null || qp.closed || qp.state == QpState.ERROR || p.up || !canHoldQp(k)
                    || theirs.generation() == p.generation) {
                p = null;
                again = false;
            } else {
                again = p.generation > 0;
                if (p.qp != null) {
                    dropQp(p); // the set-up that failed before: its late completions are dropped
                }
                p.generation = theirs.generation();
                p.freshSetUp();
                newQp(p);
                if (id == qp.paths.receive && !qp.moves().receivesMoving()) {
                    qp.receivePosting().postAllOn(p); // the receives wait for this path: posted before the peer can send there
                }
            }
        } finally {
            qp.lock.unlock();
        }
        if (p == null) {
            request.reject(hello(Hello.REJECT, k, 0, Hello.THIS_PATH, theirs.connectionId(), List.of(), new byte[0]).encode());
            return;
        }
        QueuePair q = p.qp;
        try {
            request.accept(q, hello(Hello.ACCEPT, k, p.generation, qp.paths.receive, theirs.connectionId(), List.of(), new byte[0]).encode());
        } catch (RuntimeException e) {
            dropQpIfStill(p, q);
            return;
        }
        cameUp(p, q, again);
    }

    /** The hello of this side for a path on adapter {@code k} ({@code generation} of its set-up). */
    Hello hello(int kind, int k, int generation, int receivePath, long id, List<InetSocketAddress> listening, byte[] data) {
        return new Hello(kind, k, id, qp.pd.proofRegion().rkey(), qp.config.ird(), qp.config.ord(), qp.qpNumber, qp.device.keys().incarnation(),
                qp.receiveAdapter(), receivePath, generation, qp.mailbox.stag(), qp.session(), qp.device.config().nodeName(), listening, data);
    }

    /**
     * Sets up again, from the side that connected, each path the topology has that is not up and whose
     * adapter works (the peer's side of it may still be down: then the attempt fails and the next round
     * tries again). The healer thread runs it; a path set up joins the backups.
     */
    void rejoin(Duration timeout) {
        Hello peer = qp.peer;
        if (!qp.connected() || !qp.paths.connecting() || peer == null) {
            return;
        }
        for (int id : Paths.expected(qp.device.config().topology(), qp.device.adapterCount(), peer.adapters().size())) {
            Path p = qp.paths.get(id);
            if (p != null && p.up) {
                continue;
            }
            if (!canHoldQp(Paths.connectingEnd(id))) {
                continue;
            }
            join(id, System.nanoTime() + timeout.toNanos(), timeout);
        }
    }

    /** Adapter {@code k} failed: this connection's QPs there go (their paths failed with it, or never carried). */
    void release(int k) {
        qp.lock.lock();
        try {
            for (Path p : qp.paths.on(k)) {
                dropQp(p);
            }
        } finally {
            qp.lock.unlock();
        }
    }
}

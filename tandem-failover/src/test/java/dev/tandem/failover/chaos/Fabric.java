package dev.tandem.failover.chaos;

import dev.tandem.failover.FailoverConfig;
import dev.tandem.failover.FailoverDevice;
import dev.tandem.failover.Topology;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionChannel;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.RdmaDevices;
import dev.tandem.verbs.SharedReceiveQueue;

import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The two nodes of a scenario and everything the application made on them: per node two protection
 * domains (sessions take the adapters in turn), its driver threads each with a completion channel, the
 * ends of every connection (the connection's PD alternates), shared receive queues at the server in
 * request/response scenarios, and the connections themselves, made through a listener of each
 * serving node that accepts them by the connection number in their private data and then closes.
 */
final class Fabric {
    static final Duration CONNECT = Duration.ofSeconds(10);
    static final int MAX_MESSAGE = 2048;
    static final int MAX_WRITE = 4096;
    static final int KNOWN = 16 * 1024;

    final ScenarioSpec spec;
    final TrafficModel model;
    final Resources resources = new Resources();
    final FailoverDevice[] nodes = new FailoverDevice[2];
    final List<EndPoint> ends = new ArrayList<>();
    final List<Driver> drivers = new ArrayList<>();
    /** streams[connection][from - 1]. */
    final StreamState[][] streams;
    private final Findings findings;
    private final TrafficClock clock;
    EventLog events;

    private Fabric(ScenarioSpec spec, Findings findings, TrafficClock clock) {
        this.spec = spec;
        this.findings = findings;
        this.clock = clock;
        int server = spec.requestResponse() ? 1 + new SplittableRandom(Seeds.mix(spec.seed(), 2)).nextInt(2) : 0;
        this.model = new TrafficModel(spec.seed(), MAX_MESSAGE, MAX_WRITE, KNOWN, server);
        this.streams = new StreamState[spec.connections()][2];
        for (int c = 0; c < spec.connections(); c++) {
            streams[c][0] = new StreamState(c, Nodes.A);
            streams[c][1] = new StreamState(c, Nodes.B);
        }
    }

    FailoverDevice node(int node) {
        return nodes[node - 1];
    }

    StreamState stream(int connection, int from) {
        return streams[connection][from - 1];
    }

    /** A fabric for {@code spec}, nothing opened yet. */
    static Fabric of(ScenarioSpec spec, Findings findings, TrafficClock clock) {
        return new Fabric(spec, findings, clock);
    }

    /** Opens the nodes and makes every end and connection; what was made so far is in {@link #resources} also when it throws. */
    void build() throws Exception {
        SplittableRandom r = new SplittableRandom(Seeds.mix(spec.seed(), 3));
        Arena arena = resources.keep(Resources.Group.ARENA, Arena.ofShared());
        for (int n = Nodes.A; n <= Nodes.B; n++) {
            nodes[n - 1] = resources.keep(Resources.Group.DEVICE, openNode(n));
        }
        events = new EventLog(nodes[0], nodes[1], resources, clock);
        boolean errorsAllowed = !spec.kind().survivable();
        // per node: two sessions, its drivers
        ProtectionDomain[][] pds = new ProtectionDomain[2][2];
        List<List<Driver>> nodeDrivers = new ArrayList<>();
        for (int n = Nodes.A; n <= Nodes.B; n++) {
            for (int p = 0; p < 2; p++) {
                pds[n - 1][p] = resources.keep(Resources.Group.PD, nodes[n - 1].allocateProtectionDomain());
            }
            List<Driver> ds = new ArrayList<>();
            for (int i = 0; i < spec.driversPerNode(); i++) {
                CompletionChannel ch = resources.keep(Resources.Group.CHANNEL, new CompletionChannel());
                Driver d = new Driver("chaos-driver-" + Nodes.name(n) + "-" + i, ch, clock, findings);
                ds.add(d);
                drivers.add(d);
            }
            nodeDrivers.add(ds);
        }
        int server = model.server();
        // the server's shared receive queues, one per PD, each sized for the credits of its connections
        EndShape[][] shapes = new EndShape[spec.connections()][2];
        for (int c = 0; c < spec.connections(); c++) {
            shapes[c][0] = EndShape.draw(r, spec.windows());
            shapes[c][1] = EndShape.draw(r, spec.windows());
        }
        ReceiveBuffers[] shared = new ReceiveBuffers[2];
        SharedReceiveQueue[] srqs = new SharedReceiveQueue[2];
        if (server != 0) {
            for (int p = 0; p < 2; p++) {
                int count = 0;
                for (int c = p; c < spec.connections(); c += 2) {
                    count += shapes[c][server - 1].receiveCredits();
                }
                ProtectionDomain pd = pds[server - 1][p];
                srqs[p] = resources.keep(Resources.Group.SRQ, pd.createSharedReceiveQueue(count, 3));
                MemoryRegion mr = resources.keep(Resources.Group.MR, pd.registerMemory(
                        arena.allocate(ReceiveBuffers.regionSize(count, MAX_MESSAGE), 64), Access.LOCAL_WRITE));
                shared[p] = ReceiveBuffers.shared(srqs[p], mr, count, MAX_MESSAGE, 0x4000 + p);
                for (int b = 0; b < count; b++) {
                    shared[p].post(b, r);
                }
            }
        }
        // the ends: connection c's client connects, its server accepts
        int[] clients = new int[spec.connections()];
        for (int c = 0; c < spec.connections(); c++) {
            clients[c] = server != 0 ? Nodes.other(server) : 1 + r.nextInt(2);
            for (int n = Nodes.A; n <= Nodes.B; n++) {
                int p = c % 2;
                boolean serves = server == n;
                SendSide.Role role = server == 0 ? SendSide.Role.PEER : serves ? SendSide.Role.SERVER : SendSide.Role.CLIENT;
                List<Driver> ds = nodeDrivers.get(n - 1);
                Driver d = ds.get(c % ds.size());
                EndPoint e = EndPoint.create(ends.size(), c, n, role, shapes[c][n - 1], nodes[n - 1], pds[n - 1][p], d.channel(),
                        serves ? srqs[p] : null, serves ? shared[p] : null, arena, model, resources,
                        new SplittableRandom(Seeds.mix(spec.seed(), 4, c, n)), errorsAllowed);
                ends.add(e);
                d.add(e);
            }
        }
        connectAll(clients, r);
        for (EndPoint e : ends) { // a window's rkey goes to the peer in this process, before any traffic
            end(e.connection(), Nodes.other(e.node())).peerWindowRkey = e.bindWindow(CONNECT, findings, r);
        }
        for (EndPoint e : ends) {
            e.start(e.peerKeys, model, stream(e.connection(), e.node()), stream(e.connection(), Nodes.other(e.node())), findings,
                    new SplittableRandom(Seeds.mix(spec.seed(), 5, e.connection(), e.node())));
        }
    }

    private FailoverDevice openNode(int n) {
        String node = Nodes.name(n);
        if (spec.openByName()) {
            String name = "failover://" + spec.address(n, 0) + "+" + spec.address(n, 1) + "?node=" + node + "&topology="
                    + spec.topology().name().toLowerCase(Locale.ROOT);
            return (FailoverDevice) RdmaDevices.open(name);
        }
        return FailoverDevice.open(FailoverConfig.of(node, List.of("iwarp://" + spec.address(n, 0), "iwarp://" + spec.address(n, 1)))
                .withTopology(spec.topology()));
    }

    /** Each serving node listens on one of its adapters; a named thread accepts by connection number; clients connect in turn. */
    private void connectAll(int[] clients, SplittableRandom r) throws Exception {
        List<Thread> acceptors = new ArrayList<>();
        List<Listener> listeners = new ArrayList<>();
        InetSocketAddress[] at = new InetSocketAddress[2];
        AtomicReference<Throwable> failed = new AtomicReference<>();
        try {
            for (int n = Nodes.A; n <= Nodes.B; n++) {
                int serving = 0;
                for (int c = 0; c < clients.length; c++) {
                    serving += clients[c] != n ? 1 : 0;
                }
                if (serving == 0) {
                    continue;
                }
                Listener l = node(n).listen(new InetSocketAddress(spec.address(n, r.nextInt(2)), 0), 8);
                listeners.add(l);
                at[n - 1] = l.localAddress();
                int node = n;
                int expected = serving;
                Thread t = new Thread(() -> accept(l, node, expected, failed), "chaos-accept-" + Nodes.name(n));
                t.setDaemon(true);
                t.start();
                acceptors.add(t);
            }
            for (int c = 0; c < clients.length; c++) {
                EndPoint client = end(c, clients[c]);
                EndPoint server = end(c, Nodes.other(clients[c]));
                byte[] reply = client.qp().connect(at[server.node() - 1], client.keys().encode(), CONNECT);
                client.peerKeys = PeerKeys.decode(reply);
            }
            for (Thread t : acceptors) {
                t.join(CONNECT.toMillis());
                if (t.isAlive()) {
                    throw new IllegalStateException(t.getName() + " did not accept every connection within " + CONNECT);
                }
            }
            if (failed.get() != null) {
                throw new IllegalStateException("accepting failed: " + failed.get(), failed.get());
            }
        } finally {
            for (Listener l : listeners) { // as most servers do: paths heal without the application's listener
                l.close();
            }
            for (Thread t : acceptors) {
                t.join(CONNECT.toMillis());
            }
        }
    }

    private void accept(Listener l, int node, int expected, AtomicReference<Throwable> failed) {
        try {
            for (int i = 0; i < expected; i++) {
                ConnectionRequest req = l.accept(CONNECT);
                PeerKeys keys = PeerKeys.decode(req.privateData());
                EndPoint e = end(keys.connection(), node);
                e.peerKeys = keys;
                req.accept(e.qp(), e.keys().encode());
            }
        } catch (Throwable t) {
            failed.compareAndSet(null, t);
        }
    }

    EndPoint end(int connection, int node) {
        for (EndPoint e : ends) {
            if (e.connection() == connection && e.node() == node) {
                return e;
            }
        }
        throw new IllegalArgumentException("no end of connection " + connection + " at node " + node);
    }

    /** How many paths {@code e}'s connection has when all are up, as its device says (cross paths when switched). */
    static int fullPaths(EndPoint e) {
        return e.device().pathCount(e.qp());
    }

    /** True when every connection has all its paths at both ends (a connection that ended will not heal, and is left out). */
    boolean allPathsUp() {
        for (EndPoint e : ends) {
            if (!e.isEnded() && e.qp().state() == dev.tandem.verbs.QpState.RTS && e.device().livePaths(e.qp()) < fullPaths(e)) {
                return false;
            }
        }
        return true;
    }

    /** Each end's live paths, for a report. */
    String paths() {
        StringBuilder sb = new StringBuilder();
        for (EndPoint e : ends) {
            sb.append(sb.isEmpty() ? "" : ", ").append(e.name()).append(' ').append(e.device().livePaths(e.qp())).append('/')
                    .append(fullPaths(e));
        }
        return sb.toString();
    }

    Topology topology() {
        return spec.topology();
    }
}

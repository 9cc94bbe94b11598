package dev.tandem.failover;

import dev.tandem.ras.SnapshotSource;
import dev.tandem.ras.SnapshotWriter;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.RdmaDevice;

import java.util.Comparator;
import java.util.List;

/**
 * Writes one fail-over device's state into a dump ({@code tandem dump}): its adapters (usable, or failed
 * and released), then each connection the monitor watches: its paths (live, dead or not set up; which
 * carries the Sends and which the receives), its message ids (last sent, LAST RELIABLY SENT, last
 * received in order, which is its LAST RELIABLY RECEIVED) and the fail-over in progress, if any, with
 * its REPORT and MIGRATED progress. It reads what it sees without taking a connection's lock (a dump
 * must not wait, and the monitor may be dumping from the middle of a fail-over): values of one
 * connection may be a step apart.
 */
final class FailoverSnapshot implements SnapshotSource {
    private final FailoverDevice device;

    FailoverSnapshot(FailoverDevice device) {
        this.device = device;
    }

    /**
     * One path of a connection as a dump shows it.
     *
     * @param id         the path's id (both sides use it)
     * @param local      this side's adapter
     * @param remote     the peer's adapter
     * @param generation which set-up of the path this is
     * @param up         set up and not failed
     * @param adapterQp  its adapter QP's number, -1 while none
     * @param qpState    its adapter QP's state, null while none
     * @param downCause  why it failed last, or null
     */
    record PathView(int id, int local, int remote, int generation, boolean up, int adapterQp, QpState qpState, String downCause) {
    }

    /**
     * One connection as a dump shows it (copied by {@link FailoverQueuePair#snapshot()}).
     *
     * @param qpNumber        the application's QP number
     * @param state           the layer's state of the QP
     * @param connecting      this side connected (it sets the paths up), else it accepted
     * @param connectionId    the id both sides' paths carry, 0 before set-up
     * @param peerNode        the peer's node name, null before set-up
     * @param sendPath        the id of the path Sends take, -1 before set-up
     * @param receivePath     the id of the path receives are posted on (or whose adapter's SRQ they are in)
     * @param paths           its paths
     * @param lastSent        the message id of the last Send posted
     * @param lastProvenSent  LAST RELIABLY SENT: the last Send a proof showed the peer holds
     * @param lastReceived    the last message id received in order (LAST RELIABLY RECEIVED)
     * @param staleDropped    completions of QPs (or postings) this connection left behind, dropped
     * @param duplicates      messages it had delivered already, dropped
     * @param windowsRebound  windows bound through it that moves bound again on a new path
     * @param sendMoveSince   since when its Sends wait for the peer's MIGRATED (System.nanoTime), 0 while they do not
     * @param session         the session number its peer's headers carry
     */
    record Connection(int qpNumber, QpState state, boolean connecting, long connectionId, String peerNode, int sendPath,
                      int receivePath, List<PathView> paths, int lastSent, int lastProvenSent, int lastReceived, long staleDropped,
                      long duplicates, int windowsRebound, long sendMoveSince, int session) {
    }

    @Override
    public void snapshot(SnapshotWriter out) {
        FailoverConfig c = device.config();
        out.begin("failover device", device.name())
                .field("node", device.nodeName())
                .field("topology", c.topology())
                .field("port state", device.portState())
                .field("heartbeat ms", c.heartbeat().toMillis())
                .field("detection ms", c.detection().toMillis());
        for (int k = 0; k < device.adapterCount(); k++) {
            RdmaDevice a = device.adapter(k);
            boolean released = device.released(k);
            out.begin("adapter", String.valueOf(k))
                    .field("name", a.name())
                    .field("address", device.address(k).getHostAddress())
                    .field("port state", a.isClosed() ? "closed" : a.portState().name())
                    .field("usable", yesNo(device.usable(k)))
                    .field("released", released ? "yes (it failed: the layer gave back what it held there)" : "no")
                    .end();
        }
        List<FailoverQueuePair> connections = device.monitor().connections().stream()
                .sorted(Comparator.comparingInt(FailoverQueuePair::qpNumber)).toList();
        out.field("connections", connections.size());
        long now = System.nanoTime();
        for (FailoverQueuePair qp : connections) {
            connection(out, qp.snapshot(), now);
        }
        out.end();
    }

    private static void connection(SnapshotWriter out, Connection c, long now) {
        out.begin("connection", "qp " + c.qpNumber())
                .field("state", c.state())
                .field("side", c.connecting() ? "connecting (sets the paths up)" : "accepting")
                .field("peer node", c.peerNode() == null ? "none yet" : c.peerNode())
                .field("connection id", String.format("0x%016x", c.connectionId()))
                .field("session", Integer.toUnsignedString(c.session()))
                .field("send path", c.sendPath() < 0 ? "none" : String.valueOf(c.sendPath()))
                .field("receive path", c.receivePath() < 0 ? "none" : String.valueOf(c.receivePath()))
                .field("last sent msgid", c.lastSent() & 0xFFFF_FFFFL)
                .field("last reliably sent msgid", c.lastProvenSent() & 0xFFFF_FFFFL)
                .field("last received msgid", c.lastReceived() & 0xFFFF_FFFFL)
                .field("stale completions dropped", c.staleDropped())
                .field("duplicates dropped", c.duplicates())
                .field("windows bound again", c.windowsRebound())
                .field("sends", c.sendMoveSince() == 0 ? "flowing" : "waiting for the peer's MIGRATED for " + (now - c.sendMoveSince()) + " ns");
        for (PathView p : c.paths()) {
            out.begin("path", String.valueOf(p.id()))
                    .field("adapter", p.local())
                    .field("peer adapter", p.remote())
                    .field("generation", p.generation())
                    .field("status", p.up() ? "live" : p.downCause() != null ? (p.adapterQp() < 0 ? "dead (failed; its adapter let go of its QP)"
                            : "dead (failed: its QP is stale)") : "not set up")
                    .field("carries", carries(c, p.id()))
                    .field("adapter qp", p.adapterQp() < 0 ? "none" : String.valueOf(p.adapterQp()))
                    .field("adapter qp state", p.qpState() == null ? "none" : p.qpState().name())
                    .field("failed because", p.downCause() == null ? "-" : p.downCause())
                    .end();
        }
        out.end();
    }

    private static String carries(Connection c, int id) {
        boolean sends = id == c.sendPath();
        boolean receives = id == c.receivePath();
        return sends && receives ? "sends and receives" : sends ? "sends" : receives ? "receives" : "nothing (backup)";
    }

    private static String yesNo(boolean b) {
        return b ? "yes" : "no";
    }
}

package dev.tandem.failover;

import dev.tandem.ras.SnapshotSource;
import dev.tandem.ras.SnapshotWriter;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
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
     * One connection as a dump shows it (copied by {@link FailoverQueuePair#snapshot()}).
     *
     * @param qpNumber        the application's QP number
     * @param state           the layer's state of the QP
     * @param connecting      this side connected (it chooses the path of a fail-over), else it accepted
     * @param connectionId    the id both sides' paths carry, 0 before set-up
     * @param peerNode        the peer's node name, null before set-up
     * @param sendPath        the adapter Sends take, -1 before set-up
     * @param receiveAdapter  the adapter receives are posted on
     * @param under           per adapter, the connection's QP there, or null
     * @param peerAdapter     per adapter, the peer's adapter at the other end of the path, -1 while none
     * @param dead            per adapter, whether its path failed (its QP is stale)
     * @param lastSent        the message id of the last Send posted
     * @param lastProvenSent  LAST RELIABLY SENT: the last Send a proof showed the peer holds
     * @param lastReceived    the last message id received in order (LAST RELIABLY RECEIVED)
     * @param staleDropped    completions of QPs this connection left behind, dropped
     * @param windowsRebound  windows bound through it that fail-overs bound again on the new path
     * @param mailSent        sequence number of the last mailbox record (REPORT, MIGRATED, BYE) sent
     * @param peerReportSeq   sequence number of the peer's last REPORT taken
     * @param peerMigratedSeq sequence number of the peer's last MIGRATED taken
     * @param migration       the fail-over in progress, or null
     */
    record Connection(int qpNumber, QpState state, boolean connecting, long connectionId, String peerNode, int sendPath,
                      int receiveAdapter, QueuePair[] under, int[] peerAdapter, boolean[] dead, int lastSent, int lastProvenSent,
                      int lastReceived, long staleDropped, int windowsRebound, int mailSent, int peerReportSeq, int peerMigratedSeq, Migration migration) {
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
                .field("side", c.connecting() ? "connecting (chooses the path of a fail-over)" : "accepting (follows the peer's path)")
                .field("peer node", c.peerNode() == null ? "none yet" : c.peerNode())
                .field("connection id", String.format("0x%016x", c.connectionId()))
                .field("send path", path(c.sendPath()))
                .field("receive adapter", path(c.receiveAdapter()))
                .field("last sent msgid", c.lastSent() & 0xFFFF_FFFFL)
                .field("last reliably sent msgid", c.lastProvenSent() & 0xFFFF_FFFFL)
                .field("last received msgid", c.lastReceived() & 0xFFFF_FFFFL)
                .field("stale completions dropped", c.staleDropped())
                .field("windows bound again", c.windowsRebound())
                .field("mailbox seq sent", c.mailSent() & 0xFFFF_FFFFL)
                .field("peer REPORT seq", c.peerReportSeq() & 0xFFFF_FFFFL)
                .field("peer MIGRATED seq", c.peerMigratedSeq() & 0xFFFF_FFFFL);
        for (int k = 0; k < c.under().length; k++) {
            QueuePair q = c.under()[k];
            out.begin("path", "adapter " + k)
                    .field("status", status(c, k))
                    .field("carries", carries(c, k))
                    .field("adapter qp", q == null ? "none (released)" : String.valueOf(q.qpNumber()))
                    .field("adapter qp state", q == null ? "none" : q.state().name())
                    .field("peer adapter", c.peerAdapter()[k] < 0 ? "none" : String.valueOf(c.peerAdapter()[k]))
                    .end();
        }
        Migration m = c.migration();
        if (m == null) {
            out.field("fail-over", "none in progress");
        } else {
            int to = m.path;
            out.begin("fail-over", "in progress")
                    .field("from adapter", m.from)
                    .field("to adapter", to)
                    .field("running ns", now - m.startNanos)
                    .field("phase", phase(m, to))
                    .field("REPORT sent", yesNo(m.reported))
                    .field("path agreed", m.agreed ? "yes (the peer's REPORT named it)" : "no")
                    .field("MIGRATED sent", yesNo(m.movedTo == to))
                    .field("receive completions rebuilt", m.rebuilt)
                    .field("receives re-posted", m.receivesReposted)
                    .end();
        }
        out.end();
    }

    /** Where a fail-over stands: which of its messages went and which it waits for. */
    static String phase(Migration m, int to) {
        if (m.movedTo == to) {
            return "MIGRATED sent: waiting for the peer's MIGRATED, then the Sends and Writes it lacks are re-posted";
        }
        if (m.reported) {
            return "REPORT sent: waiting for the peer's REPORT to rebuild and re-post the receives";
        }
        return "holding: posts wait, the REPORT is not sent yet";
    }

    private static String status(Connection c, int k) {
        if (c.dead()[k]) {
            return "dead (failed: its QP is stale)";
        }
        if (c.under()[k] == null || c.peerAdapter()[k] < 0) {
            return "not set up";
        }
        return "live";
    }

    private static String carries(Connection c, int k) {
        boolean sends = k == c.sendPath();
        boolean receives = k == c.receiveAdapter();
        return sends && receives ? "sends and receives" : sends ? "sends" : receives ? "receives" : "nothing (backup)";
    }

    private static String path(int k) {
        return k < 0 ? "none" : "adapter " + k;
    }

    private static String yesNo(boolean b) {
        return b ? "yes" : "no";
    }
}

package dev.tandem.iwarp;

import dev.tandem.provider.LiveResource;
import dev.tandem.provider.ResourceLimits;
import dev.tandem.provider.SendQueue;
import dev.tandem.ras.SnapshotSource;
import dev.tandem.ras.SnapshotWriter;
import dev.tandem.verbs.WorkRequest;

import java.util.List;

/**
 * Writes one adapter's state into a dump (the offloaded-state extraction of a hardware RNIC): the
 * adapter's settings, health and resources open of each limited kind, then every open resource with its owner, and for each QP its state,
 * connection, sequence state (MSNs, outstanding Reads, IRD/ORD use) and queue contents. It takes the
 * adapter's progress lock for up to 100 ms so the values belong together; when the lock stays busy
 * (a stuck duty cycle is what a dump is often for) it reads them as they are and says so.
 */
final class AdapterSnapshot implements SnapshotSource {
    /** Send-queue entries listed per QP; the rest are counted. */
    private static final int MAX_LISTED = 16;
    private final IwarpDevice device;

    AdapterSnapshot(IwarpDevice device) {
        this.device = device;
    }

    @Override
    public void snapshot(SnapshotWriter out) {
        boolean locked = device.transport().holdProgress(100_000_000L);
        try {
            out.begin("adapter", device.name());
            IwarpConfig c = device.config();
            out.field("address", c.localAddress().getHostAddress())
                    .field("port state", device.portState())
                    .field("fatal cause", device.fatalCause().orElse("none"))
                    .field("link", device.link().isDown() ? "down (injected)" : "up")
                    .field("closes held by the link", device.link().parked())
                    .field("crc", String.valueOf(c.crc()))
                    .field("threading", c.threading())
                    .field("idle", c.idle())
                    .field("progress on poll", String.valueOf(c.progressOnPoll()))
                    .field("max ulpdu", device.maxUlpdu())
                    .field("leak mode", c.leakMode())
                    .field("engine thread", device.engineThreadName())
                    .field("engine running", String.valueOf(device.isEngineRunning()))
                    .field("consistent", locked ? "yes (progress lock held)" : "no (progress lock busy for 100 ms)");
            ResourceLimits limits = device.limits();
            for (ResourceLimits.Kind kind : ResourceLimits.Kind.values()) {
                out.field(kind.plural() + " open", limits.open(kind) + " of " + limits.max(kind));
            }
            List<LiveResource> resources = device.liveResources();
            for (LiveResource r : resources) {
                if (!(r.resource() instanceof IwQueuePair)) {
                    out.begin(r.kind().toLowerCase(java.util.Locale.ROOT), r.name());
                    owner(out, r);
                    out.field("what", r.resource().toString());
                    out.end();
                }
            }
            for (LiveResource r : resources) {
                if (r.resource() instanceof IwQueuePair qp) {
                    queuePair(out, r, qp);
                }
            }
            out.end();
        } finally {
            if (locked) {
                device.transport().releaseProgress();
            }
        }
    }

    private static void owner(SnapshotWriter out, LiveResource r) {
        out.field("owner thread", r.owner().thread())
                .field("owner pid", r.owner().pid())
                .field("created", java.time.Instant.ofEpochMilli(r.owner().createdMs()).toString())
                .field("call site", r.owner().callSite());
    }

    private static void queuePair(SnapshotWriter out, LiveResource r, IwQueuePair qp) {
        out.begin("qp", r.name());
        owner(out, r);
        out.field("state", qp.state());
        Connection c = qp.connection();
        if (c != null) {
            out.begin("session", c.local + " -> " + c.remote)
                    .field("crc", String.valueOf(c.crc))
                    .field("ird", c.ird)
                    .field("ord", c.ord)
                    .field("max ulpdu", c.maxUlpdu)
                    .field("closed", String.valueOf(c.isClosed()))
                    .field("next send msn", c.tx.sendMsn() & 0xFFFF_FFFFL)
                    .field("next read request msn", c.tx.readMsn() & 0xFFFF_FFFFL)
                    .field("expected send msn", c.rx.expectedSendMsn() & 0xFFFF_FFFFL)
                    .field("expected read request msn", c.rx.expectedReadMsn() & 0xFFFF_FFFFL)
                    .field("outstanding reads (of ord)", c.orq.size())
                    .field("inbound reads queued (of ird)", c.irq.size())
                    .field("pending output", String.valueOf(c.tx.hasPendingOutput()))
                    .field("peer incarnation", c.peer == null ? "none exchanged"
                            : c.peer.node() + " key " + String.format("0x%016x", c.peer.key())
                            + (c.peer.isCurrent() ? " (current)" : " (earlier life: its frames are dropped)"))
                    .end();
        }
        SendQueue sq = qp.sendQueue();
        long head = sq.head();
        long tail = sq.tail();
        long tx = sq.txIndex();
        out.begin("send queue", "depth " + sq.depth)
                .field("posted", tail - head)
                .field("transmitted, not completed", Math.max(0, tx - head))
                .field("not yet transmitted", Math.max(0, tail - Math.max(tx, head)));
        for (long pos = head; pos < tail && pos - head < MAX_LISTED; pos++) {
            WorkRequest wr = sq.request(pos);
            if (wr != null) {
                out.field("entry " + pos, wr.getClass().getSimpleName() + " wr_id=" + wr.wrId() + (pos < tx ? " (on the wire)" : " (queued)"));
            }
        }
        if (tail - head > MAX_LISTED) {
            out.field("entries not listed", tail - head - MAX_LISTED);
        }
        out.end();
        out.field("receives posted", qp.receivesPosted());
        out.end();
    }
}

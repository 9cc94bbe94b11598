package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkRequest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Where the two sides of a connection tell each other how a fail-over goes, without a receive buffer
 * of the application: each side writes its REPORT and MIGRATED records with an RDMA Write into the
 * other's mailbox (over a path that still works), and reads its own. One region per connection,
 * under one STag on every adapter: the inbox the peer writes, and the outbox this side writes from.
 * Each has a slot per path and kind of record (REPORT, MIGRATED, BYE): a record written over one path
 * never lands on one written over another, so a late record of a slow path cannot hide a newer one;
 * a reader takes the newest valid record of a kind. Big-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |       sequence (of the writer's records, from 1, never reused)  |  0
 * +---------------+---------------+-------------------------------+
 * |     type      | writer's path |           reserved            |  4
 * +---------------+---------------+-------------------------------+
 * |                 LAST RELIABLY SENT MSGID                      |  8
 * +---------------------------------------------------------------+
 * |                 LAST RELIABLY RECEIVED MSGID                  | 12
 * +---------------------------------------------------------------+
 * |                                                               | 16
 * +                  writer's incarnation key                     +
 * |                                                               | 20
 * +---------------------------------------------------------------+
 * |              check (of the words above, written last)         | 24
 * +---------------------------------------------------------------+
 * |                           reserved                            | 28
 * +---------------------------------------------------------------+
 * </pre>
 */
final class Mailbox implements AutoCloseable {
    static final int REPORT = 1;
    static final int MIGRATED = 2;
    /** The peer's application disconnected: the paths that close now end the connection, they do not fail over. */
    static final int BYE = 3;
    private static final int RECORD = 32;
    private static final int KINDS = 3;
    private static final long BOX = (long) Hello.MAX_ADAPTERS * KINDS * RECORD;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * One record as read. {@code seq} counts every record the writer wrote, so a reader takes each once;
     * {@code path} is the writer's adapter of the path it means (REPORT: its choice, MIGRATED: where its
     * receives now are).
     */
    record Record(int seq, int type, int path, int lastReliablySent, int lastReliablyReceived, long incarnation) {
    }

    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment;
    private final FailoverMemoryRegion region;

    Mailbox(FailoverProtectionDomain pd) {
        this.segment = arena.allocate(2 * BOX, 8);
        try {
            this.region = pd.registerInternal(segment, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** The STag the peer writes this side's inbox under. */
    int stag() {
        return region.rkey();
    }

    /**
     * Writes {@code record} into the peer's mailbox (STag {@code peerStag}) through {@code via}, the
     * QP of this side's path on adapter {@code path}, as an RDMA Write with work request id
     * {@code wrId}, signalled when {@code signaled} (its completion says it left).
     */
    void send(QueuePair via, int path, int peerStag, long wrId, Record record, boolean signaled) {
        long at = slot(path, record.type());
        put(segment, BOX + at, record);
        via.postSend(new WorkRequest.RdmaWrite(wrId, new Sge(region, BOX + at, RECORD), at, peerStag,
                signaled ? dev.tandem.verbs.WrFlags.SIGNALED : 0));
    }

    /** The newest record of {@code type} in the inbox (over any path), or null while none is there. */
    Record read(int type) {
        Record newest = null;
        for (int path = 0; path < Hello.MAX_ADAPTERS; path++) {
            Record r = readAt(slot(path, type), type);
            if (r != null && (newest == null || Integer.compareUnsigned(r.seq(), newest.seq()) > 0)) {
                newest = r;
            }
        }
        return newest;
    }

    private Record readAt(long at, int type) {
        int check = segment.get(U32, at + 24);
        Record r = new Record(segment.get(U32, at), segment.get(ValueLayout.JAVA_BYTE, at + 4) & 0xFF,
                segment.get(ValueLayout.JAVA_BYTE, at + 5) & 0xFF, segment.get(U32, at + 8), segment.get(U32, at + 12),
                segment.get(U64, at + 16));
        return r.seq() != 0 && r.type() == type && check == check(r) ? r : null;
    }

    private static long slot(int path, int type) {
        return ((long) path * KINDS + (type - 1)) * RECORD;
    }

    private static void put(MemorySegment s, long at, Record r) {
        s.set(U32, at, r.seq());
        s.set(ValueLayout.JAVA_BYTE, at + 4, (byte) r.type());
        s.set(ValueLayout.JAVA_BYTE, at + 5, (byte) r.path());
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, at + 6, (short) 0);
        s.set(U32, at + 8, r.lastReliablySent());
        s.set(U32, at + 12, r.lastReliablyReceived());
        s.set(U64, at + 16, r.incarnation());
        s.set(U32, at + 24, check(r));
        s.set(U32, at + 28, 0);
    }

    private static int check(Record r) {
        long x = r.seq() * 0x9E3779B97F4A7C15L ^ (r.type() << 8 | r.path()) * 0xBF58476D1CE4E5B9L
                ^ ((long) r.lastReliablySent() << 32 | (r.lastReliablyReceived() & 0xFFFFFFFFL)) * 0x94D049BB133111EBL ^ r.incarnation();
        return (int) (x ^ x >>> 32) | 1;
    }

    @Override
    public void close() {
        region.close();
        arena.close();
    }
}

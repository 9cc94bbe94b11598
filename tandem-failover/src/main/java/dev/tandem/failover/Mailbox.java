package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Where the two sides of a connection tell each other how a fail-over goes, without a receive buffer
 * of the application: each side writes its REPORT, MIGRATED and BYE records with an RDMA Write into the
 * other's mailbox (over a path that still works), and reads its own. One region per connection, under
 * one STag on every adapter: the inbox the peer writes, and the outbox this side writes from. Each has a
 * slot per path and kind of record: a record written over one path never lands on one written over
 * another, so a late record of a slow path cannot hide a newer one; a reader takes the newest valid
 * record of a kind. Big-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |       sequence (of the writer's records, from 1, never reused)  |  0
 * +---------------+---------------+-------------------------------+
 * |     type      |    path id    |      generation of the path   |  4
 * +---------------+---------------+-------------------------------+
 * |                 LAST RELIABLY SENT MSGID                      |  8
 * +---------------------------------------------------------------+
 * |                 LAST RELIABLY RECEIVED MSGID                  | 12
 * +---------------------------------------------------------------+
 * |                                                               | 16
 * +                  writer's incarnation key                     +
 * |                                                               | 20
 * +---------------------------------------------------------------+
 * |              check (of all the record, written last)          | 24
 * +---------------------------------------------------------------+
 * |                           reserved                            | 28
 * +---------------------------------------------------------------+
 * |   REPORT: per path id 0..63, one byte: the generation of the  | 32
 * |   path as the writer lost it (low 8 bits, never 0), 0 while   |
 * |   the writer did not lose it                                  |
 * +---------------------------------------------------------------+ 96
 * </pre>
 *
 * A REPORT says every path the writer lost and has not set up again (so the newest REPORT says all
 * there is: none of an older one's news is lost when a newer one lands in another slot); a MIGRATED
 * names the path (and its generation) the writer now receives on. Behind the records, the inbox holds the peer's two <em>arrival
 * marks</em> ({@link #placedUpTo}): the peer writes, behind its Sends and ahead of each proof, the id of
 * its last Send so far, alternating between the two, so that a mark torn by a dying adapter leaves the
 * other: since placement is in order, every Send up to a mark's id lies whole in this side's buffers,
 * whether or not its completion was ever reported.
 *
 * <pre>
 * +---------------------------------------------------------------+
 * |                      message id of the mark                   |  0
 * +---------------------------------------------------------------+
 * |         check: the id mixed with the connection's key         |  4
 * +---------------------------------------------------------------+
 * </pre>
 */
final class Mailbox implements AutoCloseable {
    static final int REPORT = 1;
    static final int MIGRATED = 2;
    /** The peer's application disconnected: the paths that close now end the connection, they do not fail over. */
    static final int BYE = 3;
    private static final int RECORD = 96;
    private static final int LOST = 32;
    private static final int KINDS = 3;
    private static final int SLOTS = Paths.MAX * Paths.MAX;
    private static final long RECORDS = (long) SLOTS * KINDS * RECORD;
    /** Where the two arrival marks lie in a box (8 bytes each). */
    static final long MARKS = RECORDS;
    private static final long BOX = RECORDS + 16;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * One record as read. {@code seq} counts every record the writer wrote, so a reader takes each once;
     * {@code path} and {@code generation} name a path (REPORT: one that failed for the writer; MIGRATED:
     * where the writer receives now).
     */
    record Record(int seq, int type, int path, int generation, int lastReliablySent, int lastReliablyReceived, long incarnation,
                  byte[] lost) {
        Record {
            lost = lost == null ? new byte[SLOTS] : lost;
        }

        /** Whether the writer lost path {@code id} in its set-up {@code generation}. */
        boolean lostPath(int id, int generation) {
            return lost[id] != 0 && lost[id] == generationByte(generation);
        }
    }

    /** A path's generation as a REPORT names it: its low 8 bits, never 0. */
    static byte generationByte(int generation) {
        return (byte) ((generation - 1) % 255 + 1);
    }

    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment;
    private final MemoryRegion region;
    /** Arrival marks written so far (picks the slot of the next). */
    private int marks;
    /** The arrival mark's Write of each slot, made once per peer. */
    private final WorkRequest.RdmaWrite[] markWrites = new WorkRequest.RdmaWrite[2];

    Mailbox(InternalMemory memory) {
        this.segment = arena.allocate(2 * BOX, 8);
        try {
            this.region = memory.register(segment, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** The STag the peer writes this side's inbox under. */
    int stag() {
        return region.rkey();
    }

    /** Empties the inbox (a new connection on this QP: nothing of the last one may count). */
    void clear() {
        segment.fill((byte) 0);
        marks = 0;
    }

    /**
     * Writes {@code record} into the peer's mailbox (STag {@code peerStag}) through {@code via}, the
     * QP of this side's path {@code path}, as a signalled RDMA Write with work request id {@code wrId}
     * (its completion says it left, or that the path failed under it).
     */
    void send(QueuePair via, int path, int peerStag, long wrId, Record record) {
        long at = slot(path, record.type());
        put(segment, BOX + at, record);
        via.postSend(new WorkRequest.RdmaWrite(wrId, new Sge(region, BOX + at, RECORD), at, peerStag, WrFlags.SIGNALED));
    }

    /**
     * The arrival mark for the Sends up to {@code messageId}: an INLINE RDMA Write (its 8 bytes are copied
     * as it is posted, so the next mark cannot change it), unsignalled, with {@code wrId}.
     */
    WorkRequest mark(int messageId, int key, int peerStag, long wrId) {
        int slot = marks++ & 1;
        long at = MARKS + 8L * slot;
        segment.set(U32, BOX + at, messageId);
        segment.set(U32, BOX + at + 4, markCheck(messageId, key));
        if (markWrites[slot] == null || markWrites[slot].rkey() != peerStag || markWrites[slot].wrId() != wrId) {
            // made once per peer: INLINE, it is read when posted, so one request serves every mark of its slot
            markWrites[slot] = new WorkRequest.RdmaWrite(wrId, new Sge(region, BOX + at, 8), at, peerStag, WrFlags.INLINE);
        }
        return markWrites[slot];
    }

    /** The highest message id of the peer's arrival marks that reads whole (0 when none does). */
    int placedUpTo(int key) {
        int best = 0;
        for (int i = 0; i < 2; i++) {
            long at = MARKS + 8L * i;
            int id = segment.get(U32, at);
            if (id != 0 && segment.get(U32, at + 4) == markCheck(id, key) && MessageIds.after(id, best)) {
                best = id;
            }
        }
        return best;
    }

    private static int markCheck(int id, int key) {
        long x = (id & 0xFFFF_FFFFL) * 0x9E3779B97F4A7C15L ^ key * 0xBF58476D1CE4E5B9L;
        return (int) (x ^ x >>> 29) | 1;
    }

    /** The newest record of {@code type} in the inbox (over any path), or null while none is there. */
    Record read(int type) {
        Record newest = null;
        for (int path = 0; path < SLOTS; path++) {
            long at = slot(path, type);
            if (segment.get(U32, at) == 0) {
                continue;
            }
            Record r = readAt(at, type);
            if (r != null && (newest == null || Integer.compareUnsigned(r.seq(), newest.seq()) > 0)) {
                newest = r;
            }
        }
        return newest;
    }

    private Record readAt(long at, int type) {
        int check = segment.get(U32, at + 24);
        byte[] lost = new byte[SLOTS];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, at + LOST, lost, 0, SLOTS);
        Record r = new Record(segment.get(U32, at), segment.get(ValueLayout.JAVA_BYTE, at + 4) & 0xFF,
                segment.get(ValueLayout.JAVA_BYTE, at + 5) & 0xFF, segment.get(U16, at + 6) & 0xFFFF, segment.get(U32, at + 8),
                segment.get(U32, at + 12), segment.get(U64, at + 16), lost);
        return r.seq() != 0 && r.type() == type && check == check(r) ? r : null;
    }

    private static long slot(int path, int type) {
        return ((long) path * KINDS + (type - 1)) * RECORD;
    }

    private static void put(MemorySegment s, long at, Record r) {
        s.set(U32, at, r.seq());
        s.set(ValueLayout.JAVA_BYTE, at + 4, (byte) r.type());
        s.set(ValueLayout.JAVA_BYTE, at + 5, (byte) r.path());
        s.set(U16, at + 6, (short) r.generation());
        s.set(U32, at + 8, r.lastReliablySent());
        s.set(U32, at + 12, r.lastReliablyReceived());
        s.set(U64, at + 16, r.incarnation());
        MemorySegment.copy(r.lost(), 0, s, ValueLayout.JAVA_BYTE, at + LOST, SLOTS);
        s.set(U32, at + 24, check(r));
        s.set(U32, at + 28, 0);
    }

    private static int check(Record r) {
        long x = r.seq() * 0x9E3779B97F4A7C15L ^ ((long) r.type() << 24 | (long) r.path() << 16 | r.generation()) * 0xBF58476D1CE4E5B9L
                ^ ((long) r.lastReliablySent() << 32 | (r.lastReliablyReceived() & 0xFFFFFFFFL)) * 0x94D049BB133111EBL ^ r.incarnation();
        byte[] lost = r.lost();
        for (int i = 0; i < lost.length; i += 8) {
            long w = 0;
            for (int j = 0; j < 8; j++) {
                w = w << 8 | (lost[i + j] & 0xFF);
            }
            x = (x ^ w) * 0xD6E8FEB86659FD93L;
        }
        return (int) (x ^ x >>> 32) | 1;
    }

    @Override
    public void close() {
        region.close();
        arena.close();
    }
}

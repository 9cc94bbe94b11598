package dev.tandem.failover;

import dev.tandem.verbs.Sge;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;

/**
 * The fail-over header: 32 bytes in front of every Send's payload (an extra gather element at the
 * sender, an extra scatter element at the receiver, so the application's buffers hold exactly its
 * payload). It holds what a receive completion holds, so that the receiver can rebuild a completion
 * the failed adapter never delivered; RDMA Writes carry none. Big-endian, like the wire around it.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------+---------------+-------------------------------+
 * |    version    | request type  |             flags             |  0
 * +---------------+---------------+-------------------------------+
 * |                          message id                           |  4
 * +---------------------------------------------------------------+
 * |                 last acknowledged message id                  |  8
 * +---------------------------------------------------------------+
 * |                   session id (connection)                     | 12
 * +---------------------------------------------------------------+
 * |                 message length (payload bytes)                | 16
 * +---------------------------------------------------------------+
 * |            STag to invalidate (Send with Invalidate)          | 20
 * +---------------------------------------------------------------+
 * |                                                               | 24
 * +                  sender's incarnation key                     +
 * |                                                               | 28
 * +---------------------------------------------------------------+
 * </pre>
 *
 * Message ids count a connection's Sends from 1 in each direction and wrap, skipping 0 ({@link MessageIds}). The receiver zeroes the header area of each buffer it posts, so a header with
 * {@link #FLAG_PRESENT} shows a message landed there.
 */
final class FailoverHeader {
    /**
     * The header's element in front of the application's {@code payload}, as the immutable list a work
     * request keeps as it is (no copy): the one- and two-element cases allocate no array.
     */
    static List<Sge> inFront(Sge header, List<Sge> payload) {
        return switch (payload.size()) {
            case 0 -> List.of(header);
            case 1 -> List.of(header, payload.get(0));
            default -> {
                Sge[] all = new Sge[payload.size() + 1];
                all[0] = header;
                for (int i = 1; i < all.length; i++) {
                    all[i] = payload.get(i - 1);
                }
                yield List.of(all);
            }
        };
    }

    /** Bytes of a header. */
    static final int LENGTH = 32;
    static final byte VERSION = 1;

    static final int VERSION_OFFSET = 0;
    static final int TYPE_OFFSET = 1;
    static final int FLAGS_OFFSET = 2;
    static final int MESSAGE_ID_OFFSET = 4;
    static final int LAST_ACKED_OFFSET = 8;
    static final int SESSION_OFFSET = 12;
    static final int LENGTH_OFFSET = 16;
    static final int INVALIDATE_OFFSET = 20;
    static final int INCARNATION_OFFSET = 24;

    /** Request type of a Send. */
    static final int TYPE_SEND = 1;
    /** Request type of a Send with Invalidate. */
    static final int TYPE_SEND_INVALIDATE = 2;

    /** Set by every sender: a message landed in this buffer. */
    static final int FLAG_PRESENT = 1;
    /** The Send asked for a solicited event. */
    static final int FLAG_SOLICITED = 1 << 1;

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private FailoverHeader() {
    }

    /** Writes a header at {@code offset} of {@code s}. */
    static void write(MemorySegment s, long offset, int type, int flags, int messageId, int lastAcked, int session, int length,
                      int invalidateStag, long incarnation) {
        s.set(ValueLayout.JAVA_BYTE, offset + VERSION_OFFSET, VERSION);
        s.set(ValueLayout.JAVA_BYTE, offset + TYPE_OFFSET, (byte) type);
        s.set(U16, offset + FLAGS_OFFSET, (short) (flags | FLAG_PRESENT));
        s.set(U32, offset + MESSAGE_ID_OFFSET, messageId);
        s.set(U32, offset + LAST_ACKED_OFFSET, lastAcked);
        s.set(U32, offset + SESSION_OFFSET, session);
        s.set(U32, offset + LENGTH_OFFSET, length);
        s.set(U32, offset + INVALIDATE_OFFSET, invalidateStag);
        s.set(U64, offset + INCARNATION_OFFSET, incarnation);
    }

    /** Zeroes the header area at {@code offset} (a receive buffer about to be posted). */
    static void clear(MemorySegment s, long offset) {
        s.asSlice(offset, LENGTH).fill((byte) 0);
    }

    static boolean present(MemorySegment s, long offset) {
        return s.get(ValueLayout.JAVA_BYTE, offset + VERSION_OFFSET) == VERSION && (flags(s, offset) & FLAG_PRESENT) != 0;
    }

    static int type(MemorySegment s, long offset) {
        return s.get(ValueLayout.JAVA_BYTE, offset + TYPE_OFFSET) & 0xFF;
    }

    static int flags(MemorySegment s, long offset) {
        return s.get(U16, offset + FLAGS_OFFSET) & 0xFFFF;
    }

    static int messageId(MemorySegment s, long offset) {
        return s.get(U32, offset + MESSAGE_ID_OFFSET);
    }

    static int lastAcked(MemorySegment s, long offset) {
        return s.get(U32, offset + LAST_ACKED_OFFSET);
    }

    static int session(MemorySegment s, long offset) {
        return s.get(U32, offset + SESSION_OFFSET);
    }

    static int length(MemorySegment s, long offset) {
        return s.get(U32, offset + LENGTH_OFFSET);
    }

    static int invalidateStag(MemorySegment s, long offset) {
        return s.get(U32, offset + INVALIDATE_OFFSET);
    }

    static long incarnation(MemorySegment s, long offset) {
        return s.get(U64, offset + INCARNATION_OFFSET);
    }
}

package dev.tandem.failover.chaos;

import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;

import static dev.tandem.failover.chaos.MessageDescriptor.ANSWERED_CRC_OFFSET;
import static dev.tandem.failover.chaos.MessageDescriptor.ANSWERS_OFFSET;
import static dev.tandem.failover.chaos.MessageDescriptor.CONNECTION_OFFSET;
import static dev.tandem.failover.chaos.MessageDescriptor.CRC_OFFSET;
import static dev.tandem.failover.chaos.MessageDescriptor.FROM_OFFSET;
import static dev.tandem.failover.chaos.MessageDescriptor.HEADER_LENGTH;
import static dev.tandem.failover.chaos.MessageDescriptor.LENGTH_OFFSET;
import static dev.tandem.failover.chaos.MessageDescriptor.MAGIC;
import static dev.tandem.failover.chaos.MessageDescriptor.MAGIC_OFFSET;
import static dev.tandem.failover.chaos.MessageDescriptor.NUMBER_OFFSET;
import static dev.tandem.failover.chaos.MessageDescriptor.SHAPE_OFFSET;
import static dev.tandem.failover.chaos.MessageDescriptor.WRITE_CRC_OFFSET;
import static dev.tandem.failover.chaos.MessageDescriptor.WRITE_LENGTH_OFFSET;

/**
 * The traffic model: what message {@code n} of the stream from node {@code from} on connection {@code c}
 * is (a plain Send or a Send naming an RDMA Write, its length, its bytes, whether it is solicited), and
 * the known bytes each end offers for RDMA Reads, all as pure functions of the scenario seed. The
 * sender posts what it says; the receiver computes the same and compares every byte, so the check
 * does not depend on anything the transport carried.
 *
 * <p>Nodes are numbered 1 (a) and 2 (b). In request/response traffic the server's message {@code k}
 * answers the client's message {@code k} and carries its number and CRC.
 */
final class TrafficModel {
    /** What a message is on the wire. */
    enum Shape {
        /** A Send of the message. */
        SEND,
        /** An RDMA Write of {@link MessagePlan#writeLength()} bytes into the peer's landing slot, then the Send naming it. */
        NAMED_WRITE
    }

    /**
     * One message of one stream.
     *
     * @param connection  the connection it travels on
     * @param from        the sending node (1 or 2)
     * @param number      its number in the stream, from 0
     * @param shape       plain Send or Write then naming Send
     * @param length      bytes of the Send
     * @param solicited   posted with {@code SOLICITED}: the receive completion must say so
     * @param writeLength bytes of the Write it names, 0 for a plain Send
     */
    record MessagePlan(int connection, int from, int number, Shape shape, int length, boolean solicited, int writeLength) {
    }

    static final int MIN_MESSAGE = HEADER_LENGTH + 4;

    private final long seed;
    private final int maxMessage;
    private final int maxWrite;
    private final int knownLength;
    /** The node that answers requests, 0 when both nodes send on their own. */
    private final int server;
    private final Map<Long, byte[]> known = new ConcurrentHashMap<>();

    TrafficModel(long seed, int maxMessage, int maxWrite, int knownLength, int server) {
        this.seed = seed;
        this.maxMessage = maxMessage;
        this.maxWrite = maxWrite;
        this.knownLength = knownLength;
        this.server = server;
    }

    int maxMessage() {
        return maxMessage;
    }

    int maxWrite() {
        return maxWrite;
    }

    int knownLength() {
        return knownLength;
    }

    /** The node that answers requests, 0 when both nodes send on their own. */
    int server() {
        return server;
    }

    MessagePlan plan(int connection, int from, int number) {
        SplittableRandom r = new SplittableRandom(Seeds.mix(seed, 11, connection, from, number));
        Shape shape = r.nextInt(10) < 6 ? Shape.SEND : Shape.NAMED_WRITE;
        int length = r.nextInt(10) < 3 ? r.nextInt(MIN_MESSAGE, 129) : r.nextInt(MIN_MESSAGE, maxMessage + 1);
        boolean solicited = r.nextInt(5) == 0;
        int writeLength = shape == Shape.SEND ? 0 : r.nextInt(4) == 0 ? r.nextInt(1, 129) : r.nextInt(1, maxWrite + 1);
        return new MessagePlan(connection, from, number, shape, length, solicited, writeLength);
    }

    /** The bytes of the RDMA Write that message {@code p} names (empty for a plain Send). */
    byte[] writeBytes(MessagePlan p) {
        byte[] b = new byte[p.writeLength()];
        new SplittableRandom(Seeds.mix(seed, 13, p.connection(), p.from(), p.number())).nextBytes(b);
        return b;
    }

    /** Every byte of message {@code p}'s Send. */
    byte[] message(MessagePlan p) {
        byte[] b = new byte[p.length()];
        MessageDescriptor.putInt(b, MAGIC_OFFSET, MAGIC);
        b[CONNECTION_OFFSET] = (byte) (p.connection() >>> 8);
        b[CONNECTION_OFFSET + 1] = (byte) p.connection();
        b[FROM_OFFSET] = (byte) p.from();
        b[SHAPE_OFFSET] = (byte) p.shape().ordinal();
        MessageDescriptor.putInt(b, NUMBER_OFFSET, p.number());
        MessageDescriptor.putInt(b, LENGTH_OFFSET, p.length());
        if (p.shape() == Shape.NAMED_WRITE) {
            byte[] w = writeBytes(p);
            MessageDescriptor.putInt(b, WRITE_LENGTH_OFFSET, w.length);
            MessageDescriptor.putInt(b, WRITE_CRC_OFFSET, MessageDescriptor.crc(w, 0, w.length));
        }
        if (server != 0 && p.from() == server) {
            byte[] request = message(plan(p.connection(), 3 - server, p.number()));
            MessageDescriptor.putInt(b, ANSWERS_OFFSET, p.number());
            MessageDescriptor.putInt(b, ANSWERED_CRC_OFFSET, MessageDescriptor.getInt(request, CRC_OFFSET));
        } else {
            MessageDescriptor.putInt(b, ANSWERS_OFFSET, -1);
        }
        byte[] body = new byte[p.length() - HEADER_LENGTH];
        new SplittableRandom(Seeds.mix(seed, 12, p.connection(), p.from(), p.number())).nextBytes(body);
        System.arraycopy(body, 0, b, HEADER_LENGTH, body.length);
        MessageDescriptor.putInt(b, CRC_OFFSET, MessageDescriptor.crcOf(b, p.length()));
        return b;
    }

    /** The bytes node {@code owner}'s end of {@code connection} offers the peer's RDMA Reads. */
    byte[] known(int connection, int owner) {
        return known.computeIfAbsent((long) connection << 8 | owner, k -> {
            byte[] b = new byte[knownLength];
            new SplittableRandom(Seeds.mix(seed, 14, connection, owner)).nextBytes(b);
            return b;
        });
    }
}

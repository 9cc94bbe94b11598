package dev.tandem.failover;

import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.InvalidArgumentException;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What two fail-over devices tell each other when one of their paths is set up, in front of the
 * application's private data: which connection the path belongs to, the sender's node and adapters
 * (so the other paths can be set up), the STag of its session's proof region, and the application's
 * IRD/ORD. Big-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------+---------------+---------------+---------------+
 * |      'T'      |      'F'      |      'O'      |    version    |  0
 * +---------------+---------------+---------------+---------------+
 * |     kind      |  path index   | adapter count |  name length  |  4
 * +---------------+---------------+---------------+---------------+
 * |                                                               |  8
 * +                        connection id                          +
 * |                                                               | 12
 * +---------------------------------------------------------------+
 * |                 STag of the sender's proof region             | 16
 * +-------------------------------+-------------------------------+
 * |        application IRD        |        application ORD        | 20
 * +-------------------------------+-------------------------------+
 * |                   sender's queue pair number                  | 24
 * +---------------------------------------------------------------+
 * |                                                               | 28
 * +                  sender's incarnation key                     +
 * |                                                               | 32
 * +---------------+---------------+-------------------------------+
 * | recv adapter  | receive path  |    generation of this path    | 36
 * +---------------+---------------+-------------------------------+
 * |                STag of the sender's mailbox                   | 40
 * +---------------------------------------------------------------+
 * |     session: what the peer's fail-over headers must carry     | 44
 * +---------------------------------------------------------------+
 * |   node name (name length bytes of UTF-8) ...                  | 48
 * +---------------------------------------------------------------+
 * |   per adapter: port (16 bits), address length (8 bits: 4 or  |
 * |   16), address bytes ...                                      |
 * +---------------------------------------------------------------+
 * |   the application's private data ...                          |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * @param kind         {@link #CONNECT}, {@link #JOIN}, {@link #ACCEPT} or {@link #REJECT}
 * @param pathIndex    the sender's adapter index of this path
 * @param connectionId the connection, chosen by the side that connects
 * @param proofStag    STag of the sender's proof region (readable by the peer)
 * @param ird          the application's IRD (what it would have offered on a plain adapter)
 * @param ord          the application's ORD
 * @param qpNumber     the sender's fail-over queue pair number
 * @param incarnation  the sender's incarnation key (every Send's fail-over header carries it)
 * @param recvAdapter  the sender's adapter index where its receives for this connection are posted
 * @param receivePath  the id of the path the sender receives on ({@link Paths#id}; the peer sends there), or
 *                     {@link #THIS_PATH} for the path this hello travels on (whose id the sender cannot know yet)
 * @param generation   which set-up of this path it is (the connecting side counts them, from 1)
 * @param mailboxStag  STag of the sender's mailbox for this connection (the peer writes REPORT and MIGRATED there)
 * @param session      the session number the peer's fail-over headers must carry to the sender: unique among the
 *                     sender's connections, so that an SRQ's buffers tell their connections apart
 * @param node         the sender's node name
 * @param adapters     where the sender's adapters listen, by index (empty in JOIN and REJECT)
 * @param data         the application's private data
 */
record Hello(int kind, int pathIndex, long connectionId, int proofStag, int ird, int ord, int qpNumber, long incarnation,
             int recvAdapter, int receivePath, int generation, int mailboxStag, int session, String node,
             List<InetSocketAddress> adapters, byte[] data) {
    static final int CONNECT = 1;
    static final int JOIN = 2;
    static final int ACCEPT = 3;
    static final int REJECT = 4;
    static final int VERSION = 2;
    /** {@link #receivePath} of a hello whose sender receives on the path the hello travels on. */
    static final int THIS_PATH = 0xFF;
    /** Most adapters a hello can name. */
    static final int MAX_ADAPTERS = 8;
    private static final int FIXED = 48;

    Hello {
        adapters = List.copyOf(adapters);
        data = data == null ? new byte[0] : data.clone();
    }

    /** Bytes the block takes for a node named {@code node} with {@code adapters}, before the application's data. */
    static int overhead(String node, List<InetSocketAddress> adapters) {
        int n = FIXED + node.getBytes(StandardCharsets.UTF_8).length;
        for (InetSocketAddress a : adapters) {
            n += 3 + a.getAddress().getAddress().length;
        }
        return n;
    }

    byte[] encode() {
        byte[] name = node.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(overhead(node, adapters) + data.length);
        b.put((byte) 'T').put((byte) 'F').put((byte) 'O').put((byte) VERSION);
        b.put((byte) kind).put((byte) pathIndex).put((byte) adapters.size()).put((byte) name.length);
        b.putLong(connectionId).putInt(proofStag).putShort((short) ird).putShort((short) ord).putInt(qpNumber);
        b.putLong(incarnation).put((byte) recvAdapter).put((byte) receivePath).putShort((short) generation).putInt(mailboxStag);
        b.putInt(session);
        b.put(name);
        for (InetSocketAddress a : adapters) {
            byte[] addr = a.getAddress().getAddress();
            b.putShort((short) a.getPort()).put((byte) addr.length).put(addr);
        }
        b.put(data);
        return b.array();
    }

    /**
     * Reads a hello from the private data of a path's set-up.
     *
     * @throws ConnectionException when the bytes are not a fail-over hello (the peer is not a fail-over device) or are malformed
     */
    static Hello decode(byte[] bytes, String from) {
        if (bytes == null || bytes.length < FIXED || bytes[0] != 'T' || bytes[1] != 'F' || bytes[2] != 'O') {
            throw new ConnectionException(from + " is not a fail-over device: its set-up carries no fail-over hello"
                    + " (a fail-over device connects only to fail-over devices)");
        }
        if (bytes[3] != VERSION) {
            throw new ConnectionException(from + " speaks fail-over hello version " + (bytes[3] & 0xFF) + "; this device speaks " + VERSION);
        }
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            b.position(4);
            int kind = b.get() & 0xFF;
            int pathIndex = b.get() & 0xFF;
            int count = b.get() & 0xFF;
            int nameLength = b.get() & 0xFF;
            if (kind < CONNECT || kind > REJECT || count > MAX_ADAPTERS) {
                throw new ConnectionException(from + " sent a malformed fail-over hello: kind " + kind + ", " + count + " adapters");
            }
            long connectionId = b.getLong();
            int proof = b.getInt();
            int ird = b.getShort() & 0xFFFF;
            int ord = b.getShort() & 0xFFFF;
            int qpNumber = b.getInt();
            long incarnation = b.getLong();
            int recvAdapter = b.get() & 0xFF;
            int receivePath = b.get() & 0xFF;
            int generation = b.getShort() & 0xFFFF;
            int mailbox = b.getInt();
            int session = b.getInt();
            byte[] name = new byte[nameLength];
            b.get(name);
            List<InetSocketAddress> adapters = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int port = b.getShort() & 0xFFFF;
                int length = b.get() & 0xFF;
                if (length != 4 && length != 16) {
                    throw new ConnectionException(from + " sent a malformed fail-over hello: an address of " + length + " bytes");
                }
                byte[] addr = new byte[length];
                b.get(addr);
                adapters.add(new InetSocketAddress(InetAddress.getByAddress(addr), port));
            }
            byte[] data = Arrays.copyOfRange(bytes, b.position(), bytes.length);
            return new Hello(kind, pathIndex, connectionId, proof, ird, ord, qpNumber, incarnation, recvAdapter, receivePath, generation,
                    mailbox, session, new String(name, StandardCharsets.UTF_8), adapters, data);
        } catch (java.nio.BufferUnderflowException | UnknownHostException | InvalidArgumentException e) {
            throw new ConnectionException(from + " sent a truncated fail-over hello of " + bytes.length + " bytes: " + e);
        }
    }
}

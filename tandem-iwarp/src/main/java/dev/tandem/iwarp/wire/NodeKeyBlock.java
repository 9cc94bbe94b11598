package dev.tandem.iwarp.wire;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The node key block (restart-safe keys): a Tandem adapter opened with node keys presents its node's
 * name and incarnation key in the MPA private data of its Request, and in its Reply to a Request that
 * carried a block, so that the peer can tell a restarted node from the life it connected with before
 * and refuse work from that earlier life. It stands right after the RFC 6581 IRD/ORD words (at the start
 * of the private data when the frame is not Enhanced) and before the application's private data, which
 * the application on either side sees unchanged: Tandem strips the block whether or not it checks keys.
 * A plain iWARP peer (Linux siw) sends none; a Tandem adapter sends one in a Reply only when the Request
 * had one, so such a peer never sees one it did not ask for.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |     'T' 0x54  |     'A' 0x41  |     'N' 0x4E  |     'D' 0x44  |  0  Magic (64):
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+        "TANDEMNK"
 * |     'E' 0x45  |     'M' 0x4D  |     'N' 0x4E  |     'K' 0x4B  |  4
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  Version (8)  |R| Rsvd (7)    |      Block length (16)        |  8
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                 Incarnation key (64, big-endian)              | 12
 * |                                                               | 16
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  Node name: UTF-8, Block length - 20 octets (1..64) ...       | 20
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * Version is 1; a receiver refuses any other. Block length counts the whole block, magic included
 * (21..84 octets). R (0x80 of the flags octet): set only in a reject Reply, by a responder that refuses
 * the Request because its key is of an earlier life of the node that presents it; the other flag bits
 * are sent as zero and ignored on receipt. The incarnation key is never 0. The block takes
 * {@link #FIXED_LENGTH} + name octets from MPA's 512 bytes of private data (RFC 5044 section 7.1), so an
 * adapter with node keys offers the application that much less.
 *
 * @param nodeName           the presenting node's name (the same across its restarts)
 * @param incarnation        the key it drew when it started
 * @param refusedEarlierLife R: this reject Reply refuses the Request's key as an earlier life's
 */
public record NodeKeyBlock(String nodeName, long incarnation, boolean refusedEarlierLife) {
    /** "TANDEMNK": at the front of the block, so a receiver tells it from application private data. */
    private static final byte[] MAGIC = "TANDEMNK".getBytes(StandardCharsets.US_ASCII);
    public static final int MAGIC_OFFSET = 0;
    public static final int MAGIC_LENGTH = 8;
    public static final int VERSION_OFFSET = 8;
    public static final int FLAGS_OFFSET = 9;
    public static final int LENGTH_OFFSET = 10;
    public static final int KEY_OFFSET = 12;
    public static final int NAME_OFFSET = 20;
    /** Octets before the node name. */
    public static final int FIXED_LENGTH = 20;
    /** Longest node name in UTF-8 octets. */
    public static final int MAX_NAME_LENGTH = 64;
    /** Longest block: {@link #FIXED_LENGTH} + {@link #MAX_NAME_LENGTH}. */
    public static final int MAX_LENGTH = FIXED_LENGTH + MAX_NAME_LENGTH;
    public static final int VERSION = 1;
    /** Flags octet: R, the Request's key is refused as an earlier life's. */
    public static final int FLAG_REFUSED_EARLIER_LIFE = 0x80;

    /**
     * @throws MpaException when the name is blank or longer than {@value #MAX_NAME_LENGTH} octets of
     *                      UTF-8, or the key is 0
     */
    public NodeKeyBlock {
        if (nodeName == null || nodeName.isBlank()) {
            throw new MpaException("node key block: node name is blank");
        }
        int bytes = nodeName.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_NAME_LENGTH) {
            throw new MpaException("node key block: node name '" + nodeName + "' is " + bytes + " octets of UTF-8; at most " + MAX_NAME_LENGTH);
        }
        if (incarnation == 0) {
            throw new MpaException("node key block of node " + nodeName + ": incarnation key 0 is no key (keys are never 0)");
        }
    }

    /** The block {@code nodeName} presents: its key, no flag. */
    public static NodeKeyBlock of(String nodeName, long incarnation) {
        return new NodeKeyBlock(nodeName, incarnation, false);
    }

    /** This block with R set: what a responder sends in the reject Reply that refuses an earlier life. */
    public NodeKeyBlock refusing() {
        return new NodeKeyBlock(nodeName, incarnation, true);
    }

    /** Octets of the block a node named {@code nodeName} presents. */
    public static int lengthFor(String nodeName) {
        return FIXED_LENGTH + nodeName.getBytes(StandardCharsets.UTF_8).length;
    }

    /** Octets of this block on the wire. */
    public int length() {
        return lengthFor(nodeName);
    }

    /** Writes the block at {@code offset} of {@code into}. */
    public void encode(byte[] into, int offset) {
        byte[] name = nodeName.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.wrap(into, offset, FIXED_LENGTH + name.length);
        b.put(MAGIC);
        b.put((byte) VERSION);
        b.put((byte) (refusedEarlierLife ? FLAG_REFUSED_EARLIER_LIFE : 0));
        b.putShort((short) (FIXED_LENGTH + name.length));
        b.putLong(incarnation);
        b.put(name);
    }

    /** This block followed by {@code applicationData}: what goes after the IRD/ORD words. */
    public byte[] prepend(byte[] applicationData) {
        int n = length();
        byte[] out = new byte[n + applicationData.length];
        encode(out, 0);
        System.arraycopy(applicationData, 0, out, n, applicationData.length);
        return out;
    }

    /** True when the magic stands at {@code offset} of {@code privateData}: a block begins there. */
    public static boolean startsAt(byte[] privateData, int offset) {
        return offset >= 0 && privateData.length - offset >= MAGIC_LENGTH
                && Arrays.equals(privateData, offset, offset + MAGIC_LENGTH, MAGIC, 0, MAGIC_LENGTH);
    }

    /**
     * The block at {@code offset} of {@code privateData}, or null when no magic stands there (a plain
     * iWARP peer, or a Tandem adapter without node keys).
     *
     * @throws MpaException naming the first bad field of a block whose magic is there: version, length,
     *                      a length beyond the private data, key 0, a name that is not UTF-8 or blank
     */
    public static NodeKeyBlock decode(byte[] privateData, int offset) {
        if (!startsAt(privateData, offset)) {
            return null;
        }
        int left = privateData.length - offset;
        if (left < FIXED_LENGTH) {
            throw new MpaException("node key block is cut off: " + left + " octets from its magic to the end of the private data, "
                    + "fewer than the " + FIXED_LENGTH + " of its fixed part");
        }
        ByteBuffer b = ByteBuffer.wrap(privateData, offset, left);
        int version = b.get(offset + VERSION_OFFSET) & 0xFF;
        if (version != VERSION) {
            throw new MpaException("node key block version " + version + " is not supported (this adapter reads version " + VERSION + ")");
        }
        int flags = b.get(offset + FLAGS_OFFSET) & 0xFF;
        int length = b.getShort(offset + LENGTH_OFFSET) & 0xFFFF;
        if (length <= FIXED_LENGTH || length > MAX_LENGTH) {
            throw new MpaException("node key block length " + length + " is outside " + (FIXED_LENGTH + 1) + ".." + MAX_LENGTH
                    + " (" + FIXED_LENGTH + " octets and a node name of 1.." + MAX_NAME_LENGTH + ")");
        }
        if (length > left) {
            throw new MpaException("node key block length " + length + " runs past the private data: only " + left + " octets follow its start");
        }
        long key = b.getLong(offset + KEY_OFFSET);
        String name;
        try {
            name = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(privateData, offset + NAME_OFFSET, length - FIXED_LENGTH)).toString();
        } catch (CharacterCodingException e) {
            throw new MpaException("node key block: the node name is not valid UTF-8 (" + e + ")");
        }
        return new NodeKeyBlock(name, key, (flags & FLAG_REFUSED_EARLIER_LIFE) != 0);
    }

    @Override
    public String toString() {
        return "NodeKeyBlock[" + nodeName + ", key " + String.format("0x%016x", incarnation) + (refusedEarlierLife ? ", refused earlier life" : "") + "]";
    }
}

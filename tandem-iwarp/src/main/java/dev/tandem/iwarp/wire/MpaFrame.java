package dev.tandem.iwarp.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An MPA Request or Reply frame (RFC 5044 section 7.1, RFC 6581 section 7). The private data
 * includes the RFC 6581 IRD/ORD words when {@link #enhanced()} is set.
 *
 * <pre>
 * | Key (16 octets: "MPA ID Req Frame" / "MPA ID Rep Frame")                  |
 * |M|C|R|E| Res(4) | Rev (8) | PD_Length (16)  | Private Data (PD_Length) ... |
 * </pre>
 */
public record MpaFrame(boolean reply, boolean markers, boolean crc, boolean reject, boolean enhanced, int revision,
                       byte[] privateData) {
    public static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
    public static final int KEY_LENGTH = 16;
    public static final int FLAGS_OFFSET = 16;
    public static final int REVISION_OFFSET = 17;
    public static final int PD_LENGTH_OFFSET = 18;
    public static final int HEADER_LENGTH = 20;
    public static final int MAX_PRIVATE_DATA = 512;
    public static final int FLAG_MARKERS = 0x80;
    public static final int FLAG_CRC = 0x40;
    public static final int FLAG_REJECT = 0x20;
    public static final int FLAG_ENHANCED = 0x10;
    public static final int FLAG_RESERVED = 0x0F;

    public MpaFrame {
        privateData = privateData.clone();
        if (privateData.length > MAX_PRIVATE_DATA) {
            throw new MpaException("MPA private data of " + privateData.length + " bytes exceeds the limit of " + MAX_PRIVATE_DATA);
        }
        if (revision < 1 || revision > 2) {
            throw new MpaException("MPA revision " + revision + " is not 1 or 2");
        }
    }

    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(HEADER_LENGTH + privateData.length);
        b.put(reply ? REPLY_KEY : REQUEST_KEY);
        b.put((byte) ((markers ? FLAG_MARKERS : 0) | (crc ? FLAG_CRC : 0) | (reject ? FLAG_REJECT : 0) | (enhanced ? FLAG_ENHANCED : 0)));
        b.put((byte) revision);
        b.putShort((short) privateData.length);
        b.put(privateData);
        return b.array();
    }

    /**
     * Checks the fixed 20-byte header ({@code expectReply} says which key is expected) and returns
     * the private data length that follows.
     *
     * @throws MpaException naming the first bad field
     */
    public static int checkHeader(byte[] header, boolean expectReply) {
        if (header.length < HEADER_LENGTH) {
            throw new MpaException("MPA header has " + header.length + " bytes, needs " + HEADER_LENGTH);
        }
        byte[] key = Arrays.copyOf(header, KEY_LENGTH);
        byte[] want = expectReply ? REPLY_KEY : REQUEST_KEY;
        if (!Arrays.equals(key, want)) {
            throw new MpaException("MPA key is '" + printable(key) + "', expected '" + new String(want, StandardCharsets.US_ASCII) + "'");
        }
        int rev = header[REVISION_OFFSET] & 0xFF;
        if (rev < 1 || rev > 2) {
            throw new MpaException("MPA revision " + rev + " is not supported (1 or 2)");
        }
        int pdLength = ((header[PD_LENGTH_OFFSET] & 0xFF) << 8) | (header[PD_LENGTH_OFFSET + 1] & 0xFF);
        if (pdLength > MAX_PRIVATE_DATA) {
            throw new MpaException("MPA PD_Length " + pdLength + " exceeds the limit of " + MAX_PRIVATE_DATA);
        }
        return pdLength;
    }

    /** Decodes a header checked by {@link #checkHeader} and the private data that followed it. */
    public static MpaFrame decode(byte[] header, byte[] privateData, boolean expectReply) {
        int pdLength = checkHeader(header, expectReply);
        if (privateData.length != pdLength) {
            throw new MpaException("MPA PD_Length says " + pdLength + " bytes but " + privateData.length + " were given");
        }
        int flags = header[FLAGS_OFFSET] & 0xFF;
        return new MpaFrame(expectReply, (flags & FLAG_MARKERS) != 0, (flags & FLAG_CRC) != 0, (flags & FLAG_REJECT) != 0,
                (flags & FLAG_ENHANCED) != 0, header[REVISION_OFFSET] & 0xFF, privateData);
    }

    /** The RFC 6581 IRD/ORD words at the start of the private data, or null when not enhanced. */
    public EnhancedParameters enhancedParameters() {
        if (!enhanced || revision < 2) {
            return null;
        }
        if (privateData.length < EnhancedParameters.LENGTH) {
            throw new MpaException("MPA frame is Enhanced but its private data has " + privateData.length
                    + " bytes, fewer than the " + EnhancedParameters.LENGTH + " of the IRD/ORD words");
        }
        return EnhancedParameters.decode(privateData);
    }

    /**
     * The node key block right after the IRD/ORD words (at the start when not enhanced), or null when
     * the frame carries none.
     *
     * @throws MpaException when a block's magic is there but the block is malformed
     */
    public NodeKeyBlock nodeKeyBlock() {
        return NodeKeyBlock.decode(privateData, wordsLength());
    }

    /**
     * The private data the application sees: without the IRD/ORD words in enhanced mode, and without
     * the node key block when there is one.
     *
     * @throws MpaException when a node key block's magic is there but the block is malformed
     */
    public byte[] applicationData() {
        int from = wordsLength();
        NodeKeyBlock block = NodeKeyBlock.decode(privateData, from);
        return Arrays.copyOfRange(privateData, Math.min(from + (block == null ? 0 : block.length()), privateData.length), privateData.length);
    }

    /** Octets of the RFC 6581 words at the front of the private data: 4 in enhanced mode, else 0. */
    private int wordsLength() {
        return enhanced && revision >= 2 ? EnhancedParameters.LENGTH : 0;
    }

    private static String printable(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(x >= 0x20 && x < 0x7f ? (char) x : '.');
        }
        return sb.toString();
    }
}

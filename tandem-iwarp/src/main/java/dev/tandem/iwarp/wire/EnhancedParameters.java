package dev.tandem.iwarp.wire;

/**
 * The two 16-bit words RFC 6581 puts at the start of MPA private data in enhanced mode:
 * {@code A B IRD(14) | C D ORD(14)} where A = peer-to-peer, B = zero-length Send as RTR,
 * C = zero-length Write as RTR, D = zero-length Read as RTR.
 */
public record EnhancedParameters(int ird, int ord, boolean peerToPeer, boolean sendRtr, boolean writeRtr, boolean readRtr) {
    public static final int LENGTH = 4;
    public static final int MAX_DEPTH = 0x3FFF;

    public EnhancedParameters {
        if (ird < 0 || ird > MAX_DEPTH || ord < 0 || ord > MAX_DEPTH) {
            throw new MpaException("IRD " + ird + " / ORD " + ord + " must be within 0.." + MAX_DEPTH);
        }
    }

    public static EnhancedParameters of(int ird, int ord) {
        return new EnhancedParameters(ird, ord, false, false, false, false);
    }

    public void encode(byte[] into, int offset) {
        int w1 = (peerToPeer ? 0x8000 : 0) | (sendRtr ? 0x4000 : 0) | ird;
        int w2 = (writeRtr ? 0x8000 : 0) | (readRtr ? 0x4000 : 0) | ord;
        into[offset] = (byte) (w1 >>> 8);
        into[offset + 1] = (byte) w1;
        into[offset + 2] = (byte) (w2 >>> 8);
        into[offset + 3] = (byte) w2;
    }

    public static EnhancedParameters decode(byte[] pd) {
        int w1 = ((pd[0] & 0xFF) << 8) | (pd[1] & 0xFF);
        int w2 = ((pd[2] & 0xFF) << 8) | (pd[3] & 0xFF);
        return new EnhancedParameters(w1 & MAX_DEPTH, w2 & MAX_DEPTH, (w1 & 0x8000) != 0, (w1 & 0x4000) != 0,
                (w2 & 0x8000) != 0, (w2 & 0x4000) != 0);
    }

    /** Private data for the wire: these words followed by the application's bytes. */
    public byte[] prepend(byte[] applicationData) {
        byte[] pd = new byte[LENGTH + applicationData.length];
        encode(pd, 0);
        System.arraycopy(applicationData, 0, pd, LENGTH, applicationData.length);
        return pd;
    }
}

package dev.tandem.failover.chaos;

import java.nio.ByteBuffer;

/**
 * What one end tells the other in the connection's private data (connect and accept), as an
 * application would: which connection, how many receive buffers it keeps for the peer's messages (the
 * peer's credits), and the rkeys of its landing region (named Writes), credit word and known bytes.
 */
record PeerKeys(int connection, int receiveCredits, int landingRkey, int creditRkey, int knownRkey) {
    static final int LENGTH = 20;

    byte[] encode() {
        return ByteBuffer.allocate(LENGTH).putInt(connection).putInt(receiveCredits).putInt(landingRkey).putInt(creditRkey)
                .putInt(knownRkey).array();
    }

    static PeerKeys decode(byte[] privateData) {
        if (privateData == null || privateData.length < LENGTH) {
            throw new IllegalArgumentException("private data of " + (privateData == null ? "null" : privateData.length + " bytes")
                    + " holds no chaos keys (" + LENGTH + " bytes)");
        }
        ByteBuffer b = ByteBuffer.wrap(privateData);
        return new PeerKeys(b.getInt(), b.getInt(), b.getInt(), b.getInt(), b.getInt());
    }
}

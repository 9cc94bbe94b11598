package dev.tandem.failover.check;

/**
 * The shape of a checked stream, which sender and receiver share.
 *
 * @param window       receives the receiver keeps posted; the sender never has more Sends in flight
 *                     than the receiver has granted (it starts with this many credits)
 * @param messageBytes bytes of every Send (and of every receive buffer), at least {@link CheckedMessage#HEADER}
 * @param ringSlots    block slots in the receiver's ring, at least {@code window} (a slot is written
 *                     again only after the block in it was checked)
 * @param blockBytes   bytes of every block, at least {@link CheckedBlock#HEADER}
 * @param writeEvery   a block is written before every {@code writeEvery}-th message and announced by it;
 *                     0 for Sends only
 */
public record StreamShape(int window, int messageBytes, int ringSlots, int blockBytes, int writeEvery) {
    /** The largest window: sequence numbers of receive slots and credits fit comfortably below it. */
    public static final int MAX_WINDOW = 1 << 16;

    public StreamShape {
        if (window < 1 || window > MAX_WINDOW) {
            throw new IllegalArgumentException("window " + window + " is outside 1.." + MAX_WINDOW);
        }
        if (messageBytes < CheckedMessage.HEADER) {
            throw new IllegalArgumentException("messageBytes " + messageBytes + " is less than the " + CheckedMessage.HEADER
                    + " bytes of a message's header");
        }
        if (writeEvery < 0) {
            throw new IllegalArgumentException("writeEvery " + writeEvery + " is negative; give 0 for Sends only");
        }
        if (writeEvery > 0 && ringSlots < window) {
            throw new IllegalArgumentException("ringSlots " + ringSlots + " is less than the window " + window
                    + ": a slot would be written again before its block was checked");
        }
        if (writeEvery > 0 && blockBytes < CheckedBlock.HEADER) {
            throw new IllegalArgumentException("blockBytes " + blockBytes + " is less than the " + CheckedBlock.HEADER
                    + " bytes of a block's header");
        }
        if (writeEvery == 0 && (ringSlots != 0 || blockBytes != 0)) {
            throw new IllegalArgumentException("a stream of Sends only (writeEvery 0) has no ring; give ringSlots 0 and blockBytes 0, got "
                    + ringSlots + " and " + blockBytes);
        }
    }

    /** A window of 32 Sends of {@code messageBytes}, each after a Write of a block of the same size into a ring of 32 slots. */
    public static StreamShape sendsAndWrites(int messageBytes) {
        return new StreamShape(32, messageBytes, 32, messageBytes, 1);
    }

    /** Whether message {@code seq} announces a block (written just before it). */
    boolean announces(long seq) {
        return writeEvery > 0 && seq % writeEvery == 0;
    }

    /** Blocks announced by messages 0 .. {@code messages - 1}. */
    long blocksFor(long messages) {
        return writeEvery == 0 ? 0 : (messages + writeEvery - 1) / writeEvery;
    }
}

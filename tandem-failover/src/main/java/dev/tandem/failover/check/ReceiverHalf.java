package dev.tandem.failover.check;

/**
 * The receiver's half of a checked stream's verdict, as a value that can leave its process: {@link StreamHalves}
 * joins it with the {@link SenderHalf}.
 *
 * @param messages         data messages that arrived once and intact
 * @param bytes            bytes of those messages and of the blocks verified
 * @param blocks           blocks found where announced, intact
 * @param data             the data messages' sequence numbers as they arrived
 * @param creditsSucceeded credit messages whose Sends completed SUCCESS (numbers 0 .. this - 1)
 * @param creditsIdle      no credit Send is in flight
 * @param drained          nothing is posted any more (after an error every receive was flushed)
 * @param broken           a completion in error or a refused post ended its side
 * @param findings         what it found wrong
 * @param lastSuccessNanos when it last reaped a successful completion ({@link System#nanoTime()} of its process); 0 before
 */
public record ReceiverHalf(long messages, long bytes, long blocks, SequenceState data, long creditsSucceeded, boolean creditsIdle,
                           boolean drained, boolean broken, SideFindings findings, long lastSuccessNanos) {
    public ReceiverHalf {
        if (data == null || findings == null) {
            throw new IllegalArgumentException("a receiver's half needs its data sequence and findings, got " + data + ", " + findings);
        }
        if (messages < 0 || bytes < 0 || blocks < 0 || creditsSucceeded < 0) {
            throw new IllegalArgumentException("a receiver's half has no negative count: messages " + messages + ", bytes " + bytes
                    + ", blocks " + blocks + ", credits " + creditsSucceeded);
        }
    }
}

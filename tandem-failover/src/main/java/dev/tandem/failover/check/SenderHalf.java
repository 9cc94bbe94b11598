package dev.tandem.failover.check;

/**
 * The sender's half of a checked stream's verdict, as a value that can leave its process (the sender and
 * the receiver may run in two): {@link StreamHalves} joins it with the {@link ReceiverHalf}.
 *
 * @param limit            messages it may send in all
 * @param sent             messages sent
 * @param bytesSent        bytes of the Sends and of the blocks written
 * @param blocksWritten    blocks written
 * @param succeededThrough one past the last message whose Send completed SUCCESS
 * @param idle             every Send and Write posted has completed
 * @param drained          idle, and no receive for credits is posted any more
 * @param broken           a completion in error or a refused post ended its side
 * @param credits          the credit messages that arrived from the receiver
 * @param findings         what it found wrong
 * @param lastSuccessNanos when it last reaped a successful completion ({@link System#nanoTime()} of its process); 0 before
 */
public record SenderHalf(long limit, long sent, long bytesSent, long blocksWritten, long succeededThrough, boolean idle, boolean drained,
                         boolean broken, SequenceState credits, SideFindings findings, long lastSuccessNanos) {
    public SenderHalf {
        if (credits == null || findings == null) {
            throw new IllegalArgumentException("a sender's half needs its credits and findings, got " + credits + ", " + findings);
        }
        if (sent < 0 || sent > Math.max(limit, 0) || succeededThrough < 0 || succeededThrough > sent || bytesSent < 0 || blocksWritten < 0) {
            throw new IllegalArgumentException("a sender's half needs 0 <= succeededThrough <= sent <= limit and no negative count: limit "
                    + limit + ", sent " + sent + ", succeeded through " + succeededThrough + ", bytes " + bytesSent + ", blocks "
                    + blocksWritten);
        }
    }
}

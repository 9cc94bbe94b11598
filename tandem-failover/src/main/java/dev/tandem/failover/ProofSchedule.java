package dev.tandem.failover;

/**
 * When a proof goes, for one connection ({@link Proofs} posts it): what the proofs cover, how many are in
 * flight, how many Sends and Writes wait for the next, and what the peer's headers acknowledged. Plain
 * bookkeeping over send positions and message ids, with no clock and no queue pair of its own, so each
 * decision is tested alone. The QP's lock guards it, except {@link #acked}, which the receive side calls.
 */
final class ProofSchedule {
    /**
     * Proofs in flight at most: each covers everything posted before it, so two keep the pipe full, and the
     * adapter's send queue never fills with proofs waiting for Read credits (the next goes as one completes).
     */
    static final int MAX_IN_FLIGHT = 2;

    /** The last send position a proof was posted for, and the proofs posted and not completed. */
    private long provenPosted = -1;
    private int inFlight;
    /** Sends and Writes posted since the last proof. */
    private int unproven;
    /** The last of this side's Sends the peer's headers say it received (piggy-backed), and the last one applied. */
    private volatile int peerAcked;
    private int ackApplied;
    /** What the peer's headers acknowledged when the last proof was posted: acks that moved since make the next proof wait. */
    private int ackedAtProof;

    /** A Send or Write was posted; true when it is the first since the last proof (from then the QP is watched). */
    boolean posted() {
        return unproven++ == 0;
    }

    /** Whether {@code every} Sends and Writes were posted since the last proof: the next is due now. */
    boolean batchFull(int every) {
        return unproven >= every;
    }

    /** Nothing waits for a proof any more (the peer's acknowledgements proved it all): the next batch counts from here. */
    void batchDone() {
        unproven = 0;
    }

    /** The peer's header says it received this side's Sends up to {@code acked} (ids compare as serial numbers). */
    void acked(int acked) {
        if (MessageIds.after(acked, peerAcked)) {
            peerAcked = acked;
        }
    }

    /** Whether the peer acknowledged Sends since {@link #takeAck} last took its acknowledgement. */
    boolean ackMoved() {
        return peerAcked != ackApplied;
    }

    /** The peer's latest acknowledgement, taken as applied. */
    int takeAck() {
        int acked = peerAcked;
        ackApplied = acked;
        return acked;
    }

    /**
     * A move took the Sends to a new path: what the peer holds was settled up to {@code held}; the
     * {@code reposted} Sends and Writes wait for a proof on the new path. Unless the path stayed
     * ({@code inPlace}): then the proofs in flight there still count.
     */
    void moved(long held, int reposted, boolean inPlace) {
        if (!inPlace) { // the proofs in flight went with the failed path
            provenPosted = held;
            inFlight = 0;
            unproven = reposted;
        }
    }

    /** The send path failed: its proofs in flight went with it; what they covered, after {@code released}, waits for the next. */
    void lost(long released) {
        provenPosted = released - 1;
        inFlight = 0;
    }

    /** The QP went to RESET, its next send position {@code next}: nothing is in flight, nothing waits, nothing was acknowledged. */
    void reset(long next) {
        provenPosted = next - 1;
        inFlight = 0;
        unproven = 0;
        peerAcked = 0;
        ackApplied = 0;
        ackedAtProof = 0;
    }

    /** Whether a proof may go now for what was posted up to {@code lastPayload}: some of it is not covered, and fewer than the most are in flight. */
    boolean mayProve(long lastPayload) {
        return uncovered(lastPayload) && inFlight < MAX_IN_FLIGHT;
    }

    /** Whether a Send or Write posted up to {@code lastPayload} is covered by no proof posted. */
    boolean uncovered(long lastPayload) {
        return lastPayload > provenPosted;
    }

    /** A proof covering positions up to {@code covers} was posted. */
    void proofPosted(long covers) {
        provenPosted = covers;
        ackedAtProof = peerAcked;
        inFlight++;
        unproven = 0;
    }

    /** A proof was posted behind everything at the connection's end (it settles, it covers nothing new). */
    void settlePosted() {
        inFlight++;
    }

    /**
     * A proof completed ({@code ok}: it succeeded); true when the next follows at once: while the peer
     * answers nothing (a one-way stream). While its Sends acknowledge ours (a ping-pong, request and
     * response) they prove what we sent, and what they leave waits for a batch or for its age.
     */
    boolean proofDone(boolean ok) {
        inFlight = Math.max(0, inFlight - 1);
        return ok && peerAcked == ackedAtProof;
    }

    /** Whether a proof is posted and not completed. */
    boolean inFlight() {
        return inFlight > 0;
    }

    /** Whether the oldest unproven Send or Write, posted at {@code oldestNanos}, is {@code boundNanos} old at {@code now}. */
    static boolean due(long oldestNanos, long now, long boundNanos) {
        return now - oldestNanos >= boundNanos;
    }
}

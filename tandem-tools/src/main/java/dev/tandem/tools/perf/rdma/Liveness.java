package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.PerfException;

/**
 * Judges, while one side waits, whether its peer still shows life, so that a long quiet phase (the
 * target of RDMA Writes sees no completion for the whole phase) is told apart from a dead peer.
 *
 * <p>Signs of life: a completion; a probe (a small RDMA Read of the peer's progress word, sent after
 * {@link Patience#probeAfter} of quiet, at most one in flight) that finds the word changed. A probe
 * answered with the word unchanged proves the link and the peer's adapter alive, but not its
 * application. The wait fails once the peer showed no life for {@link Patience#stallLimit}, saying
 * whether the peer stopped answering or answers without progressing.
 *
 * <p>Pure bookkeeping: the caller passes the time and does the posting ({@link CompletionWaiter}).
 */
final class Liveness {
    private final long limitNanos;
    private final long probeAfterNanos;
    private final String what;
    /** The last sign of life: the wait's start, a completion, a changed progress word. */
    private long lifeAt;
    /** Since when nothing happened: a sign of life or a probe's answer. */
    private long quietSince;
    private boolean answeredSinceLife;
    private boolean probeInFlight;
    private long probePostedAt;
    private boolean knowsWord;
    private long word;

    /** @param what what is waiting, for the message, e.g. "server waiting for a completion" */
    Liveness(Patience patience, String what) {
        this.limitNanos = patience.stallLimit().toNanos();
        this.probeAfterNanos = patience.probeAfter().toNanos();
        this.what = what;
    }

    /** A wait begins at {@code now}: waiting is not yet a sign of trouble. */
    void begin(long now) {
        life(now);
    }

    /** Something arrived (a completion, the byte watched for). */
    void life(long now) {
        lifeAt = now;
        quietSince = now;
        answeredSinceLife = false;
    }

    /** Whether to post a probe now: quiet long enough, and none in flight. */
    boolean probeDue(long now) {
        return !probeInFlight && now - quietSince >= probeAfterNanos;
    }

    void probePosted(long now) {
        probeInFlight = true;
        probePostedAt = now;
    }

    boolean probeInFlight() {
        return probeInFlight;
    }

    /** A probe came back with the peer's progress word; a changed word is a sign of life. */
    void probeAnswered(long now, long peerWord) {
        probeInFlight = false;
        boolean changed = knowsWord && peerWord != word;
        knowsWord = true;
        word = peerWord;
        if (changed) {
            life(now);
        } else {
            answeredSinceLife = true;
            quietSince = now;
        }
    }

    /** A probe was flushed: the connection is gone (the waiter reports that). */
    void probeFlushed() {
        probeInFlight = false;
    }

    /** Fails the wait once the peer has shown no life for the stall limit. */
    void check(long now) {
        long silent = now - lifeAt;
        if (silent <= limitNanos) {
            return;
        }
        if (answeredSinceLife) {
            throw new PerfException(what + ": the peer showed no progress for " + Patience.describe(silent)
                    + "; it answers probes (the link and its adapter are alive) but its progress word stayed at " + word
                    + ": the peer application stopped progressing");
        }
        throw new PerfException(what + ": no completion for " + Patience.describe(silent)
                + " and no answer to a probe (an 8-byte RDMA Read of the peer's progress word"
                + (probeInFlight ? ", posted " + Patience.describe(now - probePostedAt) + " ago" : "")
                + "): the peer's adapter or the link stopped");
    }
}

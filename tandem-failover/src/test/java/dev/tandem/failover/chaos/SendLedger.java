package dev.tandem.failover.chaos;

import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The send queue of one QP as the application posted it, and the checker of its completions: signalled
 * requests complete once each, in posting order, with the opcode of their kind; an unsignalled request
 * makes no successful completion of its own and is covered by the next completion after it; once a
 * completion of the queue is in error, none after it succeeds. A request counts against the send
 * depth until it is resolved (its own completion or one that covers it).
 */
final class SendLedger {
    /** What a request is, as the application posted it. */
    enum Op {
        /** A Send of a message (or, with message -1, a probe posted after the QP ended). */
        SEND(CompletionOpcode.SEND),
        /** The RDMA Write a message names. */
        WRITE(CompletionOpcode.RDMA_WRITE),
        /** An RDMA Read of the peer's known bytes. */
        READ(CompletionOpcode.RDMA_READ),
        /** An RDMA Write of this side's credit word into the peer. */
        CREDIT(CompletionOpcode.RDMA_WRITE);

        final CompletionOpcode opcode;

        Op(CompletionOpcode opcode) {
            this.opcode = opcode;
        }
    }

    /**
     * One posted request.
     *
     * @param seq       its number in this queue's posting order (also its wrId's low bits)
     * @param op        what it is
     * @param signalled posted with SIGNALED (or on a signal-all QP)
     * @param message   the message it carries or names; -1 for none
     * @param length    bytes it moves
     * @param remote    the remote offset of a Read
     * @param slot      the local slot a Read lands in
     * @param probe     posted after the QP was seen in ERROR: must flush
     */
    record Posted(long seq, Op op, boolean signalled, int message, int length, long remote, int slot, boolean probe) {
        @Override
        public String toString() {
            return "#" + seq + " " + op + (message >= 0 ? " msg " + message : "") + " " + length + "B"
                    + (signalled ? " signalled" : " unsignalled") + (probe ? " probe" : "");
        }
    }

    /** How a resolved request ended. */
    enum Outcome {
        /** Its own completion said SUCCESS. */
        SUCCEEDED,
        /** Unsignalled, covered by a later completion. */
        COVERED,
        /** Its own completion was in error. */
        FAILED
    }

    /** Told of every request the ledger resolves, in posting order. */
    interface Resolutions {
        void resolved(Posted p, Outcome outcome, long byteLength);
    }

    private final ArrayDeque<Posted> queue = new ArrayDeque<>();
    private final String who;
    private final Findings findings;
    private final boolean errorsAllowed;
    private long nextSeq;
    private boolean errorSeen;
    private CompletionStatus firstError;
    private int errors;
    /** Signalled requests a later completion passed over, by seq: lost unless their completion comes late. */
    private final java.util.Map<Long, Posted> skipped = new java.util.TreeMap<>();
    private int lateCompletions;
    /** Unsignalled requests an error completion passed over: their own flush may still come, late. */
    private final java.util.Map<Long, Posted> passedUnsignalled = new java.util.HashMap<>();

    /**
     * @param who           the queue's name in violations
     * @param errorsAllowed true when the connection may end (then only WR_FLUSH_ERR is allowed); false
     *                      when any error completion is a violation
     */
    SendLedger(String who, Findings findings, boolean errorsAllowed) {
        this.who = who;
        this.findings = findings;
        this.errorsAllowed = errorsAllowed;
    }

    /** Logs a request about to be posted; {@link #unpost} it when the post throws. */
    Posted post(Op op, boolean signalled, int message, int length, long remote, int slot, boolean probe) {
        Posted p = new Posted(nextSeq++, op, signalled, message, length, remote, slot, probe);
        queue.addLast(p);
        return p;
    }

    /** Forgets the request last logged: its post threw, so it never entered the queue. */
    void unpost(Posted p) {
        if (queue.peekLast() == p) {
            queue.removeLast();
            nextSeq--;
        }
    }

    /** Requests posted and not yet resolved: what counts against the send depth. */
    int outstanding() {
        return queue.size();
    }

    /** The seq of the next request. */
    long nextSeq() {
        return nextSeq;
    }

    boolean errorSeen() {
        return errorSeen;
    }

    /** True when the last posted request is unsignalled: nothing would cover it. */
    boolean uncoveredTail() {
        Posted last = queue.peekLast();
        return last != null && !last.signalled();
    }

    /** True while a signalled request waits for its completion. */
    boolean signalledOutstanding() {
        if (!skipped.isEmpty()) {
            return true;
        }
        for (Posted p : queue) {
            if (p.signalled()) {
                return true;
            }
        }
        return false;
    }

    /** The signalled requests still without a completion (those passed over by a later completion first). */
    List<Posted> unresolvedSignalled() {
        List<Posted> l = new ArrayList<>(skipped.values());
        for (Posted p : queue) {
            if (p.signalled()) {
                l.add(p);
            }
        }
        return l;
    }

    /** Tells what was counted rather than told: more late completions, more errors while a path remained. */
    void summarise() {
        if (lateCompletions > 1) {
            findings.add(Check.SEND_ORDER, who + ": " + (lateCompletions - 1) + " more requests completed after later ones");
        }
        if (errors > 1) {
            findings.add(Check.STATUS, who + ": " + (errors - 1) + " more error completions followed the first");
        }
    }

    Posted head() {
        return queue.peekFirst();
    }

    /** Matches one completion of this queue against the posting order. */
    void complete(long seq, CompletionStatus status, CompletionOpcode opcode, long byteLength, Resolutions to) {
        boolean ok = status == CompletionStatus.SUCCESS;
        if (!queue.isEmpty() && queue.peekFirst().seq() < seq) {
            // everything before it is resolved by it: unsignalled ones are covered, signalled ones were skipped
            List<Posted> passed = new ArrayList<>();
            while (!queue.isEmpty() && queue.peekFirst().seq() < seq) {
                Posted p = queue.pollFirst();
                if (p.signalled()) {
                    passed.add(p);
                    skipped.put(p.seq(), p);
                } else {
                    if (!ok) {
                        // an error covers nothing for sure: it may have completed silently, or its own flush may still come (late)
                        passedUnsignalled.put(p.seq(), p);
                    }
                    to.resolved(p, Outcome.COVERED, 0);
                }
            }
            if (!passed.isEmpty()) {
                Posted it = queue.peekFirst();
                boolean probe = it != null && it.seq() == seq && it.probe();
                findings.add(Check.SEND_ORDER, who + ": completion of #" + seq + (probe ? " (the probe Send posted once the QP was"
                        + " seen in ERROR, " : " (") + status + ") came before the completions of " + passed.size()
                        + " signalled requests posted before it, " + passed.getFirst() + (passed.size() > 1 ? " .. " + passed.getLast() : "")
                        + " (lost, or completed out of order)");
            }
        }
        Posted unsignalled = passedUnsignalled.remove(seq);
        if (unsignalled != null) {
            if (lateCompletions++ == 0) {
                findings.add(Check.SEND_ORDER, who + ": " + unsignalled + " completed " + status + " after a later request's error"
                        + " completion (flushes must come in posting order)");
            }
            if (ok) {
                findings.add(Check.COMPLETION, who + ": unsignalled " + unsignalled + " made a successful completion of its own");
            }
            return;
        }
        Posted late = skipped.remove(seq);
        if (late != null) {
            // a request passed over earlier completes now: out of order; told once, counted by summarise
            if (lateCompletions++ == 0) {
                findings.add(Check.SEND_ORDER, who + ": " + late + " completed " + status + " after later requests had completed");
            }
            to.resolved(late, ok ? Outcome.SUCCEEDED : Outcome.FAILED, byteLength);
            return;
        }
        Posted p = queue.peekFirst();
        if (p == null || p.seq() != seq) {
            findings.add(Check.SEND_ORDER, who + ": completion of #" + seq + " (" + status + ", " + opcode + ") is for a request "
                    + (seq < nextSeq ? "already resolved (a second completion)" : "never posted")
                    + "; next outstanding " + (p == null ? "none" : p));
            return;
        }
        queue.pollFirst();
        if (opcode != p.op().opcode) {
            findings.add(Check.COMPLETION, who + ": completion of " + p + " has opcode " + opcode + ", expected " + p.op().opcode);
        }
        if (ok) {
            if (errorSeen) {
                findings.add(Check.STATUS, who + ": " + p + " completed SUCCESS after an earlier completion of the queue was "
                        + firstError + " (completions after an error must be flushes)");
            }
            if (!p.signalled()) {
                findings.add(Check.COMPLETION, who + ": unsignalled " + p + " made a successful completion of its own");
            }
            if (p.probe()) {
                findings.add(Check.END, who + ": " + p + ", posted after the QP was in ERROR, completed SUCCESS (it must flush)");
            }
            if (byteLength != p.length()) {
                findings.add(Check.COMPLETION, who + ": completion of " + p + " says " + byteLength + " bytes, posted " + p.length());
            }
            to.resolved(p, Outcome.SUCCEEDED, byteLength);
            return;
        }
        if (!errorSeen) {
            errorSeen = true;
            firstError = status;
        }
        if (!errorsAllowed && !p.probe()) {
            if (errors++ == 0) { // the rest follow from the first: counted, told once by summarise
                findings.add(Check.STATUS, who + ": " + p + " completed " + status + " while a path remained");
            }
        } else if (status != CompletionStatus.WR_FLUSH_ERR) {
            findings.add(Check.STATUS, who + ": " + p + " completed " + status + " where only WR_FLUSH_ERR is allowed (the connection ended)");
        }
        to.resolved(p, Outcome.FAILED, byteLength);
    }
}

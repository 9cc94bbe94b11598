package dev.tandem.failover.chaos;

import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.WorkCompletion;

import java.util.random.RandomGenerator;

/**
 * The receiving half of one end: checks each receive completion (status, opcode, QP, buffer order),
 * hands the message's bytes, reassembled from its scatter pieces, to the stream's {@link StreamCheck},
 * checks nothing was placed past the message, counts it consumed (the credit the sending half reports)
 * and posts the buffer again at once.
 */
final class ReceiveSide {
    private final EndPoint end;
    private final ReceiveBuffers buffers;
    private final StreamCheck check;
    private final StreamState in;
    private final Findings findings;
    private final RandomGenerator rng;
    private final boolean errorsAllowed;
    private final java.util.ArrayDeque<Integer> repost = new java.util.ArrayDeque<>();
    private long consumed;
    private int outOfOrder;
    private boolean errorSeen;
    private int errors;

    ReceiveSide(EndPoint end, ReceiveBuffers buffers, StreamCheck check, StreamState in, Findings findings, RandomGenerator rng,
                boolean errorsAllowed) {
        this.end = end;
        this.buffers = buffers;
        this.check = check;
        this.in = in;
        this.findings = findings;
        this.rng = rng;
        this.errorsAllowed = errorsAllowed;
    }

    /** True when {@code wrId} is one of this end's receives (its own queue's or its shared queue's). */
    boolean owns(long wrId) {
        return buffers.bufferOf(wrId) >= 0;
    }

    void onCompletion(WorkCompletion wc) {
        String who = end.name() + " receive";
        int b = buffers.bufferOf(wc.wrId());
        String order = buffers.take(b);
        if (order != null && outOfOrder++ < 3) { // the first few told, the rest counted by summarise
            findings.add(Check.RECEIVE_ORDER, who + ": " + order + " (" + wc + ")");
        }
        if (wc.qpNumber() != end.qp().qpNumber()) {
            findings.add(Check.COMPLETION, who + ": " + wc + " names QP " + wc.qpNumber() + ", the QP is " + end.qp().qpNumber());
        }
        if (wc.status() != CompletionStatus.SUCCESS) {
            boolean first = !errorSeen;
            errorSeen = true;
            if (!errorsAllowed) {
                if (errors++ == 0) {
                    findings.add(Check.STATUS, who + ": buffer " + b + " completed " + wc.status() + " while a path remained");
                }
            } else if (wc.status() != CompletionStatus.WR_FLUSH_ERR) {
                findings.add(Check.STATUS, who + ": buffer " + b + " completed " + wc.status() + " where only WR_FLUSH_ERR is allowed");
            }
            if (first) {
                end.ended("a receive completion in error");
            }
            return;
        }
        if (errorSeen) {
            findings.add(Check.STATUS, who + ": buffer " + b + " completed SUCCESS after a receive of the queue completed in error");
        }
        if (wc.opcode() != CompletionOpcode.RECV) {
            findings.add(Check.COMPLETION, who + ": " + wc + " has opcode " + wc.opcode() + ", expected RECV");
        }
        long length = wc.byteLength();
        if (length > buffers.total()) {
            findings.add(Check.CORRUPT, who + ": " + wc + " says " + length + " bytes, the buffer holds " + buffers.total());
        }
        byte[] got = buffers.read(b, (int) Math.min(length, buffers.total()));
        int beyond = buffers.placedBeyond(b, got.length);
        if (beyond >= 0) {
            findings.add(Check.CORRUPT, who + ": byte " + beyond + " of buffer " + b + " was written, past the message's "
                    + length + " bytes");
        }
        check.accept(got, length, wc.isSolicited());
        consumed++;
        if (!end.isEnded()) {
            repost.addLast(b);
            retry();
        }
    }

    /** Posts again the buffers whose completions were handled; one whose post throws is tried again next step. */
    boolean retry() {
        boolean posted = false;
        while (!repost.isEmpty()) {
            int b = repost.peekFirst();
            try {
                buffers.post(b, rng);
            } catch (RuntimeException e) {
                end.threw("postReceive", e, " posting buffer " + b + " again" + (buffers.isShared() ? ""
                        : " (" + buffers.outstanding() + " of the application's " + buffers.count() + " buffers posted)"));
                return posted;
            }
            repost.pollFirst();
            posted = true;
        }
        return posted;
    }

    /** Receives consumed: the peer's credit. */
    long consumed() {
        return consumed;
    }

    /** True when every message of the inbound stream arrived (or its sender's connection ended). */
    boolean drained() {
        return in.broken || in.finalCount >= 0 && check.next() >= in.finalCount;
    }

    /** True when the QP's own receive queue has nothing posted left (an ended QP flushes it; a shared queue keeps its buffers). */
    boolean flushed() {
        return buffers.outstanding() == 0;
    }

    /** Tells what was counted rather than told: more completions out of order, more errors while a path remained. */
    void summarise() {
        if (outOfOrder > 3) {
            findings.add(Check.RECEIVE_ORDER, end.name() + " receive: " + (outOfOrder - 3) + " more completions out of order");
        }
        if (errors > 1) {
            findings.add(Check.STATUS, end.name() + " receive: " + (errors - 1) + " more error completions followed the first");
        }
    }

    StreamCheck check() {
        return check;
    }

    String describe() {
        return "inbound next " + check.next() + " of final " + in.finalCount + (in.broken ? " (broken)" : "") + ", consumed " + consumed
                + ", own receives posted " + buffers.outstanding();
    }
}

package dev.tandem.failover.check;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.RdmaException;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The sending side of a checked stream on one queue pair: it posts data Sends (each after an RDMA
 * Write of the block it announces, when the shape asks for one) while it holds credits, and reaps
 * their completions, which must come in posting order. It starts with {@code window} credits and
 * takes more from the credit messages the receiver sends back, so it never has more Sends in flight
 * than the receiver has receives posted. After a completion in error it posts nothing more.
 *
 * <p>{@link CheckedStream} drives it together with its receiver in one process; where the receiver runs in
 * another, {@link #on} makes it from the receiver's {@link RingOffer} (e.g. from the connection's private
 * data), the caller's thread drives it with {@link #step}, and {@link #half} is its half of the verdict.
 */
public final class StreamSender implements AutoCloseable {
    private final QueuePair qp;
    private final StreamShape shape;
    private final RingOffer ring;
    private final Completions cqs;
    private final Arena arena = Arena.ofShared();
    private final MemoryRegion region;
    private final long blockBase;
    private final long creditBase;
    private final int sendDepth;
    private final ReceiveRequest[] creditReceives;
    private final long[] postedOrder;
    private final Findings findings = new Findings("sender");
    private final SequenceCheck credits = new SequenceCheck();
    private long limit;
    private long sent;
    private long sendsDone;
    private long succeededThrough;
    private long blocksWritten;
    private long writesDone;
    private long bytesSent;
    private long posted;
    private long completed;
    private long creditReceivesOutstanding;
    private long granted;
    private boolean broken;
    private long lastSuccessNanos;
    /** The first success after the longest silence between two successes so far: where a fail-over's pause ended (0 before). */
    private long resumedNanos;
    private long longestSilenceNanos;

    /**
     * The sender of a checked stream on {@code qp}, to the receiver that made {@code offer}. Posts its
     * receives for credits now; nothing is sent before {@link #limit} and {@link #step}.
     *
     * @throws IllegalArgumentException when the queue pair or its completion queues cannot hold the stream's work
     */
    public static StreamSender on(QueuePair qp, RingOffer offer) {
        if (qp == null || offer == null) {
            throw new IllegalArgumentException("a stream's sender needs a QP and the receiver's ring offer, got " + qp + ", " + offer);
        }
        return new StreamSender(qp, offer);
    }

    StreamSender(QueuePair qp, RingOffer ring) {
        if (qp.config().srq() != null) {
            throw new IllegalArgumentException("the checked stream posts its own receives for credits; QP " + qp.qpNumber()
                    + " uses a shared receive queue");
        }
        StreamShape s = ring.shape();
        int needed = (s.window() + StreamReceiver.creditEvery(s) - 1) / StreamReceiver.creditEvery(s) + 1;
        if (qp.config().receiveDepth() < needed) {
            throw new IllegalArgumentException("the sender's QP takes " + qp.config().receiveDepth() + " receives; credits for a window of "
                    + s.window() + " need " + needed);
        }
        if (qp.config().sendDepth() < 2) {
            throw new IllegalArgumentException("the sender's QP has " + qp.config().sendDepth() + " send slots; a Write and its Send need 2");
        }
        this.qp = qp;
        this.shape = s;
        this.ring = ring;
        this.cqs = new Completions(qp);
        this.sendDepth = qp.config().sendDepth();
        cqs.requireRoom(sendDepth, needed, "the sender");
        this.blockBase = (long) s.window() * s.messageBytes();
        this.creditBase = blockBase + (long) s.ringSlots() * s.blockBytes();
        this.region = qp.pd().registerMemory(arena.allocate(creditBase + (long) needed * CheckedMessage.HEADER, 64), Access.LOCAL_WRITE);
        this.postedOrder = new long[sendDepth];
        this.creditReceives = new ReceiveRequest[needed];
        for (int i = 0; i < needed; i++) {
            creditReceives[i] = new ReceiveRequest(Completions.wrId(Completions.CREDIT_RECEIVE, i),
                    new Sge(region, creditBase + (long) i * CheckedMessage.HEADER, CheckedMessage.HEADER));
            qp.postReceive(creditReceives[i]);
            creditReceivesOutstanding++;
        }
    }

    /** Sends messages until {@code messages} were sent in all (it never takes back what it sent). */
    public void limit(long messages) {
        if (messages < 0) {
            throw new IllegalArgumentException("messages " + messages + " is negative");
        }
        limit = Math.max(messages, sent);
    }

    long limit() {
        return limit;
    }

    /** Reaps completions, then posts what credits and free slots allow; whether anything happened. Never blocks. */
    public boolean step() {
        boolean progressed = reap();
        while (!broken && sent < limit && mayPost()) {
            post();
            progressed = true;
        }
        return progressed;
    }

    private boolean mayPost() {
        boolean block = shape.announces(sent);
        return sent < shape.window() + granted
                && sent - sendsDone < shape.window()
                && posted - completed + (block ? 2 : 1) <= sendDepth
                && (!block || blocksWritten - writesDone < shape.ringSlots());
    }

    private void post() {
        int slot = CheckedMessage.NO_SLOT;
        long blockSeq = 0;
        if (shape.announces(sent)) {
            blockSeq = blocksWritten + 1;
            slot = (int) (blocksWritten % shape.ringSlots());
            long at = blockBase + (long) slot * shape.blockBytes();
            CheckedBlock.write(region.segment().asSlice(at, shape.blockBytes()), shape.blockBytes(), blockSeq);
            if (!postSend(new WorkRequest.RdmaWrite(Completions.wrId(Completions.WRITE, blockSeq), new Sge(region, at, shape.blockBytes()),
                    ring.offset() + (long) slot * shape.blockBytes(), ring.rkey(), WrFlags.SIGNALED))) {
                return;
            }
            blocksWritten++;
            bytesSent += shape.blockBytes();
        }
        long at = (sent % shape.window()) * shape.messageBytes();
        CheckedMessage.writeData(region.segment().asSlice(at, shape.messageBytes()), shape.messageBytes(), sent, slot, blockSeq);
        if (postSend(new WorkRequest.Send(Completions.wrId(Completions.SEND, sent), new Sge(region, at, shape.messageBytes()), WrFlags.SIGNALED))) {
            sent++;
            bytesSent += shape.messageBytes();
        }
    }

    /** Posts {@code wr}; whether the device took it (one it refuses breaks the stream). */
    private boolean postSend(WorkRequest wr) {
        try {
            qp.postSend(wr);
        } catch (RdmaException e) {
            findings.refused("posting " + describe(wr.wrId()), e);
            broken = true;
            return false;
        }
        postedOrder[(int) (posted % postedOrder.length)] = wr.wrId();
        posted++;
        return true;
    }

    private boolean reap() {
        int n;
        try {
            n = cqs.poll();
        } catch (RdmaException e) {
            findings.refused("polling the sender's completions", e);
            broken = true;
            return false;
        }
        WorkCompletion[] wcs = cqs.polled();
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs[i];
            long tag = Completions.tag(wc.wrId());
            if (tag == Completions.SEND || tag == Completions.WRITE) {
                sendQueueDone(wc, tag);
            } else if (tag == Completions.CREDIT_RECEIVE) {
                creditArrived(wc);
            } else {
                findings.stray(wc);
            }
        }
        return n > 0;
    }

    private void sendQueueDone(WorkCompletion wc, long tag) {
        long due = postedOrder[(int) (completed % postedOrder.length)];
        if (completed < posted && wc.wrId() != due) {
            findings.reordered++;
            findings.problem(describe(wc.wrId()) + " completed where " + describe(due) + " was due (out of posting order)");
        }
        completed++;
        if (tag == Completions.SEND) {
            sendsDone++;
        } else {
            writesDone++;
        }
        if (wc.status() != CompletionStatus.SUCCESS) {
            findings.error(wc.status(), describe(wc.wrId()));
            broken = true;
            return;
        }
        succeeded();
        if (tag == Completions.SEND) {
            succeededThrough = Math.max(succeededThrough, Completions.low(wc.wrId()) + 1);
        }
    }

    private static String describe(long wrId) {
        return (Completions.tag(wrId) == Completions.SEND ? "the Send of message " : "the Write of block ") + Completions.low(wrId);
    }

    private void creditArrived(WorkCompletion wc) {
        creditReceivesOutstanding--;
        if (wc.status() != CompletionStatus.SUCCESS) {
            findings.error(wc.status(), "a receive for credits");
            broken = true;
            return;
        }
        succeeded();
        int buffer = (int) Completions.low(wc.wrId());
        MemorySegment m = region.segment().asSlice(creditBase + (long) buffer * CheckedMessage.HEADER, CheckedMessage.HEADER);
        if (!CheckedMessage.intact(m, wc.byteLength()) || CheckedMessage.kind(m) != CheckedMessage.KIND_CREDIT) {
            findings.checksumErrors++;
            findings.problem("a credit message of " + wc.byteLength() + " bytes is corrupt (its length, kind or CRC32C does not match)");
        } else {
            long number = CheckedMessage.sequence(m);
            switch (credits.observe(number)) {
                case DUPLICATE -> findings.problem("credit message " + number + " arrived again");
                case LATE -> findings.problem("credit message " + number + " arrived after later ones");
                case IN_ORDER, AHEAD -> {
                }
            }
            granted = Math.max(granted, CheckedMessage.value(m));
        }
        if (!broken) {
            try {
                qp.postReceive(creditReceives[buffer]);
                creditReceivesOutstanding++;
            } catch (RdmaException e) {
                findings.refused("posting a receive for credits", e);
                broken = true;
            }
        }
    }

    /** Whether a completion in error was seen; then nothing more is posted. */
    boolean broken() {
        return broken;
    }

    /** Whether every Send and Write posted has completed. */
    boolean idle() {
        return posted == completed;
    }

    /** Whether nothing is posted any more (after an error every receive for credits was flushed). */
    boolean drained() {
        return idle() && creditReceivesOutstanding == 0;
    }

    long sent() {
        return sent;
    }

    /** One past the last message whose Send completed SUCCESS: the receiver must have every one below. */
    long succeededThrough() {
        return succeededThrough;
    }

    long blocksWritten() {
        return blocksWritten;
    }

    long bytesSent() {
        return bytesSent;
    }

    long lastSuccessNanos() {
        return lastSuccessNanos;
    }

    /**
     * When the application's completions resumed after the longest silence between two of its successful
     * completions so far ({@link System#nanoTime()}; 0 before a second success): after a fault, where the
     * fail-over's pause ended, however late one asks.
     */
    public long resumedNanos() {
        return resumedNanos;
    }

    private void succeeded() {
        long now = System.nanoTime();
        if (lastSuccessNanos != 0 && now - lastSuccessNanos > longestSilenceNanos) {
            longestSilenceNanos = now - lastSuccessNanos;
            resumedNanos = now;
        }
        lastSuccessNanos = now;
    }

    SequenceCheck credits() {
        return credits;
    }

    Findings findings() {
        return findings;
    }

    /** Its half of the verdict, as it stands now. */
    public SenderHalf half() {
        return new SenderHalf(limit, sent, bytesSent, blocksWritten, succeededThrough, idle(), drained(), broken, credits.state(),
                findings.view(), lastSuccessNanos);
    }

    /** Deregisters the stream's memory (the queue pair stays open: it is the caller's). */
    @Override
    public void close() {
        try {
            region.close();
        } finally {
            arena.close();
        }
    }
}

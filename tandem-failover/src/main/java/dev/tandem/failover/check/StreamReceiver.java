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
 * The receiving side of a checked stream on one queue pair: it keeps {@code window} receives posted,
 * checks each message (and the block it announces) with a {@link StreamVerifier}, re-posts the
 * buffer, and grants the sender more Sends with a credit message (a Send back) after every
 * {@link #creditEvery} receives re-posted. Its receives are posted when it is made, so make it before
 * the sender's first Send can arrive. After a completion in error it posts nothing more.
 *
 * <p>{@link CheckedStream} drives it together with its sender in one process; where the sender runs in
 * another, {@link #on} makes it, {@link #offer} is what the sender needs (e.g. in the private data of the
 * accept), the caller's thread drives it with {@link #step}, and {@link #half} is its half of the verdict.
 */
public final class StreamReceiver implements AutoCloseable {
    /** Credit Sends in flight at most. */
    static final int CREDIT_SLOTS = 4;

    private final QueuePair qp;
    private final StreamShape shape;
    private final Completions cqs;
    private final Arena arena = Arena.ofShared();
    private final MemoryRegion buffers;
    private final MemoryRegion ring;
    private final long creditBase;
    private final int creditSlots;
    private final int creditEvery;
    private final Findings findings = new Findings("receiver");
    private final StreamVerifier verifier;
    private final ReceiveRequest[] receives;
    private long receiveCompletions;
    private long receivesOutstanding;
    private long reposted;
    private long granted;
    private long creditsSent;
    private long creditsDone;
    private long creditsSucceeded;
    private boolean broken;
    private long lastSuccessNanos;

    /**
     * The receiver of a checked stream of {@code shape} on {@code qp}; its receives are posted now, so make it
     * before the connection is accepted.
     *
     * @throws IllegalArgumentException when the queue pair or its completion queues cannot hold the stream's work
     */
    public static StreamReceiver on(QueuePair qp, StreamShape shape) {
        if (qp == null || shape == null) {
            throw new IllegalArgumentException("a stream's receiver needs a QP and a shape, got " + qp + ", " + shape);
        }
        return new StreamReceiver(qp, shape);
    }

    StreamReceiver(QueuePair qp, StreamShape shape) {
        if (qp.config().srq() != null) {
            throw new IllegalArgumentException("the checked stream posts its own receives; QP " + qp.qpNumber() + " uses a shared receive queue");
        }
        if (qp.config().receiveDepth() < shape.window()) {
            throw new IllegalArgumentException("the receiver's QP takes " + qp.config().receiveDepth() + " receives; the window is "
                    + shape.window());
        }
        this.qp = qp;
        this.shape = shape;
        this.cqs = new Completions(qp);
        this.creditSlots = Math.min(CREDIT_SLOTS, qp.config().sendDepth());
        this.creditEvery = creditEvery(shape);
        cqs.requireRoom(creditSlots, shape.window(), "the receiver");
        long buffersBytes = (long) shape.window() * shape.messageBytes();
        this.creditBase = buffersBytes;
        this.buffers = qp.pd().registerMemory(arena.allocate(buffersBytes + (long) creditSlots * CheckedMessage.HEADER, 64), Access.LOCAL_WRITE);
        MemorySegment ringMemory = arena.allocate(Math.max(1L, (long) shape.ringSlots() * shape.blockBytes()), 64);
        this.ring = shape.writeEvery() == 0 ? null : qp.pd().registerMemory(ringMemory, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        this.verifier = new StreamVerifier(shape, ringMemory, findings);
        this.receives = new ReceiveRequest[shape.window()];
        for (int i = 0; i < shape.window(); i++) {
            receives[i] = new ReceiveRequest(Completions.wrId(Completions.DATA_RECEIVE, i),
                    new Sge(buffers, (long) i * shape.messageBytes(), shape.messageBytes()));
            qp.postReceive(receives[i]);
            receivesOutstanding++;
        }
    }

    /** Receives re-posted between two credit messages: a quarter of the window. */
    static int creditEvery(StreamShape shape) {
        return Math.max(1, shape.window() / 4);
    }

    /** What the sender needs: the shape and the ring. */
    public RingOffer offer() {
        return new RingOffer(shape, ring == null ? 0 : ring.rkey(), 0);
    }

    /** Reaps completions, checks what arrived, re-posts, and grants credits; whether anything happened. Never blocks. */
    public boolean step() {
        boolean progressed = false;
        int n;
        try {
            n = cqs.poll();
        } catch (RdmaException e) {
            findings.refused("polling the receiver's completions", e);
            broken = true;
            return false;
        }
        WorkCompletion[] wcs = cqs.polled();
        for (int i = 0; i < n; i++) {
            progressed = true;
            WorkCompletion wc = wcs[i];
            long tag = Completions.tag(wc.wrId());
            if (tag == Completions.DATA_RECEIVE) {
                received(wc);
            } else if (tag == Completions.CREDIT_SEND) {
                creditDone(wc);
            } else {
                findings.stray(wc);
            }
        }
        return grant() || progressed;
    }

    private void received(WorkCompletion wc) {
        receivesOutstanding--;
        int slot = (int) Completions.low(wc.wrId());
        int due = (int) (receiveCompletions++ % shape.window());
        if (slot != due) {
            findings.reordered++;
            findings.problem("the receive of buffer " + slot + " completed where buffer " + due + " was due (out of posting order)");
        }
        if (wc.status() != CompletionStatus.SUCCESS) {
            findings.error(wc.status(), "a receive");
            broken = true;
            return;
        }
        lastSuccessNanos = System.nanoTime();
        verifier.accept(buffers.segment().asSlice((long) slot * shape.messageBytes(), shape.messageBytes()), wc.byteLength());
        if (!broken && slot >= 0 && slot < receives.length) {
            try {
                qp.postReceive(receives[slot]);
                receivesOutstanding++;
                reposted++;
            } catch (RdmaException e) {
                findings.refused("re-posting receive " + slot, e);
                broken = true;
            }
        }
    }

    private void creditDone(WorkCompletion wc) {
        creditsDone++;
        if (wc.status() != CompletionStatus.SUCCESS) {
            findings.error(wc.status(), "credit Send " + Completions.low(wc.wrId()));
            broken = true;
        } else {
            lastSuccessNanos = System.nanoTime();
            creditsSucceeded = Math.max(creditsSucceeded, Completions.low(wc.wrId()) + 1);
        }
    }

    /** Sends a credit message once {@link #creditEvery} receives were re-posted since the last. */
    private boolean grant() {
        if (broken || reposted - granted < creditEvery || creditsSent - creditsDone >= creditSlots) {
            return false;
        }
        long at = creditBase + (creditsSent % creditSlots) * CheckedMessage.HEADER;
        CheckedMessage.writeCredit(buffers.segment().asSlice(at, CheckedMessage.HEADER), creditsSent, reposted);
        try {
            qp.postSend(new WorkRequest.Send(Completions.wrId(Completions.CREDIT_SEND, creditsSent), new Sge(buffers, at, CheckedMessage.HEADER),
                    WrFlags.SIGNALED));
        } catch (RdmaException e) {
            findings.refused("posting credit Send " + creditsSent, e);
            broken = true;
            return false;
        }
        creditsSent++;
        granted = reposted;
        return true;
    }

    /** Whether a completion in error was seen; then nothing more is posted. */
    boolean broken() {
        return broken;
    }

    /** Whether no credit Send is in flight. */
    boolean creditsIdle() {
        return creditsSent == creditsDone;
    }

    /** Whether nothing is posted any more (after an error every receive was flushed). */
    boolean drained() {
        return receivesOutstanding == 0 && creditsIdle();
    }

    /** Credit messages that completed SUCCESS: numbers 0 .. this - 1 the sender should have. */
    long creditsSucceeded() {
        return creditsSucceeded;
    }

    long lastSuccessNanos() {
        return lastSuccessNanos;
    }

    StreamVerifier verifier() {
        return verifier;
    }

    Findings findings() {
        return findings;
    }

    /** Its half of the verdict, as it stands now. */
    public ReceiverHalf half() {
        return new ReceiverHalf(verifier.messages(), verifier.bytes(), verifier.blocks(), verifier.sequence().state(), creditsSucceeded,
                creditsIdle(), drained(), broken, findings.view(), lastSuccessNanos);
    }

    /** Deregisters the stream's memory (the queue pair stays open: it is the caller's). */
    @Override
    public void close() {
        try {
            if (ring != null) {
                ring.close();
            }
            buffers.close();
        } finally {
            arena.close();
        }
    }
}

package dev.tandem.failover.check;

import dev.tandem.verbs.QueuePair;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * A checked stream over one connected pair of queue pairs in this process: data Sends (and RDMA
 * Writes of blocks they announce) from {@code sender} to {@code receiver}, credits back; every
 * message and block is checked and every completion in error counted (see {@link Verdict}).
 *
 * <p>One thread drives both sides: {@link #run} or {@link #runUntilStopped} on the caller's thread,
 * or {@link #step} from a loop of the caller's own that does other work between steps (the demo
 * narrates and injects faults there). {@link #stop} may be called from any thread. The queue pairs
 * stay the caller's; {@link #close} gives back only the memory the stream registered, so close it
 * before the queue pairs' devices.
 *
 * <pre>{@code
 * try (CheckedStream s = CheckedStream.between(qpA, qpB, StreamShape.sendsAndWrites(1024))) {
 *     // connect qpA to qpB here if they are not yet: the receives are posted already
 *     Verdict v = s.run(10_000, Duration.ofSeconds(5), Duration.ofMillis(250), p -> System.out.println(p.messagesReceived()));
 *     assert v.clean();
 * }
 * }</pre>
 */
public final class CheckedStream implements AutoCloseable {
    private final StreamReceiver receiver;
    private final StreamSender sender;
    private volatile boolean stopRequested;
    /** After a completion in error, how long a run waits for the other side's flushes when nothing moves. */
    static final Duration BROKEN_GRACE = Duration.ofSeconds(1);

    private boolean stopped;
    private boolean stalled;
    private boolean ended;

    private CheckedStream(StreamReceiver receiver, StreamSender sender) {
        this.receiver = receiver;
        this.sender = sender;
    }

    /**
     * A stream of {@code shape} from {@code sender} to {@code receiver}: queue pairs (in INIT, or
     * connected to each other) with their own receive queues, whose completion queues serve no other
     * work and are not shared between the two. Posts the receiver's receives (and the sender's, for
     * credits) now; nothing is sent before the first step.
     *
     * @throws IllegalArgumentException when a queue pair or its completion queues cannot hold the
     *                                  stream's work, or the two share a completion queue
     */
    public static CheckedStream between(QueuePair sender, QueuePair receiver, StreamShape shape) {
        if (sender == null || receiver == null || shape == null) {
            throw new IllegalArgumentException("a checked stream needs a sender QP, a receiver QP and a shape, got " + sender + ", "
                    + receiver + ", " + shape);
        }
        if (new Completions(sender).shares(new Completions(receiver))) {
            throw new IllegalArgumentException("QPs " + sender.qpNumber() + " and " + receiver.qpNumber()
                    + " share a completion queue: each side of the stream polls its own");
        }
        StreamReceiver r = new StreamReceiver(receiver, shape);
        try {
            return new CheckedStream(r, new StreamSender(sender, r.offer()));
        } catch (RuntimeException e) {
            r.close();
            throw e;
        }
    }

    /** Lets the sender send until {@code messages} were sent in all (for callers of {@link #step}). */
    public void sendUpTo(long messages) {
        if (messages < 0) {
            throw new IllegalArgumentException("messages " + messages + " is negative");
        }
        sender.limit(messages);
    }

    /**
     * One round on both sides, without blocking: the receiver checks what arrived and grants credits,
     * the sender reaps and posts what credits allow. Whether anything happened.
     */
    public boolean step() {
        if (stopRequested && !stopped) {
            stopped = true;
            sender.limit(sender.sent());
        }
        boolean progressed = receiver.step();
        progressed |= sender.step();
        progressed |= receiver.step();
        return progressed;
    }

    /**
     * Whether the run is over: every message asked for was sent, arrived and was reaped on both sides,
     * with the last credits; or, after a completion in error, both sides have nothing posted any more.
     */
    public boolean finished() {
        return StreamHalves.finished(broken(), sender.drained() && receiver.drained(), sender.sent(), sender.limit(), sender.idle(),
                receiver.verifier().sequence().next(), receiver.creditsIdle(), sender.credits().next(), receiver.creditsSucceeded());
    }

    /** Both halves as they stand now. */
    public StreamHalves halves() {
        return new StreamHalves(sender.half(), receiver.half());
    }

    /**
     * Sends {@code messages} messages (in all, counting those sent by earlier steps) and checks them, on
     * this thread, until every one was reaped on both sides, it was stopped, nothing moved for
     * {@code stallLimit}, or the stream broke (a completion in error) and both sides drained (or the
     * other side stayed quiet for {@link #BROKEN_GRACE}).
     *
     * @param progressEvery how often {@code progress} hears how far it got (a view with ending IN_PROGRESS)
     * @param progress      told every {@code progressEvery}, on this thread; null for none
     */
    public Verdict run(long messages, Duration stallLimit, Duration progressEvery, Consumer<Verdict> progress) {
        sendUpTo(messages);
        return drive(stallLimit, progressEvery, progress);
    }

    /** Like {@link #run} with no end but {@link #stop()}: then what was sent is reaped, and the verdict returned. */
    public Verdict runUntilStopped(Duration stallLimit, Duration progressEvery, Consumer<Verdict> progress) {
        sendUpTo(Long.MAX_VALUE);
        return drive(stallLimit, progressEvery, progress);
    }

    /** Asks the sender to send no more; a run then ends once what was sent is reaped. Any thread. */
    public void stop() {
        stopRequested = true;
    }

    private Verdict drive(Duration stallLimit, Duration progressEvery, Consumer<Verdict> progress) {
        if (stallLimit.isNegative() || stallLimit.isZero() || progressEvery.isNegative() || progressEvery.isZero()) {
            throw new IllegalArgumentException("stallLimit " + stallLimit + " and progressEvery " + progressEvery + " must be positive");
        }
        ended = false;
        stalled = false;
        long stall = stallLimit.toNanos();
        long grace = Math.min(stall, BROKEN_GRACE.toNanos());
        long now = System.nanoTime();
        long lastMoved = now;
        long lastTold = now;
        int idle = 0;
        while (!finished()) {
            now = System.nanoTime();
            if (step()) {
                lastMoved = now;
                idle = 0;
            } else if (broken() && now - lastMoved > grace) {
                break; // the peer has not noticed (yet): what it still holds stays unreaped
            } else if (now - lastMoved > stall) {
                stalled = true;
                break;
            } else {
                idle = pause(idle);
            }
            if (progress != null && now - lastTold >= progressEvery.toNanos()) {
                lastTold = now;
                progress.accept(verdict());
            }
        }
        ended = true;
        return verdict();
    }

    /** Backs off while nothing moves: spin, then yield, then park briefly (the engines need the cores). */
    private static int pause(int idle) {
        if (idle < 64) {
            Thread.onSpinWait();
        } else if (idle < 256) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(20));
        }
        return idle + 1;
    }

    /** Messages sent so far. */
    public long sent() {
        return sender.sent();
    }

    /** Messages that arrived once so far. */
    public long received() {
        return receiver.verifier().messages();
    }

    /** When either side last reaped a successful completion ({@link System#nanoTime()}); 0 before the first. */
    public long lastCompletionNanos() {
        return Math.max(sender.lastSuccessNanos(), receiver.lastSuccessNanos());
    }

    /**
     * What the stream proved so far. While it runs (ending IN_PROGRESS), {@code lost} holds only the
     * gaps below the last message that arrived; once it is over, also the messages whose Sends
     * completed SUCCESS and never arrived.
     */
    public Verdict verdict() {
        return halves().verdict(ending());
    }

    private Verdict.Ending ending() {
        if (!ended && !finished()) {
            return Verdict.Ending.IN_PROGRESS;
        }
        if (broken()) {
            return Verdict.Ending.BROKEN;
        }
        if (stalled) {
            return Verdict.Ending.STALLED;
        }
        return stopped ? Verdict.Ending.STOPPED : Verdict.Ending.COMPLETE;
    }

    /**
     * Whether a completion in error (or a refused post) ended the stream: both sides post nothing more.
     * On a plain adapter a fault does this; over a fail-over device only the loss of every path should.
     */
    public boolean broken() {
        return sender.broken() || receiver.broken();
    }

    /** Deregisters the memory the stream registered; the queue pairs stay open. */
    @Override
    public void close() {
        try {
            sender.close();
        } finally {
            receiver.close();
        }
    }
}

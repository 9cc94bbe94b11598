package dev.tandem.tools.demo;

import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.zip.CRC32C;

/**
 * A stream of messages from one QP to another that the receiver checks, every one: each message is an
 * RDMA Write of a block into the receiver's region followed by a Send of the same block, both carrying
 * the message's sequence number and a CRC32C of the rest. The receiver counts what arrives once and in
 * order, and what is lost (a gap), duplicated, reordered or corrupt, in the Send and in the block the
 * Write placed before it; any completion not SUCCESS on either side is an error the application saw.
 * One thread drives both sides ({@link #step}), so the checks need no locks.
 */
final class CheckedStream {
    static final int SIZE = 1024;
    static final int DEPTH = 32;
    private static final int SEQ = 0;
    private static final int CRC = 4;
    private static final int BODY = 8;

    private final QueuePair sender;
    private final CompletionQueue senderCq;
    private final MemoryRegion source;
    private final QueuePair receiver;
    private final CompletionQueue receiverCq;
    private final MemoryRegion target;
    private final WorkCompletion[] wcs = WorkCompletion.array(32);
    private long sent;
    private long sendsDone;
    private long expected;
    private long received;
    private long bytesReceived;
    private long lost;
    private long duplicated;
    private long reordered;
    private long corrupt;
    private long errors;
    private String firstError;
    /** When the sender last reaped a successful completion ({@link System#nanoTime()}). */
    private long lastCompletionNanos;

    /**
     * A stream from {@code sender} to {@code receiver} (connected); {@code source} and {@code target} are
     * regions of 2 x DEPTH x SIZE bytes (the target with REMOTE_WRITE): receive buffers in the first half,
     * Write blocks in the second. Posts the receiver's buffers.
     */
    CheckedStream(QueuePair sender, CompletionQueue senderCq, MemoryRegion source, QueuePair receiver, CompletionQueue receiverCq,
                  MemoryRegion target) {
        this.sender = sender;
        this.senderCq = senderCq;
        this.source = source;
        this.receiver = receiver;
        this.receiverCq = receiverCq;
        this.target = target;
        for (int i = 0; i < DEPTH; i++) {
            receiver.postReceive(new ReceiveRequest(i, new Sge(target, (long) i * SIZE, SIZE)));
        }
    }

    /** Region size each side needs. */
    static long regionBytes() {
        return 2L * DEPTH * SIZE;
    }

    /** Posts the next message if the window allows, and reaps both sides; false once {@code total} are sent and checked. */
    boolean step(long total) {
        if (sent < total && sent - expectedDone() < DEPTH / 2 && 2 * sent - sendsDone < DEPTH) {
            post();
        }
        reapSender();
        reapReceiver();
        return expected < total || sendsDone < 2 * sent;
    }

    private long expectedDone() {
        return received;
    }

    private void post() {
        int slot = (int) (sent % DEPTH);
        long at = (long) slot * SIZE;
        MemorySegment m = source.segment();
        for (long i = BODY; i < SIZE; i += 8) {
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, at + i, sent * 0x9E3779B97F4A7C15L + i);
        }
        CRC32C crc = new CRC32C();
        crc.update(m.asSlice(at + BODY, SIZE - BODY).asByteBuffer());
        m.set(ValueLayout.JAVA_INT_UNALIGNED, at + CRC, (int) crc.getValue());
        m.set(ValueLayout.JAVA_INT_UNALIGNED, at + SEQ, (int) sent);
        sender.postSend(new WorkRequest.RdmaWrite(2 * sent, new Sge(source, at, SIZE), (long) DEPTH * SIZE + at, target.rkey(),
                WrFlags.SIGNALED));
        sender.postSend(new WorkRequest.Send(2 * sent + 1, new Sge(source, at, SIZE), WrFlags.SIGNALED));
        sent++;
    }

    private void reapSender() {
        int n = senderCq.poll(wcs);
        for (int i = 0; i < n; i++) {
            if (wcs[i].status() != CompletionStatus.SUCCESS) {
                error("sender " + wcs[i]);
            } else {
                lastCompletionNanos = System.nanoTime();
            }
            sendsDone++;
        }
    }

    private void reapReceiver() {
        int n = receiverCq.poll(wcs);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs[i];
            if (wc.status() != CompletionStatus.SUCCESS) {
                error("receiver " + wc);
                continue;
            }
            int slot = (int) wc.wrId();
            long at = (long) slot * SIZE;
            check(target.segment().asSlice(at, SIZE), (long) DEPTH * SIZE + at);
            bytesReceived += wc.byteLength();
            receiver.postReceive(new ReceiveRequest(slot, new Sge(target, at, SIZE)));
        }
    }

    /** Checks one received message and the block written before it. */
    private void check(MemorySegment message, long blockAt) {
        long seq = message.get(ValueLayout.JAVA_INT_UNALIGNED, SEQ) & 0xFFFFFFFFL;
        if (!intact(message)) {
            corrupt++;
            return;
        }
        MemorySegment block = target.segment().asSlice(blockAt, SIZE);
        if (!intact(block) || (block.get(ValueLayout.JAVA_INT_UNALIGNED, SEQ) & 0xFFFFFFFFL) != seq) {
            corrupt++;
        }
        if (seq == expected) {
            expected++;
            received++;
        } else if (seq > expected) {
            lost += seq - expected; // may turn out reordered if the gap fills later
            expected = seq + 1;
            received++;
        } else if (lost > 0) {
            lost--;
            reordered++;
            received++;
        } else {
            duplicated++;
        }
    }

    private static boolean intact(MemorySegment m) {
        int stored = m.get(ValueLayout.JAVA_INT_UNALIGNED, CRC);
        CRC32C crc = new CRC32C();
        crc.update(m.asSlice(BODY, SIZE - BODY).asByteBuffer());
        return stored == (int) crc.getValue();
    }

    private void error(String what) {
        errors++;
        if (firstError == null) {
            firstError = what;
        }
    }

    /** When the sender last reaped a successful completion, 0 before the first. */
    long lastCompletionNanos() {
        return lastCompletionNanos;
    }

    /** Nothing in flight: every message sent was received, and every completion of the sender reaped. */
    boolean idle() {
        return received == sent && sendsDone == 2 * sent;
    }

    long sent() {
        return sent;
    }

    long received() {
        return received;
    }

    /** What the stream saw so far. */
    Verdict verdict(java.util.List<Double> pausesMs) {
        return new Verdict(sent, received, sent * SIZE * 2, bytesReceived + received * SIZE, lost, duplicated, reordered, corrupt,
                errors, firstError, pausesMs);
    }
}

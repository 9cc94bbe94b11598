package dev.tandem.failover.chaos;

import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.SharedReceiveQueue;
import dev.tandem.verbs.Sge;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.random.RandomGenerator;

/**
 * The receive buffers of one receive queue, a QP's own or a shared one: each buffer is a slot of the
 * region, scattered into 1 to 3 pieces drawn anew at every post and filled with {@link #POISON} first.
 * It knows which buffers are posted (a buffer completing twice is caught) and, for a QP's own queue,
 * the order they were posted in (its completions must follow it).
 */
final class ReceiveBuffers {
    static final byte POISON = (byte) 0xEE;
    private static final long TAG_SHIFT = 40;

    private final MemoryRegion region;
    private final int count;
    private final int slot;
    private final int total;
    private final long tag;
    private final QueuePair qp;
    private final SharedReceiveQueue srq;
    private final AtomicReferenceArray<int[]> layouts;
    private final AtomicIntegerArray posted;
    /** Posting order of a QP's own queue (one thread posts and polls it); null for a shared queue. */
    private final ArrayDeque<Integer> order;

    private ReceiveBuffers(MemoryRegion region, int count, int total, int tag, QueuePair qp, SharedReceiveQueue srq) {
        this.region = region;
        this.count = count;
        this.total = total;
        this.slot = 2 * total;
        this.tag = (long) tag << TAG_SHIFT;
        this.qp = qp;
        this.srq = srq;
        this.layouts = new AtomicReferenceArray<>(count);
        this.posted = new AtomicIntegerArray(count);
        this.order = qp != null ? new ArrayDeque<>() : null;
    }

    /** The region size {@code count} buffers of {@code total} bytes need. */
    static long regionSize(int count, int total) {
        return (long) count * 2 * total;
    }

    /** Buffers of {@code qp}'s own receive queue; {@code tag} tells its wrIds apart (unique in the scenario, below 2^15). */
    static ReceiveBuffers own(QueuePair qp, MemoryRegion region, int count, int total, int tag) {
        return new ReceiveBuffers(region, count, total, tag, qp, null);
    }

    /** Buffers of a shared receive queue. */
    static ReceiveBuffers shared(SharedReceiveQueue srq, MemoryRegion region, int count, int total, int tag) {
        return new ReceiveBuffers(region, count, total, tag, null, srq);
    }

    int count() {
        return count;
    }

    boolean isShared() {
        return srq != null;
    }

    /** The buffer a receive completion's wrId names, or -1 when the wrId is not one of this queue's. */
    int bufferOf(long wrId) {
        if ((wrId & ~((1L << TAG_SHIFT) - 1)) != tag) {
            return -1;
        }
        long b = wrId & ((1L << TAG_SHIFT) - 1);
        return b < count ? (int) b : -1;
    }

    /** Poisons buffer {@code b}, scatters it anew and posts it. */
    void post(int b, RandomGenerator rng) {
        int[] pieces = Pieces.layout(total, slot, 3, rng);
        long base = (long) b * slot;
        MemorySegment seg = region.segment();
        seg.asSlice(base, slot).fill(POISON);
        List<Sge> sgl = new ArrayList<>(pieces.length / 2);
        for (int i = 0; i < pieces.length; i += 2) {
            sgl.add(new Sge(region, base + pieces[i], pieces[i + 1]));
        }
        int[] before = layouts.getAndSet(b, pieces);
        posted.set(b, 1);
        if (order != null) {
            order.addLast(b);
        }
        try {
            ReceiveRequest r = new ReceiveRequest(tag | b, sgl);
            if (srq != null) {
                srq.postReceive(r);
            } else {
                qp.postReceive(r);
            }
        } catch (RuntimeException e) {
            layouts.set(b, before); // not posted: a device that still holds it places by the layout it was given
            posted.set(b, 0);
            if (order != null) {
                order.removeLastOccurrence(b);
            }
            throw e;
        }
    }

    /**
     * Takes buffer {@code b}, whose completion arrived: null when that was in order, else what was wrong
     * (the buffer was not posted, or a QP's own queue completed another buffer first).
     */
    String take(int b) {
        if (posted.getAndSet(b, 0) != 1) {
            return "buffer " + b + " completed while it was not posted (a second completion)";
        }
        if (order == null) {
            return null;
        }
        Integer head = order.peekFirst();
        if (head != null && head == b) {
            order.pollFirst();
            return null;
        }
        order.removeFirstOccurrence(b);
        return "buffer " + b + " completed before buffer " + head + ", posted earlier";
    }

    /** Buffers of a QP's own queue still posted (0 for a shared queue). */
    int outstanding() {
        return order == null ? 0 : order.size();
    }

    /** The first {@code length} bytes of buffer {@code b}, its pieces joined in list order. */
    byte[] read(int b, int length) {
        int[] pieces = layouts.get(b);
        byte[] out = new byte[Math.min(length, total)];
        long base = (long) b * slot;
        int at = 0;
        for (int i = 0; i < pieces.length && at < out.length; i += 2) {
            int n = Math.min(pieces[i + 1], out.length - at);
            MemorySegment.copy(region.segment(), ValueLayout.JAVA_BYTE, base + pieces[i], out, at, n);
            at += n;
        }
        return out;
    }

    /** The first position at or past {@code length} (in list order) whose byte is no longer poison, or -1. */
    int placedBeyond(int b, int length) {
        int[] pieces = layouts.get(b);
        long base = (long) b * slot;
        int at = 0;
        for (int i = 0; i < pieces.length; i += 2) {
            for (int j = 0; j < pieces[i + 1]; j++, at++) {
                if (at >= length && region.segment().get(ValueLayout.JAVA_BYTE, base + pieces[i] + j) != POISON) {
                    return at;
                }
            }
        }
        return -1;
    }

    /** The bytes a buffer holds in all. */
    int total() {
        return total;
    }
}

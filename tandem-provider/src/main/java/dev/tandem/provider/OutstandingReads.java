package dev.tandem.provider;

/**
 * The requester's outbound read queue (ORQ, bounded by ORD): send-queue positions of RDMA Reads
 * sent and not yet answered, in order, each with the sink STag its Read Request carried (the sink
 * region may be reregistered under a new STag before the response comes). Single producer
 * (transmitter), single consumer (receiver).
 */
public final class OutstandingReads {
    private final long[] positions;
    private final int[] sinkStags;
    private volatile long head;
    private volatile long tail;

    public OutstandingReads(int capacity) {
        positions = new long[Math.max(1, capacity)];
        sinkStags = new int[positions.length];
    }

    public boolean isFull(int ord) {
        return tail - head >= Math.min(ord, positions.length);
    }

    public void push(long sqPosition, int sinkStag) {
        positions[(int) (tail % positions.length)] = sqPosition;
        sinkStags[(int) (tail % positions.length)] = sinkStag;
        tail = tail + 1;
    }

    public boolean isEmpty() {
        return head == tail;
    }

    public long peek() {
        return positions[(int) (head % positions.length)];
    }

    /** The sink STag the oldest outstanding Read Request carried. */
    public int peekSinkStag() {
        return sinkStags[(int) (head % positions.length)];
    }

    public void pop() {
        head = head + 1;
    }

    public int size() {
        return (int) (tail - head);
    }
}

package dev.tandem.iwarp;

/**
 * The requester's outbound read queue (ORQ, bounded by ORD): send-queue positions of RDMA Reads
 * sent and not yet answered, in order. Single producer (transmitter), single consumer (receiver).
 */
final class OutstandingReads {
    private final long[] positions;
    private volatile long head;
    private volatile long tail;

    OutstandingReads(int capacity) {
        positions = new long[Math.max(1, capacity)];
    }

    boolean isFull(int ord) {
        return tail - head >= Math.min(ord, positions.length);
    }

    void push(long sqPosition) {
        positions[(int) (tail % positions.length)] = sqPosition;
        tail = tail + 1;
    }

    boolean isEmpty() {
        return head == tail;
    }

    long peek() {
        return positions[(int) (head % positions.length)];
    }

    void pop() {
        head = head + 1;
    }

    int size() {
        return (int) (tail - head);
    }
}

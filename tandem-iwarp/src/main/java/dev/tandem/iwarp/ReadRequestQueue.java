package dev.tandem.iwarp;

import dev.tandem.provider.StagEntry;

/**
 * Inbound RDMA Read Requests accepted but not yet answered (the responder's IRQ, bounded by IRD):
 * preallocated entries in a single-producer (receiver) single-consumer (transmitter) ring.
 */
final class ReadRequestQueue {
    /** One accepted Read Request: where to read from and where the requester wants it. */
    static final class Entry {
        int sinkStag;
        long sinkTo;
        long size;
        StagEntry source;
        long sourceOffset;
        /** Bytes already answered. */
        long sent;
    }

    private final Entry[] entries;
    private final int capacity;
    private volatile long head;
    private volatile long tail;

    ReadRequestQueue(int capacity) {
        this.capacity = Math.max(1, capacity);
        entries = new Entry[this.capacity];
        for (int i = 0; i < this.capacity; i++) {
            entries[i] = new Entry();
        }
    }

    /** A free entry to fill, or null when IRD requests are already outstanding. */
    Entry claim(int ird) {
        return tail - head >= Math.min(ird, capacity) ? null : entries[(int) (tail % capacity)];
    }

    void publish() {
        tail = tail + 1;
    }

    Entry peek() {
        return head == tail ? null : entries[(int) (head % capacity)];
    }

    void pop() {
        head = head + 1;
    }

    int size() {
        return (int) (tail - head);
    }
}

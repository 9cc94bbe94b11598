package dev.tandem.provider;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Bounded lock-free multi-producer multi-consumer queue of references (Vyukov's sequence-per-slot
 * design): offer and poll are a CAS and two ordered slot accesses, and allocate nothing.
 */
public final class MpmcRing<T> {
    private final AtomicReferenceArray<T> items;
    private final AtomicLongArray sequences;
    private final int mask;
    private final AtomicLong head = new AtomicLong();
    private final AtomicLong tail = new AtomicLong();

    public MpmcRing(int minCapacity) {
        int capacity = Integer.highestOneBit(Math.max(2, minCapacity - 1)) << 1;
        items = new AtomicReferenceArray<>(capacity);
        sequences = new AtomicLongArray(capacity);
        for (int i = 0; i < capacity; i++) {
            sequences.set(i, i);
        }
        mask = capacity - 1;
    }

    /** Adds {@code item}; false when full. */
    public boolean offer(T item) {
        while (true) {
            long pos = tail.get();
            int idx = (int) (pos & mask);
            long seq = sequences.get(idx);
            if (seq == pos) {
                if (tail.compareAndSet(pos, pos + 1)) {
                    items.lazySet(idx, item);
                    sequences.set(idx, pos + 1);
                    return true;
                }
            } else if (seq < pos) {
                return false;
            }
            Thread.onSpinWait();
        }
    }

    /** Removes the oldest item; null when empty. */
    public T poll() {
        while (true) {
            long pos = head.get();
            int idx = (int) (pos & mask);
            long seq = sequences.get(idx);
            if (seq == pos + 1) {
                if (head.compareAndSet(pos, pos + 1)) {
                    T item = items.get(idx);
                    items.lazySet(idx, null);
                    sequences.set(idx, pos + mask + 1);
                    return item;
                }
            } else if (seq < pos + 1) {
                return null;
            }
            Thread.onSpinWait();
        }
    }

    public int size() {
        long h = head.get();
        long t = tail.get();
        return (int) Math.max(0, Math.min(t - h, mask + 1));
    }

    public boolean isEmpty() {
        return size() == 0;
    }
}

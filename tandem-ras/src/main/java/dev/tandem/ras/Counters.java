package dev.tandem.ras;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import static dev.tandem.ras.RasFileDescriptor.COUNTER_LABEL_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.COUNTER_LABEL_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.COUNTER_OWNER_KEY_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.COUNTER_STATE_ALLOCATED;
import static dev.tandem.ras.RasFileDescriptor.COUNTER_STATE_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.COUNTER_STATE_RECLAIMED;
import static dev.tandem.ras.RasFileDescriptor.COUNTER_TYPE_ID_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.MAX_COUNTER_LABEL_LENGTH;

/**
 * Allocates counters in the RAS file and takes their slots back. Allocation is a control-path
 * operation (a lock, a little garbage); updating a {@link Counter} is not. Reclaimed slots are reused
 * first, oldest first. Also decodes the counters of a mapped file for readers.
 */
public final class Counters {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment file;
    private final Section metadata;
    private final Section values;
    private final ArrayDeque<Integer> reclaimed = new ArrayDeque<>();
    private int highWater;
    private int allocated;

    Counters(MemorySegment file, RasLayout layout) {
        this.file = file;
        this.metadata = layout.section(RasSection.COUNTER_METADATA);
        this.values = layout.section(RasSection.COUNTER_VALUES);
    }

    /**
     * Allocates a counter starting at zero.
     *
     * @param typeId   caller-defined type (what is counted, e.g. "bytes sent")
     * @param label    human-readable name, cut to {@value RasFileDescriptor#MAX_COUNTER_LABEL_LENGTH} UTF-8 bytes
     * @param ownerKey caller-defined owner, e.g. the id of the resource counted
     * @throws CountersFullException     when every slot is allocated
     * @throws CorruptStructureException when a counters section marker was overwritten
     */
    public synchronized Counter allocate(int typeId, String label, long ownerKey) {
        if (label == null || label.isBlank()) {
            throw new IllegalArgumentException("counter label is " + (label == null ? "null" : "blank")
                    + "; give a name such as 'qp.7.bytes.sent'");
        }
        metadata.check(file);
        values.check(file);
        int id;
        if (!reclaimed.isEmpty()) {
            id = reclaimed.poll();
        } else if (highWater < metadata.entryCapacity()) {
            id = highWater++;
        } else {
            throw new CountersFullException(metadata.entryCapacity(), label);
        }
        long m = metadata.entryOffset(id);
        byte[] bytes = Text.utf8(label, MAX_COUNTER_LABEL_LENGTH);
        file.set(ValueLayout.JAVA_INT, m + COUNTER_TYPE_ID_OFFSET, typeId);
        file.set(ValueLayout.JAVA_LONG, m + COUNTER_OWNER_KEY_OFFSET, ownerKey);
        file.asSlice(m + COUNTER_LABEL_OFFSET, MAX_COUNTER_LABEL_LENGTH).fill((byte) 0);
        Text.put(file, m + COUNTER_LABEL_OFFSET, bytes);
        file.set(ValueLayout.JAVA_INT, m + COUNTER_LABEL_LENGTH_OFFSET, bytes.length);
        long valueOffset = values.entryOffset(id);
        LONG.setRelease(file, valueOffset, 0L);
        INT.setRelease(file, m + COUNTER_STATE_OFFSET, COUNTER_STATE_ALLOCATED);
        allocated++;
        return new Counter(this, file, valueOffset, id, typeId, ownerKey, label);
    }

    /** Counters the file can hold. */
    public int capacity() {
        return metadata.entryCapacity();
    }

    /** Counters allocated and not closed. */
    public synchronized int allocatedCount() {
        return allocated;
    }

    /** Snapshot of the allocated counters, in id order. */
    public List<CounterSnapshot> snapshot() {
        return read(file, metadata, values);
    }

    synchronized void reclaim(Counter counter) {
        if (!counter.markClosed()) {
            return;
        }
        long state = metadata.entryOffset(counter.id()) + COUNTER_STATE_OFFSET;
        int found = (int) INT.getAcquire(file, state);
        if (found != COUNTER_STATE_ALLOCATED) {
            throw new CorruptStructureException(metadata.structure(), state, "state allocated ("
                    + COUNTER_STATE_ALLOCATED + ") of counter " + counter.id() + " '" + counter.label() + "'", String.valueOf(found));
        }
        INT.setRelease(file, state, COUNTER_STATE_RECLAIMED);
        reclaimed.add(counter.id());
        allocated--;
    }

    /** Decodes the allocated counters of a mapped file, in id order. */
    static List<CounterSnapshot> read(MemorySegment file, Section metadata, Section values) {
        metadata.check(file);
        values.check(file);
        List<CounterSnapshot> out = new ArrayList<>();
        for (int id = 0; id < metadata.entryCapacity(); id++) {
            long m = metadata.entryOffset(id);
            if ((int) INT.getAcquire(file, m + COUNTER_STATE_OFFSET) != COUNTER_STATE_ALLOCATED) {
                continue;
            }
            int length = Math.clamp(file.get(ValueLayout.JAVA_INT, m + COUNTER_LABEL_LENGTH_OFFSET), 0, MAX_COUNTER_LABEL_LENGTH);
            out.add(new CounterSnapshot(id, file.get(ValueLayout.JAVA_INT, m + COUNTER_TYPE_ID_OFFSET),
                    file.get(ValueLayout.JAVA_LONG, m + COUNTER_OWNER_KEY_OFFSET),
                    Text.utf8(file, m + COUNTER_LABEL_OFFSET, length),
                    (long) LONG.getAcquire(file, values.entryOffset(id))));
        }
        return out;
    }
}

package dev.tandem.ras;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static dev.tandem.ras.RasFileDescriptor.MAX_TRACE_TEXT_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.TRACE_A_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_B_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_COMPONENT_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_C_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_D_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_EVENT_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_LEVEL_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_RING_CLOCK_EPOCH_NS_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_RING_CLOCK_NANO_TIME_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_RING_TAIL_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_STAMP_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_TEXT_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_TEXT_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_THREAD_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_TIME_OFFSET;

/**
 * The trace ring: fixed-size records, any number of writers, the oldest overwritten. A writer takes a
 * sequence with one atomic add, marks its record as being written, fills it and stamps it complete
 * (release); a reader accepts a record only if the stamp is the expected one before and after copying
 * it. Writing allocates nothing.
 */
final class TraceRing {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment file;
    private final long tailField;
    private final long body;
    private final long mask;

    TraceRing(MemorySegment file, Section ring) {
        this.file = file;
        this.tailField = ring.offset() + TRACE_RING_TAIL_OFFSET;
        this.body = ring.bodyOffset();
        this.mask = ring.entryCapacity() - 1;
    }

    /** Writes the ring's clock base (owner, at creation). */
    static void format(MemorySegment file, Section ring) {
        Instant now = Instant.now();
        file.set(ValueLayout.JAVA_LONG, ring.offset() + TRACE_RING_CLOCK_NANO_TIME_OFFSET, System.nanoTime());
        file.set(ValueLayout.JAVA_LONG, ring.offset() + TRACE_RING_CLOCK_EPOCH_NS_OFFSET,
                now.getEpochSecond() * 1_000_000_000L + now.getNano());
    }

    void write(int componentSlot, int level, long event, long a, long b, long c, long d, String text) {
        long sequence = (long) LONG.getAndAdd(file, tailField, 1L);
        long r = body + (sequence & mask) * RasFileDescriptor.TRACE_RECORD_LENGTH;
        LONG.setOpaque(file, r + TRACE_STAMP_OFFSET, -(sequence + 1));
        VarHandle.storeStoreFence();
        file.set(ValueLayout.JAVA_LONG, r + TRACE_TIME_OFFSET, System.nanoTime());
        file.set(ValueLayout.JAVA_LONG, r + TRACE_THREAD_OFFSET, Thread.currentThread().threadId());
        file.set(ValueLayout.JAVA_LONG, r + TRACE_EVENT_OFFSET, event);
        file.set(ValueLayout.JAVA_LONG, r + TRACE_A_OFFSET, a);
        file.set(ValueLayout.JAVA_LONG, r + TRACE_B_OFFSET, b);
        file.set(ValueLayout.JAVA_LONG, r + TRACE_C_OFFSET, c);
        file.set(ValueLayout.JAVA_LONG, r + TRACE_D_OFFSET, d);
        file.set(ValueLayout.JAVA_SHORT, r + TRACE_COMPONENT_OFFSET, (short) componentSlot);
        file.set(ValueLayout.JAVA_BYTE, r + TRACE_LEVEL_OFFSET, (byte) level);
        int n = text == null ? 0 : Text.putAscii(file, r + TRACE_TEXT_OFFSET, text, MAX_TRACE_TEXT_LENGTH);
        file.set(ValueLayout.JAVA_BYTE, r + TRACE_TEXT_LENGTH_OFFSET, (byte) n);
        LONG.setRelease(file, r + TRACE_STAMP_OFFSET, sequence + 1);
    }

    /** Decodes the complete records of a mapped ring, oldest to newest; {@code names} maps component slots. */
    static List<TraceRecord> read(MemorySegment file, Section ring, List<TraceLevelEntry> names) {
        ring.check(file);
        String[] bySlot = new String[names.stream().mapToInt(TraceLevelEntry::slot).max().orElse(-1) + 1];
        names.forEach(e -> bySlot[e.slot()] = e.component());
        long epochBase = file.get(ValueLayout.JAVA_LONG, ring.offset() + TRACE_RING_CLOCK_EPOCH_NS_OFFSET);
        long nanoBase = file.get(ValueLayout.JAVA_LONG, ring.offset() + TRACE_RING_CLOCK_NANO_TIME_OFFSET);
        long capacity = ring.entryCapacity();
        long tail = (long) LONG.getAcquire(file, ring.offset() + TRACE_RING_TAIL_OFFSET);
        List<TraceRecord> out = new ArrayList<>();
        for (long sequence = Math.max(0, tail - capacity); sequence < tail; sequence++) {
            long r = ring.bodyOffset() + (sequence & (capacity - 1)) * RasFileDescriptor.TRACE_RECORD_LENGTH;
            long stamp = (long) LONG.getAcquire(file, r + TRACE_STAMP_OFFSET);
            if (stamp != sequence + 1) {
                continue; // being written, or already overwritten by a later lap
            }
            int slot = file.get(ValueLayout.JAVA_SHORT, r + TRACE_COMPONENT_OFFSET);
            int textLength = Math.clamp(file.get(ValueLayout.JAVA_BYTE, r + TRACE_TEXT_LENGTH_OFFSET), 0, MAX_TRACE_TEXT_LENGTH);
            TraceRecord record = new TraceRecord(sequence,
                    epochBase + (file.get(ValueLayout.JAVA_LONG, r + TRACE_TIME_OFFSET) - nanoBase),
                    file.get(ValueLayout.JAVA_LONG, r + TRACE_THREAD_OFFSET),
                    slot >= 0 && slot < bySlot.length && bySlot[slot] != null ? bySlot[slot] : "slot-" + slot,
                    file.get(ValueLayout.JAVA_BYTE, r + TRACE_LEVEL_OFFSET),
                    TraceEvent.decode(file.get(ValueLayout.JAVA_LONG, r + TRACE_EVENT_OFFSET)),
                    file.get(ValueLayout.JAVA_LONG, r + TRACE_A_OFFSET),
                    file.get(ValueLayout.JAVA_LONG, r + TRACE_B_OFFSET),
                    file.get(ValueLayout.JAVA_LONG, r + TRACE_C_OFFSET),
                    file.get(ValueLayout.JAVA_LONG, r + TRACE_D_OFFSET),
                    Text.ascii(file, r + TRACE_TEXT_OFFSET, textLength));
            VarHandle.loadLoadFence();
            if ((long) LONG.getOpaque(file, r + TRACE_STAMP_OFFSET) == stamp) {
                out.add(record);
            }
        }
        return out;
    }
}

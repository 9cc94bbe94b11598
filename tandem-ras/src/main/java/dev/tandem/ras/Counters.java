package dev.tandem.ras;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;

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
 * first, oldest first; when every slot is allocated, a counter page is appended to the file (up to
 * {@link RasConfig#counterLimit()}), so the file grows with the resources counted and costs nothing for
 * those never created. Also decodes the counters of a mapped file for readers.
 */
public final class Counters {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final int pageCapacity;
    private final int limit;
    /** Appends page n (formatted and published in the file's header) and returns it. */
    private final IntFunction<CounterPage> addPage;
    /** Replaced (never changed) under the lock when a page is added; read without it by snapshots. */
    private volatile CounterPage[] pages;
    private final ArrayDeque<Integer> reclaimed = new ArrayDeque<>();
    private int highWater;
    private int allocated;

    Counters(CounterPage first, int limit, IntFunction<CounterPage> addPage) {
        this.pageCapacity = first.capacity();
        this.limit = limit;
        this.addPage = addPage;
        this.pages = new CounterPage[] {first};
    }

    /**
     * Allocates a counter starting at zero.
     *
     * @param typeId   caller-defined type (what is counted, e.g. "bytes sent")
     * @param label    human-readable name, cut to {@value RasFileDescriptor#MAX_COUNTER_LABEL_LENGTH} UTF-8 bytes
     * @param ownerKey caller-defined owner, e.g. the id of the resource counted
     * @throws CountersFullException        when {@link #limit()} counters are allocated
     * @throws CorruptStructureException    when a counters section marker was overwritten
     * @throws java.io.UncheckedIOException when a page is due and the file cannot grow (the disk is full)
     */
    public synchronized Counter allocate(int typeId, String label, long ownerKey) {
        if (label == null || label.isBlank()) {
            throw new IllegalArgumentException("counter label is " + (label == null ? "null" : "blank")
                    + "; give a name such as 'qp.7.bytes.sent'");
        }
        int id;
        if (!reclaimed.isEmpty()) {
            id = reclaimed.poll();
        } else if (highWater == limit) {
            throw new CountersFullException(limit, pages.length, pageCapacity, label);
        } else {
            if (highWater == pages.length * pageCapacity) {
                addPage();
            }
            id = highWater++;
        }
        CounterPage page = page(id);
        page.check();
        MemorySegment file = page.segment();
        long m = page.metadata().entryOffset(id % pageCapacity);
        byte[] bytes = Text.utf8(label, MAX_COUNTER_LABEL_LENGTH);
        file.set(ValueLayout.JAVA_INT, m + COUNTER_TYPE_ID_OFFSET, typeId);
        file.set(ValueLayout.JAVA_LONG, m + COUNTER_OWNER_KEY_OFFSET, ownerKey);
        file.asSlice(m + COUNTER_LABEL_OFFSET, MAX_COUNTER_LABEL_LENGTH).fill((byte) 0);
        Text.put(file, m + COUNTER_LABEL_OFFSET, bytes);
        file.set(ValueLayout.JAVA_INT, m + COUNTER_LABEL_LENGTH_OFFSET, bytes.length);
        long valueOffset = page.values().entryOffset(id % pageCapacity);
        LONG.setRelease(file, valueOffset, 0L);
        INT.setRelease(file, m + COUNTER_STATE_OFFSET, COUNTER_STATE_ALLOCATED);
        allocated++;
        return new Counter(this, file, valueOffset, id, typeId, ownerKey, label);
    }

    private void addPage() {
        CounterPage[] now = pages;
        CounterPage[] grown = Arrays.copyOf(now, now.length + 1);
        grown[now.length] = addPage.apply(now.length);
        pages = grown;
    }

    private CounterPage page(int id) {
        return pages[id / pageCapacity];
    }

    /** Counters the file holds now: its pages so far, each of {@link RasConfig#counterCapacity()} (up to {@link #limit()}). */
    public int capacity() {
        return (int) Math.min(limit, (long) pages.length * pageCapacity);
    }

    /** Counters the file may grow to hold: {@link RasConfig#counterLimit()}. */
    public int limit() {
        return limit;
    }

    /** Counter pages in the file now (1 until the first page is appended). */
    public int pageCount() {
        return pages.length;
    }

    /** Counters allocated and not closed. */
    public synchronized int allocatedCount() {
        return allocated;
    }

    /** Snapshot of the allocated counters, in id order. */
    public List<CounterSnapshot> snapshot() {
        return read(List.of(pages));
    }

    /** Checks the markers of every counter page. */
    void verify() {
        for (CounterPage page : pages) {
            page.check();
        }
    }

    synchronized void reclaim(Counter counter) {
        if (!counter.markClosed()) {
            return;
        }
        CounterPage page = page(counter.id());
        long state = page.metadata().entryOffset(counter.id() % pageCapacity) + COUNTER_STATE_OFFSET;
        int found = (int) INT.getAcquire(page.segment(), state);
        if (found != COUNTER_STATE_ALLOCATED) {
            throw new CorruptStructureException(page.metadata().structure(), state, "state allocated ("
                    + COUNTER_STATE_ALLOCATED + ") of counter " + counter.id() + " '" + counter.label() + "'", String.valueOf(found));
        }
        INT.setRelease(page.segment(), state, COUNTER_STATE_RECLAIMED);
        reclaimed.add(counter.id());
        allocated--;
    }

    /** Decodes the allocated counters of the counter pages of a mapped file, in id order. */
    static List<CounterSnapshot> read(List<CounterPage> pages) {
        List<CounterSnapshot> out = new ArrayList<>();
        for (CounterPage page : pages) {
            page.check();
            MemorySegment file = page.segment();
            Section metadata = page.metadata();
            int first = page.number() * page.capacity();
            for (int i = 0; i < page.capacity(); i++) {
                long m = metadata.entryOffset(i);
                if ((int) INT.getAcquire(file, m + COUNTER_STATE_OFFSET) != COUNTER_STATE_ALLOCATED) {
                    continue;
                }
                int length = Math.clamp(file.get(ValueLayout.JAVA_INT, m + COUNTER_LABEL_LENGTH_OFFSET), 0, MAX_COUNTER_LABEL_LENGTH);
                out.add(new CounterSnapshot(first + i, file.get(ValueLayout.JAVA_INT, m + COUNTER_TYPE_ID_OFFSET),
                        file.get(ValueLayout.JAVA_LONG, m + COUNTER_OWNER_KEY_OFFSET),
                        Text.utf8(file, m + COUNTER_LABEL_OFFSET, length),
                        (long) LONG.getAcquire(file, page.values().entryOffset(i))));
            }
        }
        return out;
    }
}

package dev.tandem.ras;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.tandem.ras.RasFileDescriptor.MAX_RESOURCE_CALL_SITE_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.MAX_RESOURCE_DETAIL_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.MAX_RESOURCE_NAME_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.MAX_RESOURCE_THREAD_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.MAX_RESOURCE_TYPE_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.RESOURCES_DROPPED_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_CALL_SITE_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_CALL_SITE_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_CREATED_MS_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_DETAIL_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_DETAIL_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_ID_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_NAME_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_NAME_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_PID_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_STATE_CLAIMED;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_STATE_FREE;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_STATE_LIVE;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_STATE_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_THREAD_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_THREAD_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_TYPE_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_TYPE_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.RESOURCE_VERSION_OFFSET;

/**
 * The resource owner table in the RAS file: one entry per live verbs resource (PD, MR, QP, ...) with
 * its owner process and thread, creation time, creating call site and a detail text the owner keeps
 * current, so {@code tandem stat --resources} and dumps list a process's resources from outside, also
 * after it died. Registering claims a free entry with a CAS (any thread, no lock); a full table never
 * fails the caller: the registration is counted as dropped and its {@link ResourceSlot} records nothing.
 * Text longer than its field is cut as {@link RasFileDescriptor} describes.
 */
public final class Resources {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final byte[] CUT = "\u2026".getBytes(StandardCharsets.UTF_8);
    /** Attempts to read an entry that keeps changing before it is taken as it is. */
    private static final int READ_ATTEMPTS = 100;

    private final MemorySegment file;
    private final Section section;
    private final long pid;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger live = new AtomicInteger();

    Resources(MemorySegment file, RasLayout layout, long pid) {
        this.file = file;
        this.section = layout.section(RasSection.RESOURCES);
        this.pid = pid;
    }

    /**
     * Records a new live resource of this process, created now.
     *
     * @param type       1..{@value RasFileDescriptor#MAX_RESOURCE_TYPE_LENGTH} printable ASCII characters
     *                   without spaces, e.g. {@code "QP"}
     * @param id         the resource's number, e.g. its QP number or STag
     * @param name       what a person calls it, e.g. {@code "iwarp0@127.0.1.1 qp 3"}
     * @param threadName the creating thread, e.g. {@code Thread.currentThread().getName()}
     * @param callSite   the application's creating frame, e.g. {@code "com.acme.App.main(App.java:42)"}
     * @return the slot to update and close; {@link ResourceSlot#recorded()} is false when the table was full
     * @throws IllegalArgumentException  when an argument is null, blank or (the type) not a short code
     * @throws CorruptStructureException when the resource table's markers were overwritten
     */
    public ResourceSlot register(String type, long id, String name, String threadName, String callSite) {
        checkType(type);
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("resource name is " + (name == null ? "null" : "blank")
                    + "; give what a person calls it, e.g. 'iwarp0@127.0.1.1 qp 3'");
        }
        if (threadName == null) {
            throw new IllegalArgumentException("resource thread name is null; give Thread.currentThread().getName()");
        }
        if (callSite == null) {
            throw new IllegalArgumentException("resource call site is null; give the creating frame, e.g. 'App.main(App.java:42)'"
                    + " or \"\" when unknown");
        }
        section.check(file);
        int capacity = section.entryCapacity();
        // a full table drops at once instead of trying every entry (a slot freed this instant may be missed)
        int start = Math.floorMod(next.get(), capacity);
        for (int i = 0; i < capacity && live.get() < capacity; i++) {
            int slot = (start + i) % capacity;
            long e = section.entryOffset(slot);
            if ((int) INT.getVolatile(file, e + RESOURCE_STATE_OFFSET) == RESOURCE_STATE_FREE
                    && INT.compareAndSet(file, e + RESOURCE_STATE_OFFSET, RESOURCE_STATE_FREE, RESOURCE_STATE_CLAIMED)) {
                next.set(slot + 1);
                fill(e, type, id, name, threadName, callSite);
                live.incrementAndGet();
                return new ResourceSlot(this, slot, e);
            }
        }
        LONG.getAndAdd(file, section.offset() + RESOURCES_DROPPED_OFFSET, 1L);
        return new ResourceSlot(this, -1, -1);
    }

    private void fill(long e, String type, long id, String name, String threadName, String callSite) {
        int version = beginChange(e);
        file.set(ValueLayout.JAVA_LONG, e + RESOURCE_ID_OFFSET, id);
        file.set(ValueLayout.JAVA_LONG, e + RESOURCE_PID_OFFSET, pid);
        file.set(ValueLayout.JAVA_LONG, e + RESOURCE_CREATED_MS_OFFSET, System.currentTimeMillis());
        putText(e, RESOURCE_TYPE_LENGTH_OFFSET, RESOURCE_TYPE_OFFSET, type.getBytes(StandardCharsets.US_ASCII));
        putText(e, RESOURCE_NAME_LENGTH_OFFSET, RESOURCE_NAME_OFFSET, fit(name, MAX_RESOURCE_NAME_LENGTH, false));
        putText(e, RESOURCE_THREAD_LENGTH_OFFSET, RESOURCE_THREAD_OFFSET, fit(threadName, MAX_RESOURCE_THREAD_LENGTH, false));
        putText(e, RESOURCE_CALL_SITE_LENGTH_OFFSET, RESOURCE_CALL_SITE_OFFSET, fit(callSite, MAX_RESOURCE_CALL_SITE_LENGTH, true));
        putText(e, RESOURCE_DETAIL_LENGTH_OFFSET, RESOURCE_DETAIL_OFFSET, new byte[0]);
        endChange(e, version);
        INT.setRelease(file, e + RESOURCE_STATE_OFFSET, RESOURCE_STATE_LIVE);
    }

    /** Replaces the detail text of the live entry at {@code e} (its slot serialises callers). */
    void detail(long e, String text) {
        int version = beginChange(e);
        putText(e, RESOURCE_DETAIL_LENGTH_OFFSET, RESOURCE_DETAIL_OFFSET,
                fit(text == null ? "" : text, MAX_RESOURCE_DETAIL_LENGTH, false));
        endChange(e, version);
    }

    /** Frees the entry at {@code e} (its slot calls this once). */
    void free(long e) {
        INT.setRelease(file, e + RESOURCE_STATE_OFFSET, RESOURCE_STATE_FREE);
        live.decrementAndGet();
    }

    /** Whether the file is still mapped (a slot closed after its file does nothing). */
    boolean mapped() {
        return file.scope().isAlive();
    }

    private int beginChange(long e) {
        int version = (int) INT.getVolatile(file, e + RESOURCE_VERSION_OFFSET) | 1;
        INT.setVolatile(file, e + RESOURCE_VERSION_OFFSET, version);
        return version;
    }

    private void endChange(long e, int version) {
        INT.setRelease(file, e + RESOURCE_VERSION_OFFSET, version + 1);
    }

    private void putText(long e, int lengthOffset, int offset, byte[] bytes) {
        Text.put(file, e + offset, bytes);
        file.set(ValueLayout.JAVA_BYTE, e + lengthOffset, (byte) bytes.length);
    }

    /** Entries the table holds. */
    public int capacity() {
        return section.entryCapacity();
    }

    /** Resources registered (and recorded) and not closed. */
    public int liveCount() {
        return live.get();
    }

    /** Registrations dropped because the table was full. */
    public long dropped() {
        return dropped(file, section);
    }

    /** Snapshot of the live resources, oldest first. */
    public List<ResourceEntry> snapshot() {
        return read(file, section);
    }

    private static void checkType(String type) {
        if (type == null || type.isEmpty() || type.length() > MAX_RESOURCE_TYPE_LENGTH
                || !type.chars().allMatch(c -> c > 0x20 && c < 0x7F)) {
            throw new IllegalArgumentException("resource type '" + type + "' must be 1.." + MAX_RESOURCE_TYPE_LENGTH
                    + " printable ASCII characters without spaces, e.g. QP, MR or LISTENER");
        }
    }

    /**
     * {@code s} as UTF-8 in at most {@code max} bytes: whole when it fits, else cut at a character
     * boundary with {@code "…"} in place of the cut part, at the end or (when {@code keepEnd}) at the start.
     */
    static byte[] fit(String s, int max, boolean keepEnd) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= max) {
            return bytes;
        }
        int room = max - CUT.length;
        byte[] out = new byte[max];
        if (keepEnd) {
            int from = bytes.length - room;
            while (from < bytes.length && (bytes[from] & 0xC0) == 0x80) {
                from++;
            }
            int n = bytes.length - from;
            System.arraycopy(CUT, 0, out, 0, CUT.length);
            System.arraycopy(bytes, from, out, CUT.length, n);
            return Arrays.copyOf(out, CUT.length + n);
        }
        int n = room;
        while (n > 0 && (bytes[n] & 0xC0) == 0x80) {
            n--;
        }
        System.arraycopy(bytes, 0, out, 0, n);
        System.arraycopy(CUT, 0, out, n, CUT.length);
        return Arrays.copyOf(out, n + CUT.length);
    }

    static long dropped(MemorySegment file, Section section) {
        return (long) LONG.getVolatile(file, section.offset() + RESOURCES_DROPPED_OFFSET);
    }

    /** Decodes the live entries of a mapped resource table, oldest first (entries being written are skipped). */
    static List<ResourceEntry> read(MemorySegment file, Section section) {
        section.check(file);
        List<ResourceEntry> out = new ArrayList<>();
        for (int slot = 0; slot < section.entryCapacity(); slot++) {
            ResourceEntry entry = readEntry(file, section.entryOffset(slot));
            if (entry != null) {
                out.add(entry);
            }
        }
        out.sort(Comparator.comparingLong(ResourceEntry::createdMs));
        return out;
    }

    /**
     * One entry, copied under its seqlock; null when it is not live. An entry that keeps changing (or
     * whose writer died in the middle of a change) is taken as it is after {@value #READ_ATTEMPTS} attempts.
     */
    private static ResourceEntry readEntry(MemorySegment file, long e) {
        for (int attempt = 1; ; attempt++) {
            if ((int) INT.getAcquire(file, e + RESOURCE_STATE_OFFSET) != RESOURCE_STATE_LIVE) {
                return null;
            }
            int version = (int) INT.getAcquire(file, e + RESOURCE_VERSION_OFFSET);
            boolean last = attempt >= READ_ATTEMPTS;
            if ((version & 1) != 0 && !last) {
                Thread.onSpinWait();
                continue;
            }
            ResourceEntry entry = new ResourceEntry(
                    text(file, e, RESOURCE_TYPE_LENGTH_OFFSET, RESOURCE_TYPE_OFFSET, MAX_RESOURCE_TYPE_LENGTH),
                    file.get(ValueLayout.JAVA_LONG, e + RESOURCE_ID_OFFSET),
                    text(file, e, RESOURCE_NAME_LENGTH_OFFSET, RESOURCE_NAME_OFFSET, MAX_RESOURCE_NAME_LENGTH),
                    file.get(ValueLayout.JAVA_LONG, e + RESOURCE_PID_OFFSET),
                    text(file, e, RESOURCE_THREAD_LENGTH_OFFSET, RESOURCE_THREAD_OFFSET, MAX_RESOURCE_THREAD_LENGTH),
                    file.get(ValueLayout.JAVA_LONG, e + RESOURCE_CREATED_MS_OFFSET),
                    text(file, e, RESOURCE_CALL_SITE_LENGTH_OFFSET, RESOURCE_CALL_SITE_OFFSET, MAX_RESOURCE_CALL_SITE_LENGTH),
                    text(file, e, RESOURCE_DETAIL_LENGTH_OFFSET, RESOURCE_DETAIL_OFFSET, MAX_RESOURCE_DETAIL_LENGTH));
            VarHandle.loadLoadFence();
            boolean unchanged = (int) INT.getOpaque(file, e + RESOURCE_VERSION_OFFSET) == version
                    && (int) INT.getOpaque(file, e + RESOURCE_STATE_OFFSET) == RESOURCE_STATE_LIVE;
            if (unchanged || last) {
                return entry;
            }
        }
    }

    private static String text(MemorySegment file, long e, int lengthOffset, int offset, int max) {
        int length = Math.min(Byte.toUnsignedInt(file.get(ValueLayout.JAVA_BYTE, e + lengthOffset)), max);
        return Text.utf8(file, e + offset, length);
    }
}

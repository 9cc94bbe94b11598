package dev.tandem.provider;

import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.QueueFullException;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.StagSource;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The adapter's live STags: index → {@link StagEntry}, for any 24-bit index its {@link StagSource}
 * (or, later, the node's) chooses, at most {@code capacity} at once. Index 0 is never live, so a
 * zero STag is always invalid.
 *
 * <p>Lookups run on the engine's hot path and take no lock: open addressing with linear probing
 * over an array at most three quarters full (live entries and tombstones), published whole; a
 * probe ends at an empty slot. Allocation and release are rare and locked; when tombstones pile
 * up, the array is rebuilt without them and the new one published, while lookups in flight finish
 * on the old one (an entry released meanwhile is already invalid).
 */
public final class StagTable {
    /** Marks a released slot: probes go past it; its index matches no STag. */
    private static final StagEntry TOMBSTONE = new StagEntry(-1, null, false);

    private final int capacity;
    private final StagSource source;
    private volatile AtomicReferenceArray<StagEntry> slots;
    private int live;
    private int tombstones;

    StagTable(int capacity, StagSource source) {
        if (capacity < 1 || capacity > 1 << 22) {
            throw new IllegalArgumentException("STag table capacity " + capacity + " is outside 1.." + (1 << 22));
        }
        this.capacity = capacity;
        this.source = source;
        this.slots = new AtomicReferenceArray<>(Integer.highestOneBit(capacity) << 2);
    }

    /** How many entries may be live at once. */
    public int capacity() {
        return capacity;
    }

    /** A new entry with the next STag of the source. */
    synchronized StagEntry allocate(KitProtectionDomain pd, boolean window) {
        checkRoom();
        return place(nextFromSource(), pd, window);
    }

    /** The source's next STag, refused when its index is 0 or live here (a caller's source may err). */
    private int nextFromSource() {
        int stag = source.next(this::contains);
        if (contains(stag >>> 8) || stag >>> 8 == 0) {
            throw new InvalidStateException("the STag source gave " + STag.format(stag)
                    + ", whose index is " + (stag >>> 8 == 0 ? "0 (never valid)" : "live on this adapter already")
                    + "; a source must give a free, non-zero index");
        }
        return stag;
    }

    /**
     * Releases {@code old} and puts a new entry with a fresh STag in its place, for reregister:
     * never refused for want of room, and the old STag stops working before the new one exists.
     */
    synchronized StagEntry reissue(StagEntry old) {
        release(old);
        return place(nextFromSource(), old.pd, old.window);
    }

    /** Invalidates {@code e}, removes it and gives its STag back to the source; twice is harmless. */
    public synchronized void release(StagEntry e) {
        e.valid = false;
        AtomicReferenceArray<StagEntry> a = slots;
        int mask = a.length() - 1;
        for (int i = hash(e.index, mask); ; i = (i + 1) & mask) {
            StagEntry s = a.get(i);
            if (s == null) {
                return;
            }
            if (s == e) {
                a.set(i, TOMBSTONE);
                live--;
                tombstones++;
                source.release(e.stag());
                return;
            }
        }
    }

    public synchronized int live() {
        return live;
    }

    /** The entry at the STag's index, or null; the caller checks key, validity and rights. Lock-free. */
    public StagEntry lookup(int stag) {
        int index = stag >>> 8;
        AtomicReferenceArray<StagEntry> a = slots;
        int mask = a.length() - 1;
        for (int i = hash(index, mask); ; i = (i + 1) & mask) {
            StagEntry e = a.get(i);
            if (e == null || e.index == index) {
                return e;
            }
        }
    }

    /**
     * The region of this adapter that an SGE's region stands for: the region itself when it is this
     * adapter's (valid or not: the caller reports why it is unusable), else this adapter's valid
     * region under the same lkey over the same memory (a region of another adapter of the node, which
     * a shared STag source registered here too); null when this adapter has no such region.
     */
    public KitMemoryRegion resolve(MemoryRegion r) {
        if (r instanceof KitMemoryRegion own && own.kitPd().core().stags() == this) {
            return own;
        }
        int lkey = r.lkey();
        StagEntry e = lookup(lkey);
        KitMemoryRegion twin = e == null || e.window || !e.valid || e.key != (lkey & 0xFF) ? null : e.region;
        return twin != null && sameMemory(twin.segment(), r.segment()) ? twin : null;
    }

    private static boolean sameMemory(MemorySegment a, MemorySegment b) {
        return a.address() == b.address() && a.byteSize() == b.byteSize() && a.isNative() == b.isNative()
                && (a.isNative() || a.heapBase().equals(b.heapBase()));
    }

    /**
     * Why {@code r} has no region on this adapter ({@link #resolve} gave null), for the error a post
     * of it gets.
     */
    public String whyUnresolved(MemoryRegion r) {
        int lkey = r.lkey();
        StagEntry e = lookup(lkey);
        if (e == null || e.window || e.key != (lkey & 0xFF) || e.region == null) {
            return "lkey " + STag.format(lkey) + " names no region on this adapter; a region of another adapter may be"
                    + " posted here only where this adapter registered the same memory under the same lkey (a shared STag source)";
        }
        if (!e.valid) {
            return "this adapter's region under lkey " + STag.format(lkey) + " is not valid (deregistered or invalidated)";
        }
        return "this adapter's region under lkey " + STag.format(lkey) + " holds other memory ("
                + e.region.segment().byteSize() + " bytes at 0x" + Long.toHexString(e.region.segment().address()) + ")";
    }

    /**
     * A new entry for {@code stag}, chosen by the caller's source: its index must not be live.
     *
     * @throws QueueFullException when {@code capacity} entries are live
     */
    synchronized StagEntry insert(int stag, KitProtectionDomain pd, boolean window) {
        int index = stag >>> 8;
        if (index == 0 || contains(index)) {
            throw new IllegalArgumentException("STag index " + index + " is 0 or live; the source must choose another");
        }
        checkRoom();
        return place(stag, pd, window);
    }

    private StagEntry place(int stag, KitProtectionDomain pd, boolean window) {
        int index = stag >>> 8;
        if (live + tombstones + 1 > slots.length() / 4 * 3) {
            rebuild();
        }
        StagEntry e = new StagEntry(index, pd, window);
        e.key = stag & 0xFF;
        AtomicReferenceArray<StagEntry> a = slots;
        int mask = a.length() - 1;
        int i = hash(index, mask);
        while (a.get(i) != null && a.get(i) != TOMBSTONE) {
            i = (i + 1) & mask;
        }
        if (a.get(i) == TOMBSTONE) {
            tombstones--;
        }
        a.set(i, e);
        live++;
        return e;
    }

    private boolean contains(int index) {
        return index != 0 && lookup(index << 8) != null;
    }

    private void checkRoom() {
        if (live >= capacity) {
            throw new QueueFullException("all " + capacity + " STag indices of the adapter are in use; deregister regions or windows first");
        }
    }

    /** A fresh array with the live entries only, published whole. */
    private void rebuild() {
        AtomicReferenceArray<StagEntry> old = slots;
        AtomicReferenceArray<StagEntry> fresh = new AtomicReferenceArray<>(old.length());
        int mask = fresh.length() - 1;
        for (int j = 0; j < old.length(); j++) {
            StagEntry e = old.get(j);
            if (e != null && e != TOMBSTONE) {
                int i = hash(e.index, mask);
                while (fresh.get(i) != null) {
                    i = (i + 1) & mask;
                }
                fresh.set(i, e);
            }
        }
        slots = fresh;
        tombstones = 0;
    }

    /** Spreads any index pattern (a source's permutation, or sequential ones) over the slots. */
    private static int hash(int index, int mask) {
        return (index * 0x9E3779B9) >>> Integer.numberOfLeadingZeros(mask);
    }
}

package dev.tandem.provider;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.STag;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/** A registered region of an adapter: a segment, its STag entry and one buffer view. */
public final class KitMemoryRegion implements MemoryRegion, TrackedResource {
    private final KitProtectionDomain pd;
    private final MemorySegment segment;
    /** The current STag's entry; reregister replaces it. */
    private volatile StagEntry entry;
    /** The whole segment as a buffer; the engine works on duplicates of it. */
    private final ByteBuffer buffer;
    private volatile boolean closed;
    private final MrCounters counters;

    KitMemoryRegion(KitProtectionDomain pd, MemorySegment segment, int access) {
        if (segment == null) {
            throw new InvalidArgumentException("registerMemory: segment is null");
        }
        if (segment.byteSize() > Integer.MAX_VALUE) {
            throw new InvalidArgumentException("registerMemory: segment of " + segment.byteSize()
                    + " bytes is larger than the " + Integer.MAX_VALUE + " bytes one region may hold; register it in parts");
        }
        if (segment.isReadOnly()) {
            throw new InvalidArgumentException("registerMemory: segment is read-only; register a writable segment");
        }
        Access.validate(access);
        this.pd = pd;
        this.segment = segment;
        this.buffer = segment.asByteBuffer();
        this.entry = pd.core().stags().allocate(pd, false);
        entry.region = this;
        entry.base = 0;
        entry.length = segment.byteSize();
        entry.access = access;
        try {
            this.counters = new MrCounters(pd.core().ras(), entry.stag());
        } catch (RuntimeException e) {
            pd.core().stags().release(entry);
            throw e;
        }
        entry.valid = true;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    /** The kit's own PD (the same object as {@link #pd()}). */
    public KitProtectionDomain kitPd() {
        return pd;
    }

    /** The current STag's entry (reregister replaces it). */
    public StagEntry entry() {
        return entry;
    }

    /** The whole segment as a buffer; the engine works on duplicates of it. */
    public ByteBuffer buffer() {
        return buffer;
    }

    @Override
    public ResourceKind kind() {
        return ResourceKind.MR;
    }

    @Override
    public long number() {
        return entry.stag() & 0xFFFF_FFFFL;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public int access() {
        return entry.access;
    }

    @Override
    public int lkey() {
        return entry.stag();
    }

    @Override
    public int rkey() {
        return entry.stag();
    }

    @Override
    public synchronized int reregister(int access) {
        pd.core().enter();
        try {
            return reregisterInside(access);
        } finally {
            pd.core().leave();
        }
    }

    private synchronized int reregisterInside(int access) {
        checkOpen();
        Access.validate(access);
        StagEntry fresh = pd.core().stags().reissue(entry);
        fresh.region = this;
        fresh.base = 0;
        fresh.length = segment.byteSize();
        fresh.access = access;
        entry = fresh;
        fresh.valid = true;
        return fresh.stag();
    }

    @Override
    public boolean isValid() {
        return !closed && entry.valid;
    }

    void checkOpen() {
        if (closed) {
            throw new ResourceClosedException("memory region " + dev.tandem.verbs.STag.format(entry.stag()) + " is deregistered");
        }
    }

    public boolean isClosed() {
        return closed;
    }

    /** Placement counters; the receiver updates them under the adapter's progress lock. */
    public MrCounters counters() {
        return counters;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            pd.core().stags().release(entry);
            counters.close(); // before its slot goes back: a region that closed makes room for the next in full
            pd.forget(this);
        }
    }

    @Override
    public String toString() {
        return "MemoryRegion[stag=" + dev.tandem.verbs.STag.format(entry.stag()) + ", length=" + segment.byteSize()
                + ", access=" + Access.describe(entry.access) + "]";
    }
}

package dev.tandem.verbs;

import java.util.List;

/**
 * A send-queue work request. Requests are immutable values: build one once and post it as often
 * as you like (that is how a steady-state loop posts without allocating).
 *
 * <p>Tagged offsets (remote addresses) are zero-based: byte offsets into the remote region or
 * window named by the rkey.
 */
public sealed interface WorkRequest {
    /** Caller's id, returned in the work completion. */
    long wrId();

    /** {@link WrFlags} bits. */
    int flags();

    /** Local buffers (gathered for sends and writes, scattered for reads); empty for control requests. */
    List<Sge> sgl();

    /** Total length of the local buffers. */
    default long length() {
        long n = 0;
        List<Sge> l = sgl();
        for (int i = 0; i < l.size(); i++) {
            n += l.get(i).length();
        }
        return n;
    }

    /** A Send (RDMAP Send, or Send with Solicited Event when {@link WrFlags#SOLICITED} is set). */
    record Send(long wrId, List<Sge> sgl, int flags) implements WorkRequest {
        public Send {
            sgl = List.copyOf(sgl);
        }

        public Send(long wrId, Sge sge, int flags) {
            this(wrId, List.of(sge), flags);
        }
    }

    /** A Send that also invalidates {@code invalidateStag} at the receiver (RDMAP Send with Invalidate). */
    record SendWithInvalidate(long wrId, List<Sge> sgl, int invalidateStag, int flags) implements WorkRequest {
        public SendWithInvalidate {
            sgl = List.copyOf(sgl);
        }
    }

    /** Writes the local buffers to {@code remoteOffset} of the peer's region or window {@code rkey}. */
    record RdmaWrite(long wrId, List<Sge> sgl, long remoteOffset, int rkey, int flags) implements WorkRequest {
        public RdmaWrite {
            sgl = List.copyOf(sgl);
        }

        public RdmaWrite(long wrId, Sge sge, long remoteOffset, int rkey, int flags) {
            this(wrId, List.of(sge), remoteOffset, rkey, flags);
        }
    }

    /**
     * Reads {@code length()} bytes from {@code remoteOffset} of the peer's region {@code rkey} into the
     * local buffers. On iWARP the local buffer must be registered with REMOTE_WRITE (the responder
     * writes it as tagged data).
     */
    record RdmaRead(long wrId, List<Sge> sgl, long remoteOffset, int rkey, int flags) implements WorkRequest {
        public RdmaRead {
            sgl = List.copyOf(sgl);
            if (sgl.size() != 1) {
                throw new InvalidArgumentException("RdmaRead takes exactly 1 local Sge (iWARP names one sink STag), got " + sgl.size());
            }
        }

        public RdmaRead(long wrId, Sge sge, long remoteOffset, int rkey, int flags) {
            this(wrId, List.of(sge), remoteOffset, rkey, flags);
        }
    }

    /**
     * Binds a type-2 window to {@code windowLength} bytes at {@code offset} of {@code region}, with a
     * new key. {@code access} holds remote rights only (REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC).
     */
    record BindWindow(long wrId, MemoryWindow window, MemoryRegion region, long offset, long windowLength,
                      int access, int newKey, int flags) implements WorkRequest {
        public BindWindow {
            if (window == null || region == null) {
                throw new InvalidArgumentException("BindWindow needs a window and a region, got window=" + window + " region=" + region);
            }
            if (newKey < 0 || newKey > 0xFF) {
                throw new InvalidArgumentException("BindWindow newKey " + newKey + " is outside 0..255");
            }
            if ((access & ~Access.REMOTE_RIGHTS) != 0) {
                throw new InvalidArgumentException("BindWindow access " + Access.describe(access)
                        + " holds more than remote rights; a window grants only REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC");
            }
        }

        @Override
        public List<Sge> sgl() {
            return List.of();
        }
    }

    /**
     * Invalidates a local memory window (or region) STag so that no peer can use it any more; a
     * region becomes usable again by {@link MemoryRegion#reregister}.
     */
    record LocalInvalidate(long wrId, int stag, int flags) implements WorkRequest {
        @Override
        public List<Sge> sgl() {
            return List.of();
        }
    }
}

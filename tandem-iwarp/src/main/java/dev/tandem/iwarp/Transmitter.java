package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.FpduDescriptor;
import dev.tandem.iwarp.wire.RdmapOpcode;
import dev.tandem.iwarp.wire.TerminateDescriptor;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.CRC32C;

/**
 * Turns a QP's send queue, its inbound Read Requests and a pending Terminate into FPDUs and writes
 * them with one gathering write each: header, the registered memory itself, pad and CRC. Whoever
 * wins the busy flag transmits: the posting thread directly when the engine is idle, else the engine.
 */
final class Transmitter {
    private static final int MIDDLE = 1;
    private static final int MESSAGE_LAST = 2;
    private static final int READ_REQUEST = 3;
    private static final int RESPONSE_LAST = 4;
    private static final int TERMINATE = 5;
    private static final byte[] ZEROS = new byte[4];

    private final Connection c;
    private final IwQueuePair qp;
    private final SendQueue sq;
    private final AtomicBoolean busy = new AtomicBoolean();
    private final ByteBuffer header = ByteBuffer.allocateDirect(128);
    private final ByteBuffer trailer = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer inlineView;
    private final ByteBuffer[] gather;
    private final IwMemoryRegion[] viewOwners;
    private final ByteBuffer[] views;
    private final CRC32C crc = new CRC32C();
    private final int maxTagged;
    private final int maxUntagged;
    private int gatherCount;
    private boolean inFlight;
    private int inFlightKind;
    private boolean blocked;
    private volatile boolean terminateSent;
    private boolean drainedSignalled;

    private WorkRequest current;
    private long currentPos;
    private long currentOffset;
    private long currentLength;
    private int sgeIndex;
    private long sgeOffset;
    private int sendMsn = 1;
    private int readMsn = 1;
    private int terminateMsn = 1;

    Transmitter(Connection c) {
        this.c = c;
        this.qp = c.qp;
        this.sq = qp.sendQueue();
        ByteBuffer inl = sq.inlineBuffer();
        this.inlineView = inl == null ? null : inl.duplicate();
        int slots = qp.config().maxSendSge() + 2;
        gather = new ByteBuffer[slots];
        viewOwners = new IwMemoryRegion[slots];
        views = new ByteBuffer[slots];
        maxTagged = c.maxUlpdu - FpduDescriptor.TAGGED_HEADER_LENGTH;
        maxUntagged = c.maxUlpdu - FpduDescriptor.UNTAGGED_HEADER_LENGTH;
    }

    boolean terminateSent() {
        return terminateSent;
    }

    /** Transmits what it can without blocking; returns a count of work done (0 when idle or busy elsewhere). */
    int poll() {
        int work = 0;
        while (busy.compareAndSet(false, true)) {
            try {
                work += run();
            } catch (IOException e) {
                busy.set(false);
                qp.connectionLost(e);
                return work + 1;
            } finally {
                busy.set(false);
            }
            if (blocked || !hasWork()) {
                break;
            }
        }
        if (inFlight) {
            qp.device().wakeEngine();
        }
        return work;
    }

    /** True while an FPDU waits for socket space, or work is queued that nobody has picked up. */
    boolean hasPendingOutput() {
        return inFlight || (!blocked && hasWork());
    }

    private boolean hasWork() {
        return c.pendingTerminate != null && !terminateSent || c.irq.peek() != null || sq.peekTx() != null;
    }

    private int run() throws IOException {
        int work = 0;
        blocked = false;
        while (true) {
            if (inFlight) {
                if (!writeOut()) {
                    blocked = true;
                    return work;
                }
                work++;
                afterFpdu();
            }
            if (terminateSent || c.isClosed()) {
                blocked = true;
                return work;
            }
            Failure t = c.pendingTerminate;
            if (t != null) {
                buildTerminate(t);
                continue;
            }
            if (qp.inError()) {
                blocked = true;
                return work;
            }
            if (current == null) {
                ReadRequestQueue.Entry response = c.irq.peek();
                if (response != null) {
                    buildResponse(response);
                    continue;
                }
                if (qp.isDraining()) {
                    if (!drainedSignalled) {
                        drainedSignalled = true;
                        qp.sendQueueDrained();
                    }
                    blocked = true;
                    return work;
                }
                drainedSignalled = false;
                WorkRequest wr = sq.peekTx();
                if (wr == null) {
                    return work;
                }
                if (!start(wr)) {
                    blocked = true;
                    return work;
                }
                continue;
            }
            buildMessageSegment();
        }
    }

    private boolean writeOut() throws IOException {
        c.channel.write(gather, 0, gatherCount);
        return !gather[gatherCount - 1].hasRemaining();
    }

    private void afterFpdu() {
        inFlight = false;
        switch (inFlightKind) {
            case MESSAGE_LAST -> {
                if (!(current instanceof WorkRequest.RdmaWrite)) {
                    sendMsn++;
                }
                WorkRequest done = current;
                current = null;
                qp.counters().sent(done);
                sq.finish(currentPos, CompletionStatus.SUCCESS, 0);
                sq.complete(qp.sendEmitter());
            }
            case RESPONSE_LAST -> c.irq.pop();
            case TERMINATE -> {
                terminateSent = true;
                c.close();
            }
            default -> {
            }
        }
    }

    /** Starts the next request; false when it must wait (ORD reached, or a fence). */
    private boolean start(WorkRequest wr) {
        long pos = sq.txIndex();
        boolean fenced = WrFlags.has(wr.flags(), WrFlags.FENCE) && !c.orq.isEmpty();
        switch (wr) {
            case WorkRequest.RdmaRead read -> {
                if (fenced || c.orq.isFull(c.ord)) {
                    return false;
                }
                buildReadRequest(read);
                c.orq.push(pos);
                sq.advanceTx();
                qp.counters().sent(read);
            }
            case WorkRequest.BindWindow bind -> {
                if (fenced) {
                    return false;
                }
                sq.advanceTx();
                qp.executeLocal(pos, bind);
            }
            case WorkRequest.LocalInvalidate inv -> {
                if (fenced) {
                    return false;
                }
                sq.advanceTx();
                qp.executeLocal(pos, inv);
            }
            default -> {
                if (fenced) {
                    return false;
                }
                current = wr;
                currentPos = pos;
                currentOffset = 0;
                currentLength = wr.length();
                sgeIndex = 0;
                sgeOffset = 0;
                sq.advanceTx();
            }
        }
        return true;
    }

    private void buildMessageSegment() {
        WorkRequest wr = current;
        boolean tagged = wr instanceof WorkRequest.RdmaWrite;
        int max = tagged ? maxTagged : maxUntagged;
        int n = (int) Math.min(currentLength - currentOffset, max);
        boolean last = currentOffset + n == currentLength;
        int headerLength = tagged ? FpduDescriptor.TAGGED_HEADER_LENGTH : FpduDescriptor.UNTAGGED_HEADER_LENGTH;
        ByteBuffer h = header.clear();
        h.putShort((short) (headerLength + n));
        switch (wr) {
            case WorkRequest.RdmaWrite w -> {
                h.put((byte) FpduDescriptor.ddpControl(true, last));
                h.put((byte) FpduDescriptor.rdmapControl(RdmapOpcode.RDMA_WRITE));
                h.putInt(w.rkey());
                h.putLong(w.remoteOffset() + currentOffset);
            }
            case WorkRequest.SendWithInvalidate s -> untaggedHeader(h, last,
                    WrFlags.has(s.flags(), WrFlags.SOLICITED) ? RdmapOpcode.SEND_SE_INVALIDATE : RdmapOpcode.SEND_INVALIDATE,
                    s.invalidateStag(), FpduDescriptor.QN_SEND, sendMsn, (int) currentOffset);
            default -> untaggedHeader(h, last,
                    WrFlags.has(wr.flags(), WrFlags.SOLICITED) ? RdmapOpcode.SEND_SE : RdmapOpcode.SEND,
                    0, FpduDescriptor.QN_SEND, sendMsn, (int) currentOffset);
        }
        h.flip();
        gather[0] = h;
        gatherCount = 1;
        if (WrFlags.has(wr.flags(), WrFlags.INLINE)) {
            int start = sq.inlineOffset(currentPos) + (int) currentOffset;
            gather[gatherCount++] = inlineView.clear().position(start).limit(start + n);
        } else {
            gatherPayload(wr.sgl(), n);
        }
        currentOffset += n;
        seal(headerLength + n, last ? MESSAGE_LAST : MIDDLE);
    }

    private static void untaggedHeader(ByteBuffer h, boolean last, int opcode, int invalidate, int qn, int msn, int mo) {
        h.put((byte) FpduDescriptor.ddpControl(false, last));
        h.put((byte) FpduDescriptor.rdmapControl(opcode));
        h.putInt(invalidate);
        h.putInt(qn);
        h.putInt(msn);
        h.putInt(mo);
    }

    private void gatherPayload(List<Sge> sgl, int n) {
        int left = n;
        while (left > 0) {
            Sge sge = sgl.get(sgeIndex);
            int take = (int) Math.min(left, sge.length() - sgeOffset);
            if (take > 0) {
                int start = (int) (sge.offset() + sgeOffset);
                gather[gatherCount] = view(gatherCount, sge.region()).clear().position(start).limit(start + take);
                gatherCount++;
                left -= take;
                sgeOffset += take;
            }
            if (sgeOffset == sge.length()) {
                sgeIndex++;
                sgeOffset = 0;
            }
        }
    }

    private ByteBuffer view(int slot, MemoryRegion region) {
        IwMemoryRegion r = (IwMemoryRegion) region;
        if (viewOwners[slot] != r) {
            viewOwners[slot] = r;
            views[slot] = r.buffer.duplicate();
        }
        return views[slot];
    }

    private void buildReadRequest(WorkRequest.RdmaRead read) {
        Sge sink = read.sgl().get(0);
        ByteBuffer h = header.clear();
        h.putShort((short) (FpduDescriptor.UNTAGGED_HEADER_LENGTH + 28));
        untaggedHeader(h, true, RdmapOpcode.READ_REQUEST, 0, FpduDescriptor.QN_READ_REQUEST, readMsn++, 0);
        h.putInt(sink.region().lkey());
        h.putLong(sink.offset());
        h.putInt(sink.length());
        h.putInt(read.rkey());
        h.putLong(read.remoteOffset());
        h.flip();
        gather[0] = h;
        gatherCount = 1;
        seal(FpduDescriptor.UNTAGGED_HEADER_LENGTH + 28, READ_REQUEST);
    }

    private void buildResponse(ReadRequestQueue.Entry r) {
        int n = (int) Math.min(r.size - r.sent, maxTagged);
        boolean last = r.sent + n == r.size;
        ByteBuffer h = header.clear();
        h.putShort((short) (FpduDescriptor.TAGGED_HEADER_LENGTH + n));
        h.put((byte) FpduDescriptor.ddpControl(true, last));
        h.put((byte) FpduDescriptor.rdmapControl(RdmapOpcode.READ_RESPONSE));
        h.putInt(r.sinkStag);
        h.putLong(r.sinkTo + r.sent);
        h.flip();
        gather[0] = h;
        gatherCount = 1;
        if (n > 0) {
            IwMemoryRegion region = r.source.region;
            int start = (int) (r.source.base + r.sourceOffset + r.sent);
            gather[gatherCount] = view(gatherCount, region).clear().position(start).limit(start + n);
            gatherCount++;
        }
        r.sent += n;
        seal(FpduDescriptor.TAGGED_HEADER_LENGTH + n, last ? RESPONSE_LAST : MIDDLE);
    }

    private void buildTerminate(Failure f) {
        byte[] quoted = f.offending();
        int payload = TerminateDescriptor.CONTROL_SIZE + (quoted != null ? 2 + quoted.length : 0);
        ByteBuffer h = header.clear();
        h.putShort((short) (FpduDescriptor.UNTAGGED_HEADER_LENGTH + payload));
        untaggedHeader(h, true, RdmapOpcode.TERMINATE, 0, FpduDescriptor.QN_TERMINATE, terminateMsn++, 0);
        h.putInt(TerminateDescriptor.control(f.terminate(), quoted != null, f.rdmapIncluded()));
        if (quoted != null) {
            int ddpLength = f.rdmapIncluded() ? quoted.length - 28 : quoted.length;
            h.putShort((short) ddpLength);
            h.put(quoted);
        }
        h.flip();
        gather[0] = h;
        gatherCount = 1;
        current = null;
        seal(FpduDescriptor.UNTAGGED_HEADER_LENGTH + payload, TERMINATE);
    }

    /** Appends pad and CRC for a ULPDU of {@code ulpdu} bytes and marks the FPDU ready to write. */
    private void seal(int ulpdu, int kind) {
        int pad = FpduDescriptor.padLength(ulpdu);
        int value = 0;
        if (c.crc) {
            crc.reset();
            for (int i = 0; i < gatherCount; i++) {
                ByteBuffer b = gather[i];
                int p = b.position();
                crc.update(b);
                b.position(p);
            }
            crc.update(ZEROS, 0, pad);
            value = (int) crc.getValue();
        }
        ByteBuffer t = trailer.clear();
        t.put(ZEROS, 0, pad);
        t.putInt(value);
        t.flip();
        gather[gatherCount++] = t;
        inFlight = true;
        inFlightKind = kind;
        qp.counters().fpduSent(ulpdu);
    }
}

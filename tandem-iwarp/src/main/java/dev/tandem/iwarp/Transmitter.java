package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.FpduDescriptor;
import dev.tandem.iwarp.wire.FpduHeader;
import dev.tandem.iwarp.wire.RdmapOpcode;
import dev.tandem.iwarp.wire.TerminateCode;
import dev.tandem.iwarp.wire.TerminateDescriptor;
import dev.tandem.provider.KitMemoryRegion;
import dev.tandem.provider.SendQueue;
import dev.tandem.provider.StagEntry;
import dev.tandem.provider.StagTable;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.STag;
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
 * them with gathering writes: per FPDU a header, the registered memory itself, pad and CRC; up to
 * {@value #MAX_BATCH} FPDUs per write. Whoever wins the busy flag transmits: the posting thread
 * directly when the engine is idle, else the engine or a polling thread.
 */
final class Transmitter {
    /** FPDUs gathered into one write. */
    static final int MAX_BATCH = 16;
    /** Bytes gathered into one write before it is issued. */
    static final int MAX_BATCH_BYTES = 256 * 1024;

    /** What follows once an FPDU is written in full: nothing, its message's completion, or (a Terminate) the end of the stream. */
    private static final int NOTHING_AFTER = 0;
    private static final int COMPLETES_MESSAGE = 1;
    private static final int ENDS_STREAM = 2;

    private static final int BUILT = 0;
    private static final int NOTHING = 1;
    private static final int WAIT = 2;
    private static final byte[] ZEROS = new byte[4];

    private final Connection c;
    private final QpContext qp;
    private final SendQueue sq;
    /** Resolves the regions requests gather from. */
    private final StagTable stags;
    /** This adapter's region of each entry of the current request, as {@link #sourcesRegistered} found it. */
    private final KitMemoryRegion[] sources;
    private final AtomicBoolean busy = new AtomicBoolean();
    private final ByteBuffer[] headers = new ByteBuffer[MAX_BATCH];
    /** Writes each FPDU's header into its buffer in {@link #headers}. */
    private final FpduHeader fpdu = new FpduHeader();
    private final ByteBuffer[] trailers = new ByteBuffer[MAX_BATCH];
    private final int[] followUps = new int[MAX_BATCH];
    private final int[] ends = new int[MAX_BATCH];
    private final long[] positions = new long[MAX_BATCH];
    private final WorkRequest[] requests = new WorkRequest[MAX_BATCH];
    private final ByteBuffer inlineBuffer;
    /** One view of the inline bytes per gather slot: FPDUs of one batch each point at their own slot's bytes. */
    private final ByteBuffer[] inlineViews;
    private final ByteBuffer[] gather;
    private final KitMemoryRegion[] viewOwners;
    private final ByteBuffer[] views;
    private final int slotsPerFpdu;
    private final CRC32C crc = new CRC32C();
    private final int maxTagged;
    private final int maxUntagged;

    private int fpdus;
    private int written;
    private int gatherStart;
    private int gatherCount;
    private long batchBytes;
    private boolean blocked;
    private boolean terminateBuilt;
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

    /** Next MSN of queue 0 (Sends), for dumps. */
    int sendMsn() {
        return sendMsn;
    }

    /** Next MSN of queue 1 (Read Requests), for dumps. */
    int readMsn() {
        return readMsn;
    }

    Transmitter(Connection c) {
        this.c = c;
        this.qp = c.qp;
        this.sq = qp.sendQueue();
        this.stags = qp.stags();
        this.sources = new KitMemoryRegion[Math.max(1, qp.maxSendSge())];
        this.inlineBuffer = sq.inlineBuffer();
        for (int i = 0; i < MAX_BATCH; i++) {
            headers[i] = ByteBuffer.allocateDirect(128);
            trailers[i] = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN);
        }
        slotsPerFpdu = qp.maxSendSge() + 2;
        int slots = slotsPerFpdu * MAX_BATCH;
        gather = new ByteBuffer[slots];
        viewOwners = new KitMemoryRegion[slots];
        views = new ByteBuffer[slots];
        inlineViews = new ByteBuffer[slots];
        maxTagged = c.maxUlpdu - FpduDescriptor.TAGGED_HEADER_LENGTH;
        maxUntagged = c.maxUlpdu - FpduDescriptor.UNTAGGED_HEADER_LENGTH;
    }

    boolean terminateSent() {
        return terminateSent;
    }

    /**
     * Transmits what it can without blocking; returns a count of work done (0 when idle, busy elsewhere,
     * or the link is down: then everything stays as it is, to go out once the link is up; or once the socket
     * refused a write: see {@link Connection#writeFailed}).
     */
    int poll() {
        if (c.link.isDown() || c.writeFailure() != null) {
            return 0;
        }
        int work = 0;
        while (busy.compareAndSet(false, true)) {
            try {
                work += run();
            } catch (IOException e) {
                busy.set(false);
                c.writeFailed(e); // the engine's next cycle reads what the peer sent before, then fails the QP
                qp.wakeEngine();
                return work + 1;
            } finally {
                busy.set(false);
            }
            if (blocked || !hasWork()) {
                break;
            }
        }
        if (written < fpdus && !qp.pollersActive()) {
            // the socket is full and no application thread is polling to retry: the engine must
            qp.wakeEngine();
        }
        return work;
    }

    private boolean hasWork() {
        return c.pendingTerminate != null && !terminateSent || current != null || c.irq.peek() != null || sq.peekTx() != null;
    }

    /** True while FPDUs wait for socket space, or work is queued that nobody has picked up; never while the link is down. */
    boolean hasPendingOutput() {
        return !c.link.isDown() && (written < fpdus || (!blocked && hasWork()));
    }

    private int run() throws IOException {
        int work = 0;
        blocked = false;
        while (true) {
            if (written < fpdus) {
                if (!writeOut()) {
                    blocked = true;
                    return work;
                }
                work++;
                fpdus = 0;
                written = 0;
                gatherStart = 0;
                gatherCount = 0;
                batchBytes = 0;
            }
            int outcome = NOTHING;
            while (fpdus < MAX_BATCH && batchBytes < MAX_BATCH_BYTES && gatherCount + slotsPerFpdu <= gather.length) {
                outcome = buildNext();
                if (outcome != BUILT) {
                    break;
                }
            }
            if (fpdus == 0) {
                blocked = outcome == WAIT;
                return work;
            }
        }
    }

    /** Writes what the socket takes; completes every FPDU written in full. True when the batch is out. */
    private boolean writeOut() throws IOException {
        c.channel.write(gather, gatherStart, gatherCount - gatherStart);
        while (gatherStart < gatherCount && !gather[gatherStart].hasRemaining()) {
            gatherStart++;
        }
        while (written < fpdus && ends[written] < gatherStart) {
            afterFpdu(written++);
        }
        return written == fpdus;
    }

    private void afterFpdu(int i) {
        switch (followUps[i]) {
            case COMPLETES_MESSAGE -> {
                WorkRequest done = requests[i];
                requests[i] = null;
                qp.counters().sent(done);
                sq.finish(positions[i], CompletionStatus.SUCCESS, 0);
                sq.complete(qp.sendEmitter());
            }
            case ENDS_STREAM -> {
                terminateSent = true;
                c.close();
            }
            default -> {
            }
        }
    }

    /** Builds the next FPDU into the batch: BUILT, NOTHING to send, or WAIT (ORD, fence, drain, error). */
    private int buildNext() {
        if (terminateBuilt || c.isClosed()) {
            return WAIT;
        }
        Failure t = c.pendingTerminate;
        if (t != null) {
            buildTerminate(t);
            terminateBuilt = true;
            return BUILT;
        }
        if (qp.inError()) {
            return WAIT;
        }
        while (current == null) {
            ReadRequestQueue.Entry response = c.irq.peek();
            if (response != null) {
                if (response.size > 0 && sourceGone(response.source)) {
                    return refuseResponse(response);
                }
                buildResponse(response);
                return BUILT;
            }
            if (qp.isDraining()) {
                // drained once nothing is left half-sent or unwritten and every Read on the wire has
                // its Response (IB verbs: SQ_DRAINED when every message in progress has completed)
                if (!drainedSignalled && fpdus == 0 && c.orq.isEmpty()) {
                    drainedSignalled = true;
                    qp.sendQueueDrained();
                }
                return WAIT;
            }
            drainedSignalled = false;
            WorkRequest wr = sq.peekTx();
            if (wr == null) {
                return NOTHING;
            }
            int started = start(wr);
            if (started != NOTHING) {
                return started;
            }
        }
        if (!WrFlags.has(current.flags(), WrFlags.INLINE) && !sourcesRegistered(current.sgl())) {
            refuseCurrent();
            return WAIT;
        }
        buildMessageSegment();
        return BUILT;
    }

    /**
     * Starts the next request: a Read Request is BUILT at once, a Send or Write becomes current
     * (NOTHING built yet), a bind or invalidate runs locally (NOTHING), or WAIT for ORD or a fence.
     */
    private int start(WorkRequest wr) {
        long pos = sq.txIndex();
        boolean fenced = WrFlags.has(wr.flags(), WrFlags.FENCE) && !c.orq.isEmpty();
        if (fenced) {
            return WAIT;
        }
        switch (wr) {
            case WorkRequest.RdmaRead read -> {
                if (c.orq.isFull(c.ord)) {
                    return WAIT;
                }
                c.orq.push(pos, buildReadRequest(read));
                sq.advanceTx();
                qp.counters().sent(read);
                return BUILT;
            }
            case WorkRequest.BindWindow bind -> {
                sq.advanceTx();
                qp.executeLocal(pos, bind);
            }
            case WorkRequest.LocalInvalidate inv -> {
                sq.advanceTx();
                qp.executeLocal(pos, inv);
            }
            default -> {
                current = wr;
                currentPos = pos;
                currentOffset = 0;
                currentLength = wr.length();
                sgeIndex = 0;
                sgeOffset = 0;
                sq.advanceTx();
            }
        }
        return NOTHING;
    }

    /**
     * True while every region the request gathers from is still registered; each entry's region of
     * this adapter is kept in {@link #sources} for the gather that follows. Checked before each FPDU,
     * as siw resolves lkeys at transmit: a region deregistered after the post sends nothing more
     * (issue 12, row 3).
     */
    private boolean sourcesRegistered(List<Sge> sgl) {
        for (int i = 0; i < sgl.size(); i++) {
            Sge sge = sgl.get(i);
            if (sge.length() == 0) {
                continue; // an entry of no bytes names no memory (siw skips it too)
            }
            KitMemoryRegion region = stags.resolve(sge.region());
            if (region == null || !region.isValid()) {
                return false;
            }
            sources[i] = region;
        }
        return true;
    }

    /**
     * The current Send or Write gathers from a region that was deregistered after it was posted: it
     * completes with LOC_PROT_ERR and the QP fails as on any local error (QP_FATAL, the rest
     * flushed, the connection dropped as siw drops it). Bytes already sent stay sent; the peer's
     * Receive for a partly sent Send is flushed when the connection ends.
     */
    private void refuseCurrent() {
        WorkRequest wr = current;
        current = null;
        sq.finish(currentPos, CompletionStatus.LOC_PROT_ERR, 0);
        qp.fail(Failure.localFault(wr.getClass().getSimpleName() + " wrId " + wr.wrId()
                + " gathers from a region deregistered after it was posted: local protection error"));
    }

    /**
     * The region a Read Request was accepted from was deregistered (or invalidated) before its
     * response left: not a byte of it goes out. The requester gets the Terminate it would have got
     * had the Request come a moment later (RDMAP invalid STag, so its Read completes
     * REM_ACCESS_ERR); this side raises QP_ACCESS_ERROR. siw checks the source at transmit too.
     */
    private static boolean sourceGone(StagEntry source) {
        KitMemoryRegion region = source.region;
        return !source.valid || region == null || !region.isValid();
    }

    private int refuseResponse(ReadRequestQueue.Entry r) {
        qp.fail(Failure.detected(TerminateCode.RDMAP_INVALID_STAG, 0, null, false, "RDMA Read Response of " + r.size
                + " bytes from STag " + dev.tandem.verbs.STag.format(r.source.stag()) + ", whose region was deregistered after the Read Request"));
        return terminateBuilt || c.pendingTerminate == null ? WAIT : buildNext();
    }

    private ByteBuffer newHeader() {
        ByteBuffer h = headers[fpdus].clear();
        gather[gatherCount++] = h;
        return h;
    }

    private void buildMessageSegment() {
        WorkRequest wr = current;
        boolean tagged = wr instanceof WorkRequest.RdmaWrite;
        int max = tagged ? maxTagged : maxUntagged;
        int n = (int) Math.min(currentLength - currentOffset, max);
        boolean last = currentOffset + n == currentLength;
        int headerLength = FpduHeader.ddpHeaderLength(tagged);
        int first = gatherCount;
        ByteBuffer h = newHeader();
        FpduHeader fh = fpdu.wrap(h, 0);
        h.limit(switch (wr) {
            case WorkRequest.RdmaWrite w -> fh.putTagged(n, last, RdmapOpcode.RDMA_WRITE, w.rkey(), w.remoteOffset() + currentOffset);
            case WorkRequest.SendWithInvalidate s -> fh.putUntagged(n, last,
                    WrFlags.has(s.flags(), WrFlags.SOLICITED) ? RdmapOpcode.SEND_SE_INVALIDATE : RdmapOpcode.SEND_INVALIDATE,
                    s.invalidateStag(), FpduDescriptor.QN_SEND, sendMsn, (int) currentOffset);
            default -> fh.putUntagged(n, last, WrFlags.has(wr.flags(), WrFlags.SOLICITED) ? RdmapOpcode.SEND_SE : RdmapOpcode.SEND,
                    0, FpduDescriptor.QN_SEND, sendMsn, (int) currentOffset);
        });
        if (WrFlags.has(wr.flags(), WrFlags.INLINE)) {
            int start = sq.inlineOffset(currentPos) + (int) currentOffset;
            ByteBuffer v = inlineViews[gatherCount];
            if (v == null) {
                v = inlineViews[gatherCount] = inlineBuffer.duplicate();
            }
            gather[gatherCount++] = v.clear().position(start).limit(start + n);
        } else {
            gatherPayload(wr.sgl(), n);
        }
        currentOffset += n;
        if (last) {
            if (!tagged) {
                sendMsn++;
            }
            requests[fpdus] = wr;
            positions[fpdus] = currentPos;
            current = null;
        }
        seal(first, headerLength + n, last ? COMPLETES_MESSAGE : NOTHING_AFTER);
    }

    private void gatherPayload(List<Sge> sgl, int n) {
        int left = n;
        while (left > 0) {
            Sge sge = sgl.get(sgeIndex);
            int take = (int) Math.min(left, sge.length() - sgeOffset);
            if (take > 0) {
                int start = (int) (sge.offset() + sgeOffset);
                gather[gatherCount] = view(gatherCount, sources[sgeIndex]).clear().position(start).limit(start + take);
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

    private ByteBuffer view(int slot, KitMemoryRegion r) {
        if (viewOwners[slot] != r) {
            viewOwners[slot] = r;
            views[slot] = r.buffer().duplicate();
        }
        return views[slot];
    }

    /** Builds the Read Request of {@code read}; returns the sink STag it carries. */
    private int buildReadRequest(WorkRequest.RdmaRead read) {
        Sge sink = read.sgl().get(0);
        int sinkStag = sink.region().lkey();
        int first = gatherCount;
        ByteBuffer h = newHeader();
        h.limit(fpdu.wrap(h, 0).putReadRequest(readMsn++, sinkStag, sink.offset(), sink.length(), read.rkey(), read.remoteOffset()));
        seal(first, FpduHeader.READ_REQUEST_ULPDU, NOTHING_AFTER);
        return sinkStag;
    }

    /** One FPDU of the oldest Read Response; the entry is released once its last FPDU is built. */
    private void buildResponse(ReadRequestQueue.Entry r) {
        int n = (int) Math.min(r.size - r.sent, maxTagged);
        boolean last = r.sent + n == r.size;
        int first = gatherCount;
        ByteBuffer h = newHeader();
        h.limit(fpdu.wrap(h, 0).putTagged(n, last, RdmapOpcode.READ_RESPONSE, r.sinkStag, r.sinkTo + r.sent));
        if (n > 0) {
            KitMemoryRegion region = r.source.region;
            int start = (int) (r.source.base + r.sourceOffset + r.sent);
            gather[gatherCount] = view(gatherCount, region).clear().position(start).limit(start + n);
            gatherCount++;
        }
        r.sent += n;
        if (last) {
            qp.counters().sentReadResponse(r.size);
            c.irq.pop();
        }
        seal(first, FpduDescriptor.TAGGED_HEADER_LENGTH + n, NOTHING_AFTER);
    }

    private void buildTerminate(Failure f) {
        qp.ras().terminateSent(f.terminate());
        byte[] quoted = f.offending();
        int payload = TerminateDescriptor.CONTROL_SIZE + (quoted != null ? 2 + quoted.length : 0);
        int first = gatherCount;
        ByteBuffer h = newHeader();
        // a stream carries at most one Terminate, the first message of queue 2: MSN 1
        h.position(fpdu.wrap(h, 0).putUntagged(payload, true, RdmapOpcode.TERMINATE, 0, FpduDescriptor.QN_TERMINATE, 1, 0));
        h.putInt(TerminateDescriptor.control(f.terminate(), quoted != null, f.rdmapIncluded()));
        if (quoted != null) {
            // RFC 5040 section 4.8: the length of the DDP segment that caused the error
            h.putShort((short) f.segmentLength());
            h.put(quoted);
        }
        h.flip();
        current = null;
        seal(first, FpduDescriptor.UNTAGGED_HEADER_LENGTH + payload, ENDS_STREAM);
    }

    /** Appends pad and CRC to the FPDU gathered from {@code first}, and records it in the batch. */
    private void seal(int first, int ulpdu, int followUp) {
        int pad = FpduDescriptor.padLength(ulpdu);
        int value = 0;
        if (c.crc) {
            crc.reset();
            for (int i = first; i < gatherCount; i++) {
                ByteBuffer b = gather[i];
                int p = b.position();
                crc.update(b);
                b.position(p);
            }
            crc.update(ZEROS, 0, pad);
            value = (int) crc.getValue();
        }
        ByteBuffer t = trailers[fpdus].clear();
        t.put(ZEROS, 0, pad);
        t.putInt(value);
        t.flip();
        gather[gatherCount++] = t;
        followUps[fpdus] = followUp;
        ends[fpdus] = gatherCount - 1;
        fpdus++;
        batchBytes += FpduDescriptor.fpduLength(ulpdu);
        int opcode = headers[fpdus - 1].get(FpduDescriptor.RDMAP_CONTROL_OFFSET) & FpduDescriptor.RDMAP_OPCODE_MASK;
        qp.counters().fpduSent(opcode, ulpdu);
        qp.counters().sealed(opcode, ulpdu, value);
    }
}

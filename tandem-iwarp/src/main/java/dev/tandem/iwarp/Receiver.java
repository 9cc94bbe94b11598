package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.FpduDescriptor;
import dev.tandem.iwarp.wire.FpduHeader;
import dev.tandem.iwarp.wire.RdmapOpcode;
import dev.tandem.iwarp.wire.ReadRequestDescriptor;
import dev.tandem.iwarp.wire.TerminateCode;
import dev.tandem.iwarp.wire.TerminateDescriptor;
import dev.tandem.provider.KitMemoryRegion;
import dev.tandem.provider.StagEntry;
import dev.tandem.provider.StagTable;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.PeerIncarnation;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads FPDUs of one stream and places them: the header into a small buffer, then (after every
 * check passed) the payload straight from the socket into registered memory with one scattering
 * read, then pad and CRC. CRC is verified over the placed bytes before anything is delivered.
 * Any fault ends in a Terminate with the matching layer/type/code. Runs only under the adapter's
 * progress lock.
 */
final class Receiver {
    private static final int MIN_HEADER = 2 + FpduDescriptor.TAGGED_HEADER_LENGTH;
    private static final int UNTAGGED_HEADER = FpduDescriptor.UNTAGGED_HEADER_LENGTH + 2;
    /** Polls per duty cycle that read on after a refused write (each returns at a completion): enough for a socket's buffer. */
    private static final int MAX_ROUNDS_AFTER_WRITE_FAILURE = 1024;

    private final Connection c;
    private final QpContext qp;
    /** The peer node's life admitted at set-up (null: none exchanged): asked before each frame is placed. */
    private final PeerIncarnation peer;
    /** The current FPDU's header; its twin {@link #ahead} takes the next FPDU's first bytes. */
    private ByteBuffer header = ByteBuffer.allocateDirect(128);
    private ByteBuffer ahead = ByteBuffer.allocateDirect(128);
    /** Reads the FPDU in {@link #header} (wrapped again whenever the two buffers trade places). */
    private final FpduHeader fpdu = new FpduHeader().wrap(header, 0);
    private final ByteBuffer trailer = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer[] scatter;
    private final int[] placedStart;
    /** Resolves the regions Receives and Read sinks name. */
    private final StagTable stags;
    private final KitMemoryRegion[] viewOwners;
    private final ByteBuffer[] views;
    private final CRC32C crc = new CRC32C();
    private int scatterCount;
    private boolean inBody;
    /** The last FPDU ended a message (its data is placed; a completion or a polling reader may be waiting). */
    private boolean completed;

    private int ulpdu;
    private boolean tagged;
    private int firstView;
    private int opcode;
    private boolean last;
    private int payloadLength;
    private int pad;

    private int expectedSendMsn = 1;
    private int expectedReadMsn = 1;

    /** MSN the next inbound Send must carry, for dumps. */
    int expectedSendMsn() {
        return expectedSendMsn;
    }

    /** MSN the next inbound Read Request must carry, for dumps. */
    int expectedReadMsn() {
        return expectedReadMsn;
    }
    private ReceiveRequest receive;
    private long received;
    private long readReceived;
    /** Payload bytes of the RDMA Write being received, counted when its last segment arrives. */
    private long writeReceived;

    Receiver(Connection c) {
        this.c = c;
        this.qp = c.qp;
        this.peer = c.peer;
        this.stags = qp.stags();
        int slots = Math.max(qp.maxReceiveSge(), 1) + 3;
        scatter = new ByteBuffer[slots];
        placedStart = new int[slots];
        viewOwners = new KitMemoryRegion[slots];
        views = new ByteBuffer[slots];
        header.clear().limit(MIN_HEADER);
        ahead.clear().limit(MIN_HEADER);
    }

    /** Reads and places what the socket has (nothing while the link is down); returns work done. Two reads per FPDU: 16 header bytes, then the rest. */
    int poll() {
        if (c.isClosed() || qp.inError()) {
            flushReceive(CompletionStatus.WR_FLUSH_ERR);
            return 0;
        }
        if (c.link.isDown()) {
            // a black hole: what the peer sends waits in the socket until the link is up
            return 0;
        }
        int work = 0;
        try {
            while (!qp.inError()) {
                if (!inBody) {
                    if (header.position() < MIN_HEADER) {
                        int n = c.channel.read(header);
                        if (n < 0) {
                            endOfStream();
                            return work + 1;
                        }
                        if (header.position() < MIN_HEADER) {
                            // an FPDU too short for any DDP header may be all the peer sends: refuse it now
                            if (header.position() >= FpduDescriptor.LENGTH_SIZE) {
                                refuseIfTooShort();
                            }
                            return qp.inError() ? work + 1 : work;
                        }
                        work++;
                    }
                    beginBody();
                    if (qp.inError()) {
                        return work + 1;
                    }
                    inBody = true;
                }
                long n = c.channel.read(scatter, 0, scatterCount);
                if (n < 0) {
                    endOfStream();
                    return work + 1;
                }
                if (trailer.hasRemaining()) {
                    return work;
                }
                work++;
                inBody = false;
                endFpdu();
                // the bytes read ahead become the next FPDU's header
                ByteBuffer done = header;
                header = ahead;
                ahead = done;
                fpdu.wrap(header, 0);
                ahead.clear().limit(MIN_HEADER);
                header.limit(MIN_HEADER);
                if (qp.inError()) {
                    return work;
                }
                if (completed && header.position() < MIN_HEADER) {
                    // a completion is waiting: let its owner react before another read syscall (but
                    // refuse at once an FPDU read ahead that is too short for any header)
                    if (header.position() >= FpduDescriptor.LENGTH_SIZE) {
                        refuseIfTooShort();
                    }
                    return work;
                }
            }
        } catch (IOException e) {
            qp.connectionLost(e, inProgress(CompletionStatus.WR_FLUSH_ERR, 0, 0, 0));
            return work + 1;
        }
        return work;
    }

    /**
     * Checks the first 16 bytes (length, control bytes, and for untagged segments QN and MSN) and
     * sets up one scattering read for the rest: the remaining header bytes (untagged), the payload
     * straight into its buffer, then pad and CRC. A fault leaves the QP in ERROR, which is what the
     * caller checks: every check below ends in {@link #fault} or goes on, and none passes a flag up.
     */
    private void beginBody() {
        if (peer != null && !peer.isCurrent()) {
            dropEarlierLife();
            return;
        }
        refuseIfTooShort();
        if (qp.inError()) {
            return;
        }
        FpduHeader h = fpdu;
        ulpdu = h.ulpduLength();
        tagged = h.tagged();
        last = h.last();
        opcode = h.opcode();
        int headerLength = FpduHeader.ddpHeaderLength(tagged);
        if (h.ddpVersion() != FpduDescriptor.DDP_VERSION) {
            fault(tagged ? TerminateCode.DDP_TAGGED_INVALID_VERSION : TerminateCode.DDP_UNTAGGED_INVALID_VERSION,
                    "DDP version " + h.ddpVersion() + " (expected 1)");
            return;
        }
        if (h.rdmapVersion() != FpduDescriptor.RDMAP_VERSION) {
            fault(TerminateCode.RDMAP_INVALID_VERSION, "RDMAP version " + h.rdmapVersion() + " (expected 1)");
            return;
        }
        if (opcode > RdmapOpcode.MAX || tagged != RdmapOpcode.isTagged(opcode)) {
            fault(TerminateCode.RDMAP_UNEXPECTED_OPCODE, "opcode " + opcode + (tagged ? " in a tagged" : " in an untagged") + " segment");
            return;
        }
        if (ulpdu < headerLength) {
            fault(TerminateCode.DDP_CATASTROPHIC, "ULPDU_LENGTH " + ulpdu + " is shorter than the " + headerLength + "-byte DDP header");
            return;
        }
        payloadLength = ulpdu - headerLength;
        pad = FpduDescriptor.padLength(ulpdu);
        scatterCount = 0;
        int target;
        if (tagged) {
            firstView = 0;
            int stag = h.stag();
            target = stag;
            long to = h.to();
            if (opcode == RdmapOpcode.RDMA_WRITE) {
                placeWrite(stag, to);
            } else {
                placeReadResponse(stag, to);
            }
        } else {
            firstView = 1;
            int qn = h.qn();
            int msn = h.msn();
            target = msn;
            switch (qn) {
                case FpduDescriptor.QN_SEND -> {
                    if (RdmapOpcode.isSend(opcode)) {
                        readHeaderRest(UNTAGGED_HEADER);
                        placeSend(msn);
                    } else {
                        fault(TerminateCode.RDMAP_UNEXPECTED_OPCODE, "opcode " + RdmapOpcode.name(opcode) + " on the Send queue");
                    }
                }
                case FpduDescriptor.QN_READ_REQUEST -> readReadRequestHeader(msn);
                case FpduDescriptor.QN_TERMINATE -> {
                    if (opcode == RdmapOpcode.TERMINATE
                            && ulpdu >= FpduDescriptor.UNTAGGED_HEADER_LENGTH + TerminateDescriptor.CONTROL_SIZE
                            && ulpdu <= FpduDescriptor.UNTAGGED_HEADER_LENGTH + TerminateDescriptor.MAX_LENGTH) {
                        readHeaderRest(2 + ulpdu);
                    } else {
                        fault(TerminateCode.RDMAP_UNEXPECTED_OPCODE, "malformed Terminate (opcode " + opcode + ", ULPDU " + ulpdu + ")");
                    }
                }
                default -> fault(TerminateCode.DDP_UNTAGGED_INVALID_QN, "queue number " + qn);
            }
        }
        if (qp.inError()) {
            return;
        }
        qp.counters().placing(opcode, target, payloadLength);
        trailer.clear().limit(pad + FpduDescriptor.CRC_SIZE);
        scatter[scatterCount++] = trailer;
        // every FPDU is at least 20 bytes, so the next one's first 16 bytes are header: read them now
        scatter[scatterCount++] = ahead;
    }

    /**
     * Drops the FPDU whose header is in: its connection was set up with a life of the peer node that is
     * no longer current (the node has restarted since), so nothing it sends may be placed (restart-safe
     * keys, seed 001 claim 1: drop at the receiving adapter, signal a fatal error to the sender). Counted
     * ({@code old incarnation frames dropped}), recorded once per cause, and answered as the protection
     * faults are: a Terminate quoting the header, both QPs to ERROR, work flushed.
     *
     * <p>The code: RDMAP, remote protection error, unspecified (layer 0, type 1, code 0xFF; RFC 5040
     * section 7.2). The frame is refused for the sender's standing, not for its form: the incarnation
     * under which this stream, and every STag it names, was granted is gone, so it is a protection error
     * (the sender raises QP_ACCESS_ERROR and its Reads in flight complete REM_ACCESS_ERR, as for a revoked STag), not a
     * catastrophic or remote operation error, which would blame the stream or the request. None of the
     * specific protection codes (invalid STag, bounds, rights, PD) names it, and a Send is refused too,
     * which names no STag: hence "unspecified".
     */
    private void dropEarlierLife() {
        ulpdu = fpdu.ulpduLength();
        opcode = fpdu.opcode();
        qp.ras().oldIncarnationFramesDropped.incrementAtomic();
        qp.fail(detected(TerminateCode.RDMAP_UNSPECIFIED_PROTECTION, "frame from an earlier incarnation of node " + peer.node()
                        + " (key " + String.format("0x%016x", peer.key()) + ") dropped before placement: the node has restarted since "
                        + "this connection was set up"),
                inProgress(CompletionStatus.WR_FLUSH_ERR, 0, 0, 0));
    }

    /**
     * Refuses an FPDU whose ULPDU_LENGTH cannot hold even a tagged DDP header (14 bytes): what
     * follows its length field is its pad and CRC, or the next FPDU, so nothing else in it can be
     * judged (RFC 5041 section 7.2: a DDP local catastrophic error, the code Tandem gives every
     * ULPDU shorter than its header). Checked as soon as the length field is in, because such an
     * FPDU is shorter than the 16 bytes the receiver otherwise waits for and may be all the peer
     * sends (issue 12, row 12). Linux siw has no length check here: it waits for 16 bytes whatever
     * the length, then objects to the DDP version of whatever follows.
     */
    private void refuseIfTooShort() {
        int length = fpdu.ulpduLength();
        if (length >= FpduDescriptor.TAGGED_HEADER_LENGTH) {
            return;
        }
        ulpdu = length;
        fault(TerminateCode.DDP_CATASTROPHIC, "ULPDU_LENGTH " + length + " is shorter than any DDP header ("
                + FpduDescriptor.TAGGED_HEADER_LENGTH + " bytes tagged, " + FpduDescriptor.UNTAGGED_HEADER_LENGTH + " untagged)");
    }

    /** The header buffer itself takes the bytes up to {@code end} in the same scattering read. */
    private void readHeaderRest(int end) {
        header.limit(end);
        scatter[scatterCount++] = header;
    }

    /** Checks a Read Request's opcode, size and MSN, then reads its 28 bytes into the header buffer. */
    private void readReadRequestHeader(int msn) {
        if (opcode != RdmapOpcode.READ_REQUEST) {
            fault(TerminateCode.RDMAP_UNEXPECTED_OPCODE, "opcode " + RdmapOpcode.name(opcode) + " on the Read Request queue");
        } else if (payloadLength != ReadRequestDescriptor.LENGTH) {
            fault(TerminateCode.DDP_CATASTROPHIC, "Read Request of " + payloadLength + " payload bytes (expected "
                    + ReadRequestDescriptor.LENGTH + ")");
        } else if (msn != expectedReadMsn) {
            fault(TerminateCode.DDP_UNTAGGED_MSN_RANGE, "Read Request MSN " + msn + " (expected " + expectedReadMsn + ")");
        } else {
            readHeaderRest(2 + ulpdu);
        }
    }

    private void placeWrite(int stag, long to) {
        if (payloadLength == 0) {
            // nothing to place, so no STag to check (IBA C9-88; siw_proc_write returns before it looks
            // the STag up): a zero-length Write is accepted with any STag and TO (issue 12, row 9)
            return;
        }
        StagEntry e = stags.lookup(stag);
        TerminateCode err = checkTagged(e, stag, to, payloadLength, Access.REMOTE_WRITE, false);
        if (err != null) {
            countFault(e);
            fault(err, "RDMA Write of " + payloadLength + " bytes to STag " + dev.tandem.verbs.STag.format(stag) + " at TO " + Long.toUnsignedString(to));
            return;
        }
        e.region.counters().remoteAccess();
        place(e.region, e.base + to, payloadLength);
    }

    private void placeReadResponse(int stag, long to) {
        if (c.orq.isEmpty()) {
            fault(TerminateCode.RDMAP_UNEXPECTED_OPCODE, "Read Response with no RDMA Read outstanding");
            return;
        }
        WorkRequest.RdmaRead read = (WorkRequest.RdmaRead) qp.sendQueue().request(c.orq.peek());
        Sge sink = read.sgl().get(0);
        KitMemoryRegion region = stags.resolve(sink.region());
        int asked = c.orq.peekSinkStag();
        if (stag != asked) {
            countFault(region);
            fault(TerminateCode.DDP_TAGGED_INVALID_STAG, "Read Response to STag " + dev.tandem.verbs.STag.format(stag)
                    + " but the outstanding Read Request named sink STag " + dev.tandem.verbs.STag.format(asked));
        } else if (payloadLength > 0 && (region == null || !region.isValid() || region.lkey() != asked)) {
            // a zero-length response places nothing: only its STag and TO are checked (as siw_proc_rresp)
            sinkGivenBack(region, asked);
        } else if (to != sink.offset() + readReceived || readReceived + payloadLength > sink.length()) {
            countFault(region);
            fault(TerminateCode.DDP_TAGGED_BASE_BOUNDS, "Read Response at TO " + Long.toUnsignedString(to) + " length " + payloadLength
                    + " outside the outstanding Read's sink (" + sink.offset() + ", " + sink.length() + " bytes, " + readReceived + " received)");
        } else {
            region.counters().remoteAccess();
            place(region, to, payloadLength);
        }
    }

    /**
     * The peer answered the outstanding Read to the sink STag its request named, but the application
     * deregistered, invalidated or reregistered that sink since: nothing is placed. A local fault, as
     * siw treats a sink that fails its check in {@code siw_proc_rresp}: the Read completes
     * {@code LOC_PROT_ERR}, the QP raises {@code QP_ACCESS_ERROR}, and the peer still gets the DDP
     * invalid-STag Terminate, since its response can no longer be placed.
     */
    private void sinkGivenBack(KitMemoryRegion region, int asked) {
        countFault(region);
        String what = "Read Response of " + payloadLength + " bytes to sink STag " + dev.tandem.verbs.STag.format(asked)
                + ", which the application " + (region == null ? "gave back on this adapter" : region.isClosed() ? "deregistered" : region.isValid()
                ? "reregistered as " + dev.tandem.verbs.STag.format(region.lkey()) : "invalidated") + " after the Read Request left";
        qp.fail(detected(TerminateCode.DDP_TAGGED_INVALID_STAG, what).withHeadStatus(CompletionStatus.LOC_PROT_ERR),
                inProgress(CompletionStatus.WR_FLUSH_ERR, 0, 0, 0));
    }

    /** Places a Send segment at the offset its MO must have; the MO itself is checked once read, before delivery. */
    private void placeSend(int msn) {
        if (msn != expectedSendMsn) {
            fault(TerminateCode.DDP_UNTAGGED_MSN_RANGE, "Send MSN " + msn + " (expected " + expectedSendMsn + ")");
            return;
        }
        if (receive == null) {
            receive = qp.takeReceive();
            received = 0;
            if (receive == null) {
                fault(TerminateCode.DDP_UNTAGGED_NO_BUFFER, "Send MSN " + msn + " arrived and no receive buffer is posted");
                return;
            }
        }
        if (received + payloadLength > receive.length()) {
            fault(TerminateCode.DDP_UNTAGGED_TOO_LONG, "Send of at least " + (received + payloadLength)
                    + " bytes for a receive buffer of " + receive(receive), CompletionStatus.LOC_LEN_ERR, received + payloadLength, 0, null);
            return;
        }
        Sge refused = unusableEntry(receive.sgl(), received, payloadLength);
        if (refused != null) {
            KitMemoryRegion region = stags.resolve(refused.region());
            fault(TerminateCode.DDP_CATASTROPHIC, "Send segment of " + payloadLength + " bytes at MO " + received
                    + " for the receive buffer of " + receive(receive) + ", which lies in " + refused.region()
                    + (region == null ? ", no longer registered on this adapter" : region.isClosed() ? ", deregistered"
                    : ", no longer valid for local write") + " since the receive was posted",
                    CompletionStatus.LOC_PROT_ERR, received, 0, AsyncEventType.QP_ACCESS_ERROR);
            return;
        }
        scatterReceive(receive.sgl(), received, payloadLength);
    }

    /**
     * The first entry of a Receive that the {@code length} bytes at {@code offset} would go into and
     * whose region may no longer take them, or null when all may: checked as each
     * segment of a Send is set up for placement, before a byte of it is read (issue 12, row 2).
     *
     * <p>A region may be deregistered (or reregistered without LOCAL_WRITE, or invalidated by a
     * peer's Send with Invalidate) while a posted Receive, of this QP or of its shared receive queue,
     * still points into it. The verbs allow refusing the deregistration while a Receive references
     * the region, or checking the Receive when data arrives for it. Tandem checks at placement, as
     * siw does ({@code siw_proc_send} calls {@code siw_check_sge} for every piece it places): posting
     * a Receive costs nothing more (no reference to take and drop per Receive), and deregistration
     * never blocks on a peer that may not send for hours. A segment whose Receive entry fails the
     * check places nothing (a region given back mid-message receives no later segment); the Receive
     * completes {@code LOC_PROT_ERR} (the status siw gives a failed check of a Read Response sink;
     * its receive path reports {@code GENERAL_ERR}), the QP raises {@code QP_ACCESS_ERROR}, and the
     * peer gets the Terminate siw sends for it: DDP layer, catastrophic error. The Sge names the
     * region, not a key, so a region reregistered with LOCAL_WRITE still takes the bytes.
     * Entries of length 0 and entries the bytes do not reach are not checked (siw skips them too).
     */
    private Sge unusableEntry(List<Sge> sgl, long offset, int length) {
        long skip = offset;
        int left = length;
        for (int i = 0; i < sgl.size() && left > 0; i++) {
            Sge sge = sgl.get(i);
            if (skip >= sge.length()) {
                skip -= sge.length();
                continue;
            }
            KitMemoryRegion region = stags.resolve(sge.region());
            if (region == null || !region.entry().valid || !region.entry().allows(Access.LOCAL_WRITE)) { // deregistration invalidates the entry too
                return sge;
            }
            left -= (int) Math.min(left, sge.length() - skip);
            skip = 0;
        }
        return null;
    }

    private static String receive(ReceiveRequest r) {
        return r.length() + " bytes (wrId " + r.wrId() + ")";
    }

    private void scatterReceive(List<Sge> sgl, long offset, int length) {
        long skip = offset;
        int left = length;
        for (int i = 0; i < sgl.size() && left > 0; i++) {
            Sge sge = sgl.get(i);
            if (skip >= sge.length()) {
                skip -= sge.length();
                continue;
            }
            int take = (int) Math.min(left, sge.length() - skip);
            place(stags.resolve(sge.region()), sge.offset() + skip, take);
            skip = 0;
            left -= take;
        }
    }

    private void place(KitMemoryRegion region, long offset, int length) {
        if (length == 0) {
            return;
        }
        int s = scatterCount;
        if (viewOwners[s] != region) {
            viewOwners[s] = region;
            views[s] = region.buffer().duplicate();
        }
        region.counters().placed(length);
        int start = (int) offset;
        placedStart[s] = start;
        scatter[s] = views[s].clear().position(start).limit(start + length);
        scatterCount++;
    }

    /** Counts a refused tagged access against the region the STag names, if it still has one. */
    private static void countFault(StagEntry e) {
        if (e != null && e.region != null) {
            countFault(e.region);
        }
    }

    /** Counts a refused access against {@code region}, unless it was deregistered (its counters are gone) or is none. */
    private static void countFault(KitMemoryRegion region) {
        if (region != null && !region.isClosed()) {
            region.counters().accessFault();
        }
    }

    /**
     * A tagged access check of {@code length} (never negative) bytes at {@code to}; null when allowed.
     * {@code rdmapLayer} selects RDMAP codes (Read Request source).
     */
    private TerminateCode checkTagged(StagEntry e, int stag, long to, long length, int access, boolean rdmapLayer) {
        if (e == null || !e.valid || e.key != (stag & 0xFF) || e.region == null || !e.region.isValid()) {
            return rdmapLayer ? TerminateCode.RDMAP_INVALID_STAG : TerminateCode.DDP_TAGGED_INVALID_STAG;
        }
        if (!qp.associated(e)) {
            return rdmapLayer ? TerminateCode.RDMAP_STAG_NOT_ASSOCIATED : TerminateCode.DDP_TAGGED_STAG_NOT_ASSOCIATED;
        }
        if (!e.allows(access)) {
            return TerminateCode.RDMAP_ACCESS_RIGHTS;
        }
        // a TO of 2^63 or more reads as negative; past the end, e.length - to is negative and refuses any length
        if (to < 0 || length > e.length - to) {
            return rdmapLayer ? TerminateCode.RDMAP_BASE_BOUNDS : TerminateCode.DDP_TAGGED_BASE_BOUNDS;
        }
        return null;
    }

    /** Verifies the CRC over header, placed bytes and pad, then delivers. */
    private void endFpdu() {
        trailer.flip();
        if (c.crc) {
            crc.reset();
            int headerBytes = header.position();
            ByteBuffer h = header.flip();
            crc.update(h);
            header.position(headerBytes);
            for (int i = firstView; i < scatterCount - 2; i++) {
                ByteBuffer v = scatter[i];
                int end = v.position();
                v.position(placedStart[i]);
                crc.update(v);
                v.position(end);
            }
            for (int i = 0; i < pad; i++) {
                crc.update(trailer.get(i));
            }
            int wire = trailer.getInt(pad);
            if (wire != (int) crc.getValue()) {
                fault(TerminateCode.LLP_CRC, String.format("CRC32C 0x%08x on the wire, 0x%08x computed", wire, (int) crc.getValue()));
                return;
            }
        }
        qp.counters().fpduReceived(opcode, ulpdu);
        completed = last;
        switch (opcode) {
            case RdmapOpcode.RDMA_WRITE -> {
                writeReceived += payloadLength;
                if (last) {
                    qp.counters().received(opcode, writeReceived);
                    writeReceived = 0;
                }
            }
            case RdmapOpcode.READ_RESPONSE -> {
                readReceived += payloadLength;
                if (last) {
                    long pos = c.orq.peek();
                    c.orq.pop();
                    qp.counters().received(opcode, readReceived);
                    readReceived = 0;
                    qp.sendQueue().finish(pos, CompletionStatus.SUCCESS, 0);
                    qp.sendQueue().complete(qp.sendEmitter());
                }
            }
            case RdmapOpcode.READ_REQUEST -> acceptReadRequest();
            case RdmapOpcode.TERMINATE -> {
                int control = fpdu.terminateControl();
                int bits = control >>> 16;
                qp.counters().received(opcode, 0);
                TerminateCode received = TerminateCode.fromBits(bits);
                if (received != null) {
                    qp.ras().terminateReceived(received);
                }
                qp.fail(Failure.received(TerminateCode.fromBits(bits), bits), inProgress(CompletionStatus.WR_FLUSH_ERR, 0, 0, 0));
            }
            default -> deliverSend();
        }
    }

    private void deliverSend() {
        int mo = fpdu.mo();
        if ((mo & 0xFFFFFFFFL) != received) {
            fault(TerminateCode.DDP_UNTAGGED_INVALID_MO, "Send segment MO " + (mo & 0xFFFFFFFFL) + " (expected " + received + ")");
            return;
        }
        received += payloadLength;
        if (!last) {
            return;
        }
        expectedSendMsn++;
        int flags = RdmapOpcode.isSolicited(opcode) ? WorkCompletion.FLAG_SOLICITED : 0;
        int invalidated = 0;
        if (RdmapOpcode.invalidates(opcode)) {
            invalidated = fpdu.invalidateStag();
            TerminateCode refused = qp.remoteInvalidate(invalidated);
            if (refused != null) {
                // the Receive completes REM_INV_REQ_ERR with its data, as siw_rdmap_complete completes it
                fault(refused, "Send with Invalidate names STag " + dev.tandem.verbs.STag.format(invalidated) + ", which "
                        + (refused == TerminateCode.RDMAP_CANNOT_INVALIDATE ? "this adapter never issued"
                        : "belongs to another protection domain or is a window bound to another QP"),
                        CompletionStatus.REM_INV_REQ_ERR, received, flags, null);
                return;
            }
            flags |= WorkCompletion.FLAG_INVALIDATED;
        }
        ReceiveRequest r = receive;
        receive = null;
        qp.counters().received(opcode, received);
        qp.completeReceive(r, CompletionStatus.SUCCESS, received, flags, invalidated, 0);
    }

    private void acceptReadRequest() {
        int sinkStag = fpdu.readSinkStag();
        long sinkTo = fpdu.readSinkTo();
        long size = fpdu.readSize();
        int sourceStag = fpdu.readSourceStag();
        long sourceTo = fpdu.readSourceTo();
        expectedReadMsn++;
        // a zero-length Read reads nothing, so its source STag is not checked (IBA C9-88; siw answers it
        // with a Read Response of no SGE, which its transmitter does not check): any STag and TO will do
        StagEntry e = size == 0 ? null : stags.lookup(sourceStag);
        TerminateCode err = size == 0 ? null : checkTagged(e, sourceStag, sourceTo, size, Access.REMOTE_READ, true);
        if (err != null) {
            countFault(e);
            fault(err, "RDMA Read Request of " + size + " bytes from STag " + dev.tandem.verbs.STag.format(sourceStag) + " at TO " + Long.toUnsignedString(sourceTo));
            return;
        }
        ReadRequestQueue.Entry entry = c.irq.claim(c.ird);
        if (entry == null) {
            fault(TerminateCode.RDMAP_CATASTROPHIC_STREAM, "RDMA Read Request beyond the negotiated IRD of " + c.ird);
            return;
        }
        entry.sinkStag = sinkStag;
        entry.sinkTo = sinkTo;
        entry.size = size;
        entry.source = e;
        entry.sourceOffset = sourceTo;
        entry.sent = 0;
        if (e != null) {
            e.region.counters().remoteAccess();
        }
        c.irq.publish();
        qp.counters().received(RdmapOpcode.READ_REQUEST, 0);
        c.tx.poll();
    }

    /** Answers a fault in the peer's stream with a Terminate quoting the offending headers; the Receive being filled is flushed. */
    private void fault(TerminateCode code, String what) {
        fault(code, what, CompletionStatus.WR_FLUSH_ERR, 0, 0, null);
    }

    /**
     * Answers a fault in the peer's stream with a Terminate quoting the offending headers. The
     * Receive being filled, if any, completes with {@code status} ({@code length} bytes, {@code flags},
     * the Terminate as vendor error unless flushed) once the QP has failed and logged the error, and
     * before the queued Receives are flushed. {@code event} replaces the async event the code implies
     * (null: keep it). The QP is in ERROR afterwards: that, not a returned flag, stops the receiver.
     */
    private void fault(TerminateCode code, String what, CompletionStatus status, long length, int flags, AsyncEventType event) {
        qp.counters().countMalformed();
        Failure f = detected(code, what);
        qp.fail(event == null ? f : f.withEvent(event),
                inProgress(status, length, flags, status == CompletionStatus.WR_FLUSH_ERR ? 0 : code.bits()));
    }

    /** The failure that answers {@code code} with a Terminate quoting the offending headers. */
    private Failure detected(TerminateCode code, String what) {
        int bytes = header.position();
        boolean tagged = bytes > FpduDescriptor.DDP_CONTROL_OFFSET && fpdu.tagged();
        int ddpLength = tagged ? FpduDescriptor.TAGGED_HEADER_LENGTH : FpduDescriptor.UNTAGGED_HEADER_LENGTH;
        boolean withRdmap = !tagged && opcode == RdmapOpcode.READ_REQUEST && bytes >= UNTAGGED_HEADER + ReadRequestDescriptor.LENGTH;
        int quoted = Math.min(bytes - 2, ddpLength + (withRdmap ? ReadRequestDescriptor.LENGTH : 0));
        byte[] offending = null;
        if (quoted >= ddpLength && ulpdu >= ddpLength) {
            offending = new byte[quoted];
            header.get(2, offending, 0, quoted);
        }
        if (code == TerminateCode.LLP_CRC) {
            qp.ras().crcErrors.incrementAtomic();
        }
        return Failure.detected(code, ulpdu, offending, withRdmap, what);
    }

    /**
     * Takes the Receive being filled, if any, for {@link IwQueuePair#fail(Failure, Runnable)} to
     * complete after the error is logged and before the queued Receives are flushed (Receives
     * complete in the order they were posted); null when there is none.
     */
    private Runnable inProgress(CompletionStatus status, long length, int flags, int vendorError) {
        ReceiveRequest r = receive;
        if (r == null) {
            return null;
        }
        receive = null;
        return () -> qp.completeReceive(r, status, length, flags, 0, vendorError);
    }

    private void flushReceive(CompletionStatus status) {
        ReceiveRequest r = receive;
        if (r != null) {
            receive = null;
            qp.completeReceive(r, status, 0, 0, 0, 0);
        }
    }

    /**
     * After the socket refused a write ({@code refused}): reads what the peer sent before the stream broke, so
     * that its Terminate or its close gives the QP its cause, as when nothing was written; once nothing more
     * is there to read, the refused write is the cause. Engine's duty cycle only. Returns work done.
     */
    int afterWriteFailure(IOException refused) {
        int work = 0;
        for (int round = 0; round < MAX_ROUNDS_AFTER_WRITE_FAILURE && !qp.inError(); round++) {
            int n = poll();
            if (n == 0) {
                qp.connectionLost(refused, inProgress(CompletionStatus.WR_FLUSH_ERR, 0, 0, 0));
                return work + 1;
            }
            work += n;
        }
        return work; // more to read than one cycle takes: the next cycle goes on
    }

    private void endOfStream() {
        boolean clean = !inBody && header.position() == 0;
        qp.fail(Failure.lost(clean ? AsyncEventType.DISCONNECTED : AsyncEventType.QP_FATAL,
                clean ? "peer closed the connection" : "peer closed the connection in the middle of an FPDU"),
                inProgress(CompletionStatus.WR_FLUSH_ERR, 0, 0, 0));
    }
}

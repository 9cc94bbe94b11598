package dev.tandem.failover.chaos;

import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The sending half of one end, as an application drives it: messages of its stream (Sends of 1 to 3
 * gathered pieces, some SOLICITED, some INLINE with the source overwritten as soon as the post returns,
 * RDMA Writes each followed by the Send naming it), RDMA Reads of the peer's known bytes, and Writes of
 * its credit word into the peer; signalled and unsignalled mixed, never more outstanding than the send
 * depth. It waits for credits (the peer's consumed count, written into this end) before it sends, and
 * checks every completion through its {@link SendLedger}.
 */
final class SendSide implements SendLedger.Resolutions {
    static final int CREDIT_LENGTH = 16;
    static final byte SCRIBBLE = (byte) 0x5A;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Whom this end answers or asks, in request/response traffic. */
    enum Role {
        /** Sends on its own (both-ways traffic). */
        PEER,
        /** Sends requests, no more outstanding than it has buffers for responses. */
        CLIENT,
        /** Sends only responses, one per request received, in order. */
        SERVER
    }

    private final EndPoint end;
    private final TrafficModel model;
    private final Findings findings;
    private final StreamState out;
    private final StreamState in;
    private final StreamCheck inbound;
    private final PeerKeys peer;
    private final SendLedger ledger;
    private final RandomGenerator rng;
    private final Role role;
    private final int srcSlot;
    private final int readCap;
    private final long tag;
    private int nextMessage;
    private TrafficModel.MessagePlan plan;
    private int writePostedFor = -1;
    private long peerConsumed;
    private boolean creditRegressed;
    private long creditReported;
    private int nextRead;
    private int readsOutstanding;
    private long lastSignalled = -1;
    private boolean stopped;

    SendSide(EndPoint end, TrafficModel model, Findings findings, StreamState out, StreamState in, StreamCheck inbound, PeerKeys peer,
             RandomGenerator rng, Role role, boolean errorsAllowed) {
        this.end = end;
        this.model = model;
        this.findings = findings;
        this.out = out;
        this.in = in;
        this.inbound = inbound;
        this.peer = peer;
        this.rng = rng;
        this.role = role;
        this.ledger = new SendLedger(end.name() + " send queue", findings, errorsAllowed);
        this.srcSlot = EndPoint.sourceSlot(model);
        this.readCap = Math.max(1, Math.min(end.shape().reads(), end.qp().ord()));
        this.tag = EndPoint.sendTag(end.id());
    }

    /** Posts what this step may: credits due, messages the credits allow, now and then a Read; true when it posted. */
    boolean pump(boolean drain, long consumed) {
        readCredit();
        if (drain && !stopped) {
            stopped = true;
            if (role != Role.SERVER) {
                out.finalCount = nextMessage;
            }
        }
        if (role == Role.SERVER && out.finalCount < 0 && in.finalCount >= 0) {
            out.finalCount = in.finalCount; // it answers every request there will be
        }
        boolean progress = false;
        long due = consumed - creditReported;
        if (due > 0 && (drain || due >= Math.max(1, end.shape().receiveCredits() / 4)) && room(1)) {
            progress |= postCredit(consumed, drain);
        }
        for (int i = 0; i < 4 && mayPostMessage(); i++) {
            if (!postMessage(drain)) {
                break;
            }
            progress = true;
        }
        if (!drain && readsOutstanding < readCap && room(1) && rng.nextInt(4) == 0) {
            progress |= postRead();
        }
        if (drain && ledger.uncoveredTail() && room(1)) {
            progress |= postCredit(Math.max(consumed, creditReported), true); // a signalled Write covers the unsignalled tail
        }
        return progress;
    }

    private boolean room(int requests) {
        return ledger.outstanding() + requests <= end.shape().sendDepth();
    }

    private boolean mayPostMessage() {
        switch (role) {
            case SERVER -> {
                if (nextMessage >= inbound.next()) {
                    return false;
                }
            }
            case CLIENT -> {
                if (stopped || nextMessage - inbound.next() >= end.shape().receiveCredits()) {
                    return false;
                }
            }
            case PEER -> {
                if (stopped) {
                    return false;
                }
            }
        }
        if (nextMessage - peerConsumed >= peer.receiveCredits()) {
            return false;
        }
        if (plan == null || plan.number() != nextMessage) {
            plan = model.plan(end.connection(), end.node(), nextMessage);
        }
        boolean writeToGo = plan.shape() == TrafficModel.Shape.NAMED_WRITE && writePostedFor != nextMessage;
        return room(writeToGo ? 2 : 1);
    }

    private boolean postMessage(boolean drain) {
        int n = nextMessage;
        if (plan.shape() == TrafficModel.Shape.NAMED_WRITE && writePostedFor != n) {
            long at = (long) (n % peer.receiveCredits()) * model.maxWrite();
            int window = end.peerWindowRkey;
            int rkey = window != 0 && rng.nextBoolean() ? window : peer.landingRkey(); // the window covers the landing region from 0
            if (!postGathered(SendLedger.Op.WRITE, model.writeBytes(plan), n, at, rkey, 0, drain)) {
                return false;
            }
            writePostedFor = n;
        }
        int flags = (plan.solicited() ? WrFlags.SOLICITED : 0) | (rng.nextInt(10) == 0 ? WrFlags.FENCE : 0);
        if (!postGathered(SendLedger.Op.SEND, model.message(plan), n, 0, 0, flags, drain)) {
            return false;
        }
        nextMessage = n + 1;
        out.sent = nextMessage;
        return true;
    }

    private boolean postCredit(long value, boolean signalled) {
        byte[] b = new byte[CREDIT_LENGTH];
        MemorySegment s = MemorySegment.ofArray(b);
        s.set(LONG, 0, value);
        s.set(LONG, 8, ~value);
        if (postGathered(SendLedger.Op.CREDIT, b, -1, 0, peer.creditRkey(), 0, signalled)) {
            creditReported = value;
            return true;
        }
        return false;
    }

    /** Posts {@code data} gathered from 1 to 3 pieces of this request's source slot; false when the post threw. */
    private boolean postGathered(SendLedger.Op op, byte[] data, int message, long remote, int rkey, int flags, boolean forceSignal) {
        long seq = ledger.nextSeq();
        MemoryRegion source = end.source();
        long base = (seq % end.shape().sendDepth()) * srcSlot;
        int[] pieces = Pieces.layout(data.length, srcSlot, 3, rng);
        List<Sge> sgl = new ArrayList<>(pieces.length / 2);
        int at = 0;
        for (int i = 0; i < pieces.length; i += 2) {
            MemorySegment.copy(data, at, source.segment(), ValueLayout.JAVA_BYTE, base + pieces[i], pieces[i + 1]);
            sgl.add(new Sge(source, base + pieces[i], pieces[i + 1]));
            at += pieces[i + 1];
        }
        boolean inline = data.length <= end.qp().config().maxInlineData() && rng.nextBoolean();
        int depth = end.shape().sendDepth();
        boolean signalled = forceSignal || rng.nextInt(3) == 0 || seq - lastSignalled >= Math.max(2, depth / 4);
        int f = flags | (signalled ? WrFlags.SIGNALED : 0) | (inline ? WrFlags.INLINE : 0);
        SendLedger.Posted p = ledger.post(op, signalled || end.shape().signalAll(), message, data.length, remote, -1, false);
        WorkRequest wr = op == SendLedger.Op.SEND ? new WorkRequest.Send(tag | seq, sgl, f)
                : new WorkRequest.RdmaWrite(tag | seq, sgl, remote, rkey, f);
        if (!post(wr, p)) {
            return false;
        }
        if (signalled) {
            lastSignalled = seq;
        }
        if (inline && message >= 0) {
            (op == SendLedger.Op.SEND ? out.inlineSends : out.inlineWrites).add(message);
        }
        if (inline) {
            for (int i = 0; i < pieces.length; i += 2) { // the verbs allow reuse at once: a device that kept a reference sends this
                source.segment().asSlice(base + pieces[i], pieces[i + 1]).fill(SCRIBBLE);
            }
        }
        return true;
    }

    private boolean postRead() {
        int maxRead = EndPoint.MAX_READ;
        int length = 1 + rng.nextInt(maxRead);
        long remote = rng.nextInt(model.knownLength() - length + 1);
        int slot = nextRead % readCap;
        end.readSink().segment().asSlice((long) slot * maxRead, maxRead).fill(ReceiveBuffers.POISON);
        SendLedger.Posted p = ledger.post(SendLedger.Op.READ, true, -1, length, remote, slot, false);
        WorkRequest wr = new WorkRequest.RdmaRead(tag | p.seq(), new Sge(end.readSink(), (long) slot * maxRead, length), remote,
                peer.knownRkey(), WrFlags.SIGNALED);
        if (!post(wr, p)) {
            return false;
        }
        lastSignalled = p.seq();
        nextRead++;
        readsOutstanding++;
        return true;
    }

    /** After the QP was seen in ERROR: a signalled Send that must complete at once, flushed. */
    void probe() {
        if (!room(1)) {
            return;
        }
        long seq = ledger.nextSeq();
        long base = (seq % end.shape().sendDepth()) * srcSlot;
        for (int attempt = 0; attempt < 2; attempt++) { // the first call may report the QP's error once (AsyncErrorException)
            SendLedger.Posted p = ledger.post(SendLedger.Op.SEND, true, -1, TrafficModel.MIN_MESSAGE, 0, -1, true);
            if (post(new WorkRequest.Send(tag | p.seq(), new Sge(end.source(), base, TrafficModel.MIN_MESSAGE), WrFlags.SIGNALED), p)) {
                return;
            }
        }
    }

    private boolean post(WorkRequest wr, SendLedger.Posted p) {
        try {
            end.qp().postSend(wr);
            return true;
        } catch (RuntimeException e) {
            ledger.unpost(p);
            end.threw("postSend", e, " posting " + p + " (the application counts " + ledger.outstanding() + " outstanding of send depth "
                    + end.qp().config().sendDepth() + ")");
            return false;
        }
    }

    /** Reads the credit word the peer writes: how many of this stream's messages it consumed. */
    private void readCredit() {
        MemorySegment c = end.credit().segment();
        long value = c.get(LONG, 0);
        long check = c.get(LONG, 8);
        if (check != ~value) {
            return; // torn by a Write in progress: read again next step
        }
        if (value < peerConsumed) {
            if (!creditRegressed) {
                creditRegressed = true;
                findings.add(Check.WRITE_ORDER, end.name() + ": the peer's credit word went back from " + peerConsumed + " to " + value
                        + " (an older Write to the same place was placed after a newer one)");
            }
            return;
        }
        peerConsumed = value;
    }

    /** Checks one send-queue completion (its wrId carries this end's send tag). */
    void onCompletion(WorkCompletion wc) {
        if (wc.qpNumber() != end.qp().qpNumber()) {
            findings.add(Check.COMPLETION, end.name() + ": send completion " + wc + " names QP " + wc.qpNumber() + ", the QP is "
                    + end.qp().qpNumber());
        }
        ledger.complete(wc.wrId() & ~EndPoint.TAG_MASK, wc.status(), wc.opcode(), wc.byteLength(), this);
    }

    @Override
    public void resolved(SendLedger.Posted p, SendLedger.Outcome outcome, long byteLength) {
        if (p.op() == SendLedger.Op.READ) {
            readsOutstanding--;
            if (outcome == SendLedger.Outcome.SUCCEEDED) {
                checkRead(p);
            }
        }
        if (p.op() == SendLedger.Op.SEND && p.message() >= 0 && outcome == SendLedger.Outcome.SUCCEEDED && p.message() > out.acked) {
            out.acked = p.message();
        }
        if (outcome == SendLedger.Outcome.FAILED) {
            end.ended("a send completion in error");
        }
    }

    private void checkRead(SendLedger.Posted p) {
        byte[] got = end.readSink().segment().asSlice((long) p.slot() * EndPoint.MAX_READ, p.length()).toArray(ValueLayout.JAVA_BYTE);
        byte[] known = model.known(end.connection(), Nodes.other(end.node()));
        byte[] want = java.util.Arrays.copyOfRange(known, (int) p.remote(), (int) p.remote() + p.length());
        int d = StreamCheck.firstDifference(got, want);
        if (d >= 0) {
            findings.add(Check.READ, end.name() + ": Read " + p + " of the peer's bytes " + p.remote() + ".." + (p.remote() + p.length())
                    + " returned byte " + (got[d] & 0xFF) + " at " + d + ", the peer holds " + (want[d] & 0xFF));
        }
    }

    /** True when every message this end will send is sent and every request it posted is resolved. */
    boolean drained() {
        return stopped && out.finalCount >= 0 && nextMessage >= out.finalCount && ledger.outstanding() == 0;
    }

    /** True when no signalled request waits for its completion (an ended QP flushes them). */
    boolean flushed() {
        return !ledger.signalledOutstanding();
    }

    StreamState outStream() {
        return out;
    }

    SendLedger ledger() {
        return ledger;
    }

    String describe() {
        return "next msg " + nextMessage + ", " + ledger.outstanding() + " outstanding (head " + ledger.head() + "), peer consumed "
                + peerConsumed + " of credits " + peer.receiveCredits() + ", reads outstanding " + readsOutstanding;
    }
}

package dev.tandem.iwarp.wire;

import dev.tandem.iwarp.IwarpConfig;
import dev.tandem.iwarp.IwarpDevice;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One Tandem QP whose transmitter is watched byte by byte: a Tandem adapter (with a small MULPDU,
 * so that messages of a few hundred bytes span several FPDUs) accepts the MPA Request of a raw
 * initiator ({@link RawPeer}) onto a fresh QP, and the raw side reads every FPDU the QP sends and
 * answers by hand (Read Responses, Read Requests of its own). The raw peer's IRD and ORD in its
 * Request set the QP's ORD and IRD (RFC 6581: the responder's ORD is at most the initiator's IRD).
 */
final class TransmitWire implements AutoCloseable {
    static final Duration WAIT = RawPeer.WAIT;
    static final int REGION_LENGTH = 64 * 1024;

    final boolean crc;
    final int maxUlpdu;
    final Arena arena = Arena.ofShared();
    final IwarpDevice device;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    /** LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ and MW_BIND: source of Sends and Writes, sink of Reads, target of the peer's Reads. */
    final MemoryRegion region;
    final QueuePair qp;
    final RawPeer peer;
    final RawPeer.Reply reply;
    /** Every async event polled so far. */
    final List<AsyncEvent> events = new ArrayList<>();
    /** Next MSN the raw peer uses on its queue 1 (its own Read Requests). */
    private int peerReadMsn = 1;

    /**
     * @param tandemIp  the Tandem adapter's address
     * @param rawIp     the raw initiator's address
     * @param crc       CRC on both sides (the raw Request asks for it exactly when {@code crc})
     * @param maxUlpdu  the adapter's MULPDU
     * @param peerIrd   IRD the raw peer offers: the QP's ORD
     * @param peerOrd   ORD the raw peer offers: the QP's IRD
     * @param qpConfig  changes to {@link QueuePairConfig#of} for the QP
     */
    TransmitWire(String tandemIp, String rawIp, boolean crc, int maxUlpdu, int peerIrd, int peerOrd, UnaryOperator<QueuePairConfig> qpConfig) {
        this.crc = crc;
        this.maxUlpdu = maxUlpdu;
        IwarpDevice d = IwarpDevice.open(IwarpConfig.of(tandemIp).withCrc(crc).withMaxUlpdu(maxUlpdu));
        ProtectionDomain p = null;
        CompletionQueue c = null;
        MemoryRegion r = null;
        QueuePair q = null;
        RawPeer raw = null;
        RawPeer.Reply rep;
        try {
            p = d.allocateProtectionDomain();
            c = d.createCompletionQueue(256);
            r = p.registerMemory(arena.allocate(REGION_LENGTH, 64), Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.MW_BIND);
            q = p.createQueuePair(qpConfig.apply(QueuePairConfig.of(c)));
            try (Listener l = d.listen(new InetSocketAddress(tandemIp, 0), 1)) {
                raw = RawPeer.connect(rawIp, l.localAddress());
                raw.send(FpduBuilder.request(crc, peerIrd, peerOrd, new byte[0]).bytes());
                ConnectionRequest request = l.accept(WAIT);
                assertThat(request).as("the raw peer's connection request within " + WAIT).isNotNull();
                request.accept(q, new byte[0]);
                rep = raw.readReply();
            }
            assertThat(rep.reject()).as(rep.toString()).isFalse();
            assertThat(rep.crc()).as("CRC in the Reply: " + rep).isEqualTo(crc);
        } catch (RuntimeException | Error e) {
            closeAll(raw, q, r, c, p, d);
            arena.close();
            throw e;
        }
        device = d;
        pd = p;
        cq = c;
        region = r;
        qp = q;
        peer = raw;
        reply = rep;
    }

    /** Payload bytes in one untagged FPDU (Send, Send with Invalidate). */
    int maxUntaggedPayload() {
        return maxUlpdu - FpduDescriptor.UNTAGGED_HEADER_LENGTH;
    }

    /** Payload bytes in one tagged FPDU (RDMA Write, Read Response). */
    int maxTaggedPayload() {
        return maxUlpdu - FpduDescriptor.TAGGED_HEADER_LENGTH;
    }

    MemorySegment mem() {
        return region.segment();
    }

    /** Fills {@code length} bytes at {@code offset} of the region with {@code seed + i}. */
    void fill(long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            mem().set(ValueLayout.JAVA_BYTE, offset + i, (byte) (seed + i));
        }
    }

    byte[] bytes(long offset, int length) {
        return mem().asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    /** One FPDU as it came off the wire, and its bytes. */
    record Frame(Fpdu fpdu, byte[] bytes) {
        byte[] payload() {
            return Arrays.copyOfRange(bytes, fpdu.payloadOffset(), fpdu.payloadOffset() + fpdu.payloadLength());
        }

        @Override
        public String toString() {
            return fpdu.describe();
        }
    }

    /**
     * Reads the next FPDU: its CRC must verify (when CRC is in use) or be zero, and its pad must be
     * zero bytes; the ULPDU never exceeds the MULPDU.
     */
    Frame next(String what) {
        byte[] b = peer.readFpdu(what);
        Fpdu f = FpduDecoder.decodeFpdu(b, 0, b.length, crc ? FpduDecoder.CrcMode.VERIFY : FpduDecoder.CrcMode.NOT_USED);
        String d = what + ": " + f.describe() + " " + HexFormat.of().formatHex(b);
        assertThat(f.length()).as(d).isEqualTo(b.length);
        assertThat(f.ulpduLength()).as("ULPDU within the MULPDU of " + maxUlpdu + ": " + d).isLessThanOrEqualTo(maxUlpdu);
        if (!crc) {
            assertThat(f.crc()).as("CRC field without CRC: " + d).isZero();
        }
        for (int i = 2 + f.ulpduLength(); i < b.length - 4; i++) {
            assertThat(b[i]).as("pad byte %d of %s", i, d).isZero();
        }
        return new Frame(f, b);
    }

    /** Reads the FPDUs of one whole message: up to and including the first with the L bit. */
    List<Frame> message(String what) {
        List<Frame> frames = new ArrayList<>();
        while (true) {
            Frame f = next(what + ", FPDU " + frames.size());
            frames.add(f);
            if (f.fpdu().last()) {
                return frames;
            }
            assertThat(frames.size()).as("FPDUs of " + what + " without an L bit: " + frames).isLessThan(10_000);
        }
    }

    /** The raw peer asks the QP for {@code size} bytes of its region at {@code offset} (a Read Request on queue 1). */
    void peerReads(int sinkStag, long sinkTo, int size, long offset) {
        peer.send(FpduBuilder.fpdus(crc).readRequest(peerReadMsn++, sinkStag, sinkTo, size, region.rkey(), offset).bytes());
    }

    /** The raw peer answers a Read Request with one Read Response FPDU carrying {@code payload}. */
    void peerResponds(Fpdu.ReadRequest request, byte[] payload) {
        assertThat(payload.length).as("a Read Response of this helper fits one FPDU").isLessThanOrEqualTo(maxTaggedPayload());
        peer.send(FpduBuilder.fpdus(crc).frame(FpduBuilder.tagged(0xC1, 0x42, request.sinkStag(), request.sinkTo(), payload)).bytes());
    }

    /** The raw peer sends a Send with {@code payload} as message {@code msn} of its queue 0. */
    void peerSends(int msn, byte[] payload) {
        peer.send(FpduBuilder.fpdus(crc).send(msn, payload).bytes());
    }

    /** The next completion on the QP's CQ within {@link #WAIT}. */
    WorkCompletion completion(String what) {
        return Responder.awaitCompletion(cq, what);
    }

    /** Fails if a completion is queued right now. */
    void assertNoCompletion(String why) {
        WorkCompletion[] wc = WorkCompletion.array(1);
        assertThat(cq.poll(wc)).as("completions queued: " + why + (wc[0] != null ? " " + wc[0] : "")).isZero();
    }

    /** The first event of {@code type} about the QP within {@link #WAIT}; every event polled meanwhile is kept in {@link #events}. */
    AsyncEvent awaitEvent(AsyncEventType type, String what) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        int from = events.size();
        while (true) {
            long left = deadline - System.nanoTime();
            AsyncEvent e = left > 0 ? device.pollAsyncEvent(Duration.ofNanos(left)) : null;
            if (e == null) {
                throw new AssertionError("no " + type + " for " + what + " within " + WAIT + "; events seen: " + events.subList(from, events.size()));
            }
            events.add(e);
            if (e.resource() == qp && e.type() == type) {
                return e;
            }
        }
    }

    /** Polls the events queued right now into {@link #events} and returns the types of those about the QP. */
    List<AsyncEventType> eventTypesSoFar() {
        AsyncEvent e;
        while ((e = device.pollAsyncEvent(Duration.ZERO)) != null) {
            events.add(e);
        }
        return events.stream().filter(x -> x.resource() == qp).map(AsyncEvent::type).toList();
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed + i);
        }
        return b;
    }

    static int u32(byte[] b, int at) {
        return ByteBuffer.wrap(b, at, 4).getInt();
    }

    @Override
    public void close() {
        closeAll(peer, qp, region, cq, pd, device);
        arena.close();
    }

    private static void closeAll(AutoCloseable... all) {
        RuntimeException first = null;
        for (AutoCloseable a : all) {
            if (a == null) {
                continue;
            }
            try {
                a.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            } catch (Exception e) {
                if (first == null) {
                    first = new RuntimeException(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}

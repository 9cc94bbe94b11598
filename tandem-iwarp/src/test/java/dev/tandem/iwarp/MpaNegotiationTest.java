package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.EnhancedParameters;
import dev.tandem.iwarp.wire.Fpdu;
import dev.tandem.iwarp.wire.FpduDecoder;
import dev.tandem.iwarp.wire.MpaException;
import dev.tandem.iwarp.wire.MpaFrame;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRejectedException;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The initiator's side of the MPA exchange ({@link Mpa#connect}) against a scripted responder: what
 * the Request says, how IRD/ORD and CRC are settled from the Reply (RFC 5044 section 7.1, RFC 6581
 * section 7), and what a reject or a Reply that asks for markers does to {@code connect}. The
 * responder's Reply to Requests of either revision, read by a raw initiator.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MpaNegotiationTest {
    private static final String CLIENT_IP = "127.0.6.1";
    private static final String SERVER_IP = "127.0.6.2";
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final byte[] PRIVATE = "hello, responder".getBytes(StandardCharsets.US_ASCII);

    private final Deque<AutoCloseable> toClose = new ConcurrentLinkedDeque<>();

    @AfterEach
    void closeAll() throws Exception {
        AutoCloseable c;
        while ((c = toClose.pollFirst()) != null) {
            c.close();
        }
    }

    private <T extends AutoCloseable> T open(T resource) {
        toClose.addFirst(resource);
        return resource;
    }

    /** An initiator adapter with one QP of the given IRD/ORD, ready to connect. */
    private final class Initiator {
        final IwarpDevice device;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final MemoryRegion region;
        final QueuePair qp;

        Initiator(boolean crc, int ird, int ord) {
            device = open(IwarpDevice.open(IwarpConfig.of(CLIENT_IP).withCrc(crc)));
            pd = open(device.allocateProtectionDomain());
            cq = open(device.createCompletionQueue(16));
            Arena arena = open(Arena.ofShared());
            region = open(pd.registerMemory(arena.allocate(4096, 64), Access.LOCAL_WRITE));
            qp = open(pd.createQueuePair(QueuePairConfig.of(cq).withReadDepths(ird, ord)));
        }
    }

    /**
     * A raw TCP responder that accepts one connection, reads the MPA Request, and answers it with
     * what {@code answer} makes of it (nothing when it returns null). The stream stays open for the
     * test to read FPDUs from.
     */
    private final class ScriptedResponder {
        final ServerSocketChannel server;
        final CompletableFuture<MpaFrame> request = new CompletableFuture<>();
        final CompletableFuture<SocketChannel> stream = new CompletableFuture<>();

        ScriptedResponder(Function<MpaFrame, byte[]> answer) throws IOException {
            server = open(ServerSocketChannel.open());
            server.bind(new InetSocketAddress(InetAddress.getByName(SERVER_IP), 0));
            Thread.ofPlatform().daemon().name("test-mpa-responder").start(() -> {
                try {
                    SocketChannel ch = open(server.accept());
                    stream.complete(ch);
                    byte[] header = readFully(ch, MpaFrame.HEADER_LENGTH);
                    byte[] pd = readFully(ch, MpaFrame.checkHeader(header, false));
                    MpaFrame r = MpaFrame.decode(header, pd, false);
                    request.complete(r);
                    byte[] reply = answer.apply(r);
                    if (reply != null) {
                        ch.write(ByteBuffer.wrap(reply));
                    }
                } catch (Throwable t) {
                    request.completeExceptionally(t);
                    stream.completeExceptionally(t);
                }
            });
        }

        InetSocketAddress address() throws IOException {
            return (InetSocketAddress) server.getLocalAddress();
        }

        MpaFrame request() throws Exception {
            return request.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }

        SocketChannel stream() throws Exception {
            return stream.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private static byte[] readFully(SocketChannel ch, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new EOFException("stream ended after " + b.position() + " of " + n + " bytes");
            }
        }
        return b.array();
    }

    /** An RFC 6581 Reply (revision 2, Enhanced) carrying the responder's IRD/ORD and {@code data}. */
    private static byte[] enhancedReply(boolean crc, int ird, int ord, byte[] data) {
        return new MpaFrame(true, false, crc, false, true, 2, EnhancedParameters.of(ird, ord).prepend(data)).encode();
    }

    /** An RFC 5044 Reply (revision 1): no IRD/ORD words. */
    private static byte[] basicReply(boolean crc, byte[] data) {
        return new MpaFrame(true, false, crc, false, false, 1, data).encode();
    }

    // ---------------------------------------------------------------- the Request

    @Test
    void theRequestOffersTheQpsIrdOrdCrcAndThePrivateData() throws Exception {
        for (boolean crc : new boolean[] {true, false}) {
            Initiator a = new Initiator(crc, 7, 5);
            ScriptedResponder b = new ScriptedResponder(r -> enhancedReply(crc, 16, 16, new byte[0]));
            a.qp.connect(b.address(), PRIVATE, WAIT);
            MpaFrame r = b.request();
            assertThat(r.reply()).isFalse();
            assertThat(r.markers()).as("markers are never asked for").isFalse();
            assertThat(r.reject()).isFalse();
            assertThat(r.crc()).as("C flag of an adapter with CRC " + crc).isEqualTo(crc);
            assertThat(r.enhanced()).isTrue();
            assertThat(r.revision()).isEqualTo(2);
            assertThat(r.enhancedParameters()).isEqualTo(EnhancedParameters.of(7, 5));
            assertThat(r.applicationData()).isEqualTo(PRIVATE);
            closeAll();
        }
    }

    @Test
    void privateDataUpToTheLimitIsSentAndOneByteMoreIsRefusedBeforeConnecting() throws Exception {
        Initiator a = new Initiator(true, 4, 4);
        int max = a.device.attributes().maxPrivateData();
        assertThat(max).as("MPA's 512 bytes less the 4 of the IRD/ORD words").isEqualTo(508);
        assertThatThrownBy(() -> a.qp.connect(new InetSocketAddress(SERVER_IP, 9), new byte[max + 1], WAIT))
                .isInstanceOf(InvalidArgumentException.class).hasMessageContaining(String.valueOf(max + 1)).hasMessageContaining(String.valueOf(max));
        assertThat(a.qp.state()).isEqualTo(QpState.INIT);
        byte[] full = new byte[max];
        full[max - 1] = 42;
        ScriptedResponder b = new ScriptedResponder(r -> enhancedReply(true, 4, 4, new byte[0]));
        a.qp.connect(b.address(), full, WAIT);
        assertThat(b.request().applicationData()).isEqualTo(full);
    }

    // ---------------------------------------------------------------- IRD / ORD

    @Test
    void eachSideReadsNoDeeperThanThePeerOffersWithRfc6581() throws Exception {
        Initiator a = new Initiator(true, 8, 6);
        ScriptedResponder b = new ScriptedResponder(r -> enhancedReply(true, 4, 2, "reply".getBytes(StandardCharsets.US_ASCII)));
        byte[] answer = a.qp.connect(b.address(), PRIVATE, WAIT);
        assertThat(answer).as("the peer's private data without the IRD/ORD words").isEqualTo("reply".getBytes(StandardCharsets.US_ASCII));
        assertThat(a.qp.ord()).as("ORD: our 6 bounded by the peer's IRD 4").isEqualTo(4);
        assertThat(a.qp.ird()).as("IRD: our 8 bounded by the peer's ORD 2").isEqualTo(2);
        assertThat(a.qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void aPeerThatOffersMoreThanWeAskLeavesOurDepths() throws Exception {
        Initiator a = new Initiator(true, 3, 2);
        ScriptedResponder b = new ScriptedResponder(r -> enhancedReply(true, 100, 90, new byte[0]));
        a.qp.connect(b.address(), PRIVATE, WAIT);
        assertThat(a.qp.ord()).isEqualTo(2);
        assertThat(a.qp.ird()).isEqualTo(3);
    }

    @Test
    void aRevisionOnePeerGetsOneOutstandingReadAtMost() throws Exception {
        Initiator a = new Initiator(true, 8, 6);
        ScriptedResponder b = new ScriptedResponder(r -> basicReply(true, "v1".getBytes(StandardCharsets.US_ASCII)));
        byte[] answer = a.qp.connect(b.address(), PRIVATE, WAIT);
        assertThat(answer).as("a revision 1 Reply's private data is all the application's").isEqualTo("v1".getBytes(StandardCharsets.US_ASCII));
        assertThat(a.qp.ord()).as("RFC 5044 has no ORD: one Read at a time").isEqualTo(1);
        assertThat(a.qp.ird()).as("our IRD stands").isEqualTo(8);
    }

    @Test
    void aRevisionOnePeerDoesNotRaiseAnOrdOfZero() throws Exception {
        Initiator a = new Initiator(true, 2, 0);
        ScriptedResponder b = new ScriptedResponder(r -> basicReply(true, new byte[0]));
        a.qp.connect(b.address(), PRIVATE, WAIT);
        assertThat(a.qp.ord()).isZero();
    }

    // ---------------------------------------------------------------- CRC

    @Test
    void crcIsUsedWhenEitherSideAsksForIt() throws Exception {
        assertThat(crcOnTheWire(true, true)).isTrue();
        assertThat(crcOnTheWire(true, false)).as("we asked, the peer did not").isTrue();
        assertThat(crcOnTheWire(false, true)).as("the peer asked, we did not").isTrue();
        assertThat(crcOnTheWire(false, false)).isFalse();
    }

    /** Connects with CRC {@code ours} against a Reply with C = {@code theirs}, sends, and says whether the FPDU carried a valid CRC. */
    private boolean crcOnTheWire(boolean ours, boolean theirs) throws Exception {
        try {
            Initiator a = new Initiator(ours, 4, 4);
            ScriptedResponder b = new ScriptedResponder(r -> enhancedReply(theirs, 4, 4, new byte[0]));
            a.qp.connect(b.address(), PRIVATE, WAIT);
            a.region.segment().fill((byte) 0x5A);
            a.qp.postSend(new WorkRequest.Send(1, new Sge(a.region, 0, 100), WrFlags.SIGNALED));
            SocketChannel ch = b.stream();
            byte[] length = readFully(ch, 2);
            int ulpdu = (length[0] & 0xFF) << 8 | (length[1] & 0xFF);
            int total = 2 + ulpdu + ((4 - ((2 + ulpdu) & 3)) & 3) + 4;
            byte[] fpdu = new byte[total];
            System.arraycopy(length, 0, fpdu, 0, 2);
            System.arraycopy(readFully(ch, total - 2), 0, fpdu, 2, total - 2);
            Fpdu f = FpduDecoder.decodeFpdu(fpdu, 0, fpdu.length, FpduDecoder.CrcMode.REPORT);
            assertThat(f.payloadLength()).isEqualTo(100);
            if (f.crcStatus() == Fpdu.CrcStatus.INVALID) {
                assertThat(f.crc()).as("without CRC the field is zero").isZero();
                return false;
            }
            return true;
        } finally {
            closeAll();
        }
    }

    @Test
    void aConnectIsTracedAtLevelRareWithItsQpAndPeer() throws Exception {
        Initiator a = new Initiator(true, 4, 4);   // the process's RAS file exists once an adapter is open
        dev.tandem.ras.TraceComponent cm = dev.tandem.ras.ProcessRas.current().trace().component("iwarp.cm");
        int before = cm.level();
        cm.setLevel(dev.tandem.ras.TraceLevel.RARE);
        try {
            ScriptedResponder b = new ScriptedResponder(r -> enhancedReply(true, 4, 4, new byte[0]));
            a.qp.connect(b.address(), PRIVATE, WAIT);
            assertThat(dev.tandem.ras.ProcessRas.current().trace().records())
                    .filteredOn(t -> t.component().equals("iwarp.cm") && t.event().equals("connect") && t.a() == a.qp.qpNumber())
                    .singleElement()
                    .satisfies(t -> {
                        assertThat(t.b()).as("the peer's port").isEqualTo(b.address().getPort());
                        assertThat(t.text()).as("the peer's address").isEqualTo(SERVER_IP);
                    });
        } finally {
            cm.setLevel(before);
        }
    }

    // ---------------------------------------------------------------- refusals

    @Test
    void aRejectIsConnectionRejectedWithThePeersPrivateDataAndIsCounted() throws Exception {
        Initiator a = new Initiator(true, 4, 4);
        byte[] why = "go away".getBytes(StandardCharsets.US_ASCII);
        ScriptedResponder b = new ScriptedResponder(r ->
                new MpaFrame(true, false, true, true, true, 2, EnhancedParameters.of(0, 0).prepend(why)).encode());
        assertThatThrownBy(() -> a.qp.connect(b.address(), PRIVATE, WAIT))
                .isInstanceOfSatisfying(ConnectionRejectedException.class, e -> assertThat(e.privateData()).isEqualTo(why))
                .hasMessageContaining("rejected");
        assertThat(a.device.ras().connectsRejected.get()).isEqualTo(1);
        assertThat(a.device.ras().connectsEstablished.get()).isZero();
        assertThat(a.device.ras().connectAttempts.get()).isEqualTo(1);
        assertThat(a.qp.state()).as("a rejected QP stays unconnected").isIn(QpState.INIT, QpState.RESET);
        assertClosedByInitiator(b.stream());
    }

    @Test
    void aReplyThatAsksForMarkersIsRefusedAndTheStreamClosed() throws Exception {
        Initiator a = new Initiator(true, 4, 4);
        ScriptedResponder b = new ScriptedResponder(r ->
                new MpaFrame(true, true, true, false, true, 2, EnhancedParameters.of(4, 4).prepend(new byte[0])).encode());
        assertThatThrownBy(() -> a.qp.connect(b.address(), PRIVATE, WAIT))
                .isInstanceOf(ConnectionException.class).hasMessageContaining("markers").hasCauseInstanceOf(MpaException.class);
        assertThat(a.device.ras().connectsEstablished.get()).isZero();
        assertThat(a.device.ras().connectsRejected.get()).as("not a reject: our refusal").isZero();
        assertThat(a.qp.state()).isIn(QpState.INIT, QpState.RESET);
        assertClosedByInitiator(b.stream());
    }

    @Test
    void anEstablishedConnectIsCountedOnce() throws Exception {
        Initiator a = new Initiator(true, 4, 4);
        ScriptedResponder b = new ScriptedResponder(r -> enhancedReply(true, 4, 4, new byte[0]));
        a.qp.connect(b.address(), PRIVATE, WAIT);
        assertThat(a.device.ras().connectAttempts.get()).isEqualTo(1);
        assertThat(a.device.ras().connectsEstablished.get()).isEqualTo(1);
        assertThat(a.device.ras().connectsRejected.get()).isZero();
        assertThat(a.device.ras().connectTimeouts.get()).isZero();
    }

    // ---------------------------------------------------------------- the responder's Reply

    /**
     * A raw initiator sends {@code request} to a Tandem listener whose adapter has CRC {@code crc};
     * the application accepts with {@code acceptData}. Returns the Reply the raw side read.
     */
    private MpaFrame replyTo(boolean crc, MpaFrame request, byte[] acceptData) throws Exception {
        IwarpDevice server = open(IwarpDevice.open(IwarpConfig.of(SERVER_IP).withCrc(crc)));
        ProtectionDomain pd = open(server.allocateProtectionDomain());
        CompletionQueue cq = open(server.createCompletionQueue(16));
        QueuePair qp = open(pd.createQueuePair(QueuePairConfig.of(cq).withReadDepths(6, 5)));
        Listener listener = open(server.listen(new InetSocketAddress(SERVER_IP, 0), 4));
        CompletableFuture<ConnectionRequest> accepted = CompletableFuture.supplyAsync(() -> {
            ConnectionRequest r = listener.accept(WAIT);
            r.accept(qp, acceptData);
            return r;
        });
        SocketChannel ch = open(SocketChannel.open());
        ch.bind(new InetSocketAddress(CLIENT_IP, 0));
        ch.connect(listener.localAddress());
        ch.write(ByteBuffer.wrap(request.encode()));
        byte[] header = readFully(ch, MpaFrame.HEADER_LENGTH);
        MpaFrame reply = MpaFrame.decode(header, readFully(ch, MpaFrame.checkHeader(header, true)), true);
        ConnectionRequest r = accepted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(r.privateData()).as("the application sees the Request's own private data").isEqualTo(request.applicationData());
        assertThat(reply.reject()).isFalse();
        assertThat(reply.markers()).isFalse();
        assertThat(reply.applicationData()).isEqualTo(acceptData);
        return reply;
    }

    @Test
    void aRevisionOneRequestGetsARevisionOneReplyWithoutIrdOrdWords() throws Exception {
        byte[] hello = "rev 1 hello".getBytes(StandardCharsets.US_ASCII);
        MpaFrame reply = replyTo(true, new MpaFrame(false, false, false, false, false, 1, hello), "welcome".getBytes(StandardCharsets.US_ASCII));
        assertThat(reply.revision()).as("a revision 1 initiator cannot parse RFC 6581 words").isEqualTo(1);
        assertThat(reply.enhanced()).isFalse();
        assertThat(reply.privateData()).as("all of it the application's").isEqualTo("welcome".getBytes(StandardCharsets.US_ASCII));
        assertThat(reply.crc()).as("our adapter wants CRC").isTrue();
    }

    @Test
    void theRevisionOneReplyUsesCrcWhenEitherSideAsks() throws Exception {
        assertThat(replyTo(false, new MpaFrame(false, false, true, false, false, 1, new byte[0]), new byte[0]).crc())
                .as("the initiator asked for CRC").isTrue();
        closeAll();
        assertThat(replyTo(false, new MpaFrame(false, false, false, false, false, 1, new byte[0]), new byte[0]).crc())
                .as("neither side asked").isFalse();
    }

    @Test
    void theEnhancedReplyOffersNoMoreThanTheInitiatorCanUse() throws Exception {
        MpaFrame request = new MpaFrame(false, false, true, false, true, 2, EnhancedParameters.of(3, 9).prepend(PRIVATE));
        MpaFrame reply = replyTo(true, request, new byte[0]);
        assertThat(reply.revision()).isEqualTo(2);
        assertThat(reply.enhancedParameters()).as("our IRD 6 bounded by the peer's ORD 9, our ORD 5 by the peer's IRD 3")
                .isEqualTo(EnhancedParameters.of(6, 3));
    }

    /** The responder's end of the stream sees end-of-stream (or a reset): the initiator closed its socket. */
    private static void assertClosedByInitiator(SocketChannel ch) throws IOException {
        ch.socket().setSoTimeout((int) WAIT.toMillis());
        try {
            int n = ch.socket().getInputStream().read();
            assertThat(n).as("the initiator closed the stream").isEqualTo(-1);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the initiator left the refused stream open", e);
        } catch (IOException reset) {
            // connection reset: closed too
        }
    }
}

package dev.tandem.iwarp.wire;

import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tandem as the responder to Linux siw, replayed from the captures in {@code src/test/resources/siw}
 * (see the README there): the MPA Request at the start of every {@code *-client.bin} goes to a Tandem
 * listener over a raw socket, and the Reply Tandem sends must be one siw accepts (siw_proc_mpareply,
 * RFC 5044 section 7.1, RFC 6581). Then the rest of siw's ib_send_lat stream (100 Sends of 64 bytes)
 * is fed in and must be placed exactly. Requests Tandem must refuse (markers) or drop (bad key,
 * revision 3, oversized PD_Length) are checked too, with the listener serving the next valid one.
 */
@Timeout(60)
class SiwInteropTest {
    private static final String SERVER_IP = "127.0.1.24";
    private static final String RAW_IP = "127.0.1.25";

    static byte[] load(String name) {
        try (InputStream in = SiwInteropTest.class.getResourceAsStream("/siw/" + name)) {
            assertThat(in).as("classpath resource /siw/" + name).isNotNull();
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The MPA Request that opens a capture: the 20-byte header and PD_Length bytes of private data. */
    static byte[] mpaRequest(byte[] stream) {
        int pdLength = (stream[18] & 0xFF) << 8 | (stream[19] & 0xFF);
        return Arrays.copyOf(stream, 20 + pdLength);
    }

    private static int u16(byte[] b, int i) {
        return (b[i] & 0xFF) << 8 | (b[i + 1] & 0xFF);
    }

    static Stream<Arguments> requests() {
        List<Arguments> all = new ArrayList<>();
        for (String variant : List.of("plain", "crc")) {
            for (int s = 0; s <= 6; s++) {
                for (boolean tandemCrc : new boolean[] {true, false}) {
                    all.add(Arguments.of(variant + "-s" + s + "-client.bin", tandemCrc));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} to Tandem crc={1}")
    @MethodSource("requests")
    void replyToSiwRequestIsOneSiwAccepts(String capture, boolean tandemCrc) {
        byte[] request = mpaRequest(load(capture));
        assertThat(new String(request, 0, 16, StandardCharsets.US_ASCII)).isEqualTo("MPA ID Req Frame");
        boolean requestCrc = (request[16] & 0x40) != 0;
        int requestIrd = u16(request, 20) & 0x3FFF;
        int requestOrd = u16(request, 22) & 0x3FFF;

        try (Responder server = new Responder(SERVER_IP, tandemCrc); RawPeer peer = RawPeer.connect(RAW_IP, server.address())) {
            var accepting = server.acceptNext();
            peer.send(request);
            RawPeer.Reply reply = peer.readReply();
            Responder.Accepted a = Responder.await(accepting, "accepting " + capture);
            String r = capture + " -> " + reply;

            // The application saw siw's request: no private data beyond the IRD/ORD words.
            assertThat(a.request().privateData()).isEmpty();
            assertThat(a.request().remoteIrd()).isEqualTo(requestIrd);
            assertThat(a.request().remoteOrd()).isEqualTo(requestOrd);

            assertThat(reply.key()).as(r).isEqualTo("MPA ID Rep Frame");
            assertThat(reply.revision()).as("revision (siw sent 2 with Enhanced and requires both back): " + r).isEqualTo(2);
            assertThat(reply.enhanced()).as("Enhanced flag: " + r).isTrue();
            assertThat(reply.markers()).as("M flag: " + r).isFalse();
            assertThat(reply.reject()).as("R flag: " + r).isFalse();
            assertThat(reply.reservedFlags()).as("reserved flag bits: " + r).isZero();
            assertThat(reply.crc()).as("C flag (CRC if either side asks): " + r).isEqualTo(tandemCrc || requestCrc);
            assertThat(reply.pdLength()).as("PD_Length: " + r).isGreaterThanOrEqualTo(4).isEqualTo(reply.privateData().length);
            assertThat(reply.ord()).as("reply ORD <= request IRD (RFC 6581): " + r).isLessThanOrEqualTo(requestIrd);
            assertThat(reply.ird()).as("reply IRD <= request ORD (RFC 6581): " + r).isLessThanOrEqualTo(requestOrd);
            assertThat(reply.peerToPeer()).as("peer-to-peer bit (siw did not ask): " + r).isFalse();
            assertThat(reply.anyRtr()).as("RTR bits (siw did not ask): " + r).isFalse();

            // The QP runs with what the Reply announced.
            assertThat(a.qp().state()).isEqualTo(QpState.RTS);
            assertThat(a.qp().ird()).as("QP IRD vs reply: " + r).isEqualTo(reply.ird());
            assertThat(a.qp().ord()).as("QP ORD vs reply: " + r).isEqualTo(reply.ord());
        }
    }

    /**
     * The rest of siw's ib_send_lat stream (100 Sends, 64 bytes, MSN 1..100) into an accepted QP
     * with 100 receives posted: every Send lands in its own buffer, byte for byte.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"plain-s6-client.bin", "crc-s6-client.bin"})
    void tandemPlacesSiwSendLatencyTraffic(String capture) {
        boolean crc = capture.startsWith("crc");
        byte[] stream = load(capture);
        byte[] request = mpaRequest(stream);
        List<Fpdu> sends = FpduDecoder.decode(stream, crc).fpdus();
        assertThat(sends).hasSize(100).allSatisfy(f -> {
            assertThat(f.opcode()).isEqualTo(RdmapOpcode.SEND);
            assertThat(f.payloadLength()).isEqualTo(64);
        });

        // Plain captures carry zero CRC fields: only a CRC-off Tandem takes them.
        try (Responder server = new Responder(SERVER_IP, crc); RawPeer peer = RawPeer.connect(RAW_IP, server.address())) {
            var accepting = server.acceptNext();
            peer.send(request);
            RawPeer.Reply reply = peer.readReply();
            assertThat(reply.reject()).as(reply.toString()).isFalse();
            assertThat(reply.crc()).as(reply.toString()).isEqualTo(crc);
            Responder.Accepted a = Responder.await(accepting, "accepting " + capture);
            for (int i = 0; i < 100; i++) {
                a.qp().postReceive(new ReceiveRequest(i, new Sge(a.region(), 64L * i, 64)));
            }
            peer.send(Arrays.copyOfRange(stream, request.length, stream.length));

            MemorySegment mem = a.region().segment();
            for (int i = 0; i < 100; i++) {
                WorkCompletion wc = Responder.awaitCompletion(a.cq(), "receive " + i + " of siw's 100 Sends (" + capture + ")");
                assertThat(wc.status()).as("receive %d: %s", i, wc).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(wc.opcode()).isEqualTo(CompletionOpcode.RECV);
                assertThat(wc.wrId()).as("receives complete in order").isEqualTo(i);
                assertThat(wc.byteLength()).isEqualTo(64);
                Fpdu f = sends.get(i);
                assertThat(mem.asSlice(64L * i, 64).toArray(ValueLayout.JAVA_BYTE)).as("bytes of Send %d (MSN %d)", i, f.msn())
                        .isEqualTo(Arrays.copyOfRange(stream, f.payloadOffset(), f.payloadOffset() + 64));
            }
            assertThat(a.qp().state()).isEqualTo(QpState.RTS);
            assertThat(server.drainEvents()).noneMatch(e -> e.resource() == a.qp() && e.type() != AsyncEventType.COMMUNICATION_ESTABLISHED);
        }
    }

    /**
     * "If either side sets C, both use CRC": siw's plain request (C off) to a CRC-on Tandem makes CRC
     * mandatory, so the zero CRC field of siw's first plain Send is an LLP CRC error, and nothing is
     * delivered.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"plain-s6-client.bin"})
    void zeroCrcOfAPlainCaptureIsACrcErrorWhenTandemAsksForCrc(String capture) {
        byte[] stream = load(capture);
        byte[] request = mpaRequest(stream);
        try (Responder server = new Responder(SERVER_IP, true); RawPeer peer = RawPeer.connect(RAW_IP, server.address())) {
            var accepting = server.acceptNext();
            peer.send(request);
            RawPeer.Reply reply = peer.readReply();
            assertThat(reply.crc()).as(reply.toString()).isTrue();
            Responder.Accepted a = Responder.await(accepting, "accepting " + capture);
            a.qp().postReceive(new ReceiveRequest(5, new Sge(a.region(), 0, 64)));
            Fpdu first = FpduDecoder.decode(stream, false).fpdus().get(0);
            byte[] firstSend = Arrays.copyOfRange(stream, first.offset(), first.end());
            peer.send(firstSend);

            byte[] term = peer.readFpdu("Terminate for a zero CRC");
            LiveEngineMalformedFrameTest.checkTerminate(term, true, TerminateCode.LLP_CRC,
                    Arrays.copyOfRange(firstSend, 2, 2 + first.ulpduLength()), "zero CRC under negotiated CRC");
            assertThat(peer.awaitClose("the Terminate")).isEqualTo(RawPeer.Close.EOF);
            WorkCompletion wc = Responder.awaitCompletion(a.cq(), "the posted receive");
            assertThat(wc.status()).as(wc.toString()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
            assertThat(server.awaitEvent(a.qp(), "the CRC error").type()).isEqualTo(AsyncEventType.QP_FATAL);
            assertThat(a.qp().state()).isEqualTo(QpState.ERROR);
        }
    }

    /** A Request asking for markers gets a Reply with R set (as siw answers), then the stream closes; the next valid Request is accepted. */
    @ParameterizedTest(name = "Tandem crc={0}")
    @ValueSource(booleans = {true, false})
    void markerRequestIsRejectedAndTheListenerServesOn(boolean tandemCrc) {
        byte[] request = mpaRequest(load("plain-s6-client.bin"));
        byte[] markers = request.clone();
        markers[16] |= (byte) 0x80;
        try (Responder server = new Responder(SERVER_IP, tandemCrc)) {
            var accepting = server.acceptNext();
            try (RawPeer peer = RawPeer.connect(RAW_IP, server.address())) {
                peer.send(markers);
                RawPeer.Reply reply = peer.readReply();
                assertThat(reply.key()).as(reply.toString()).isEqualTo("MPA ID Rep Frame");
                assertThat(reply.reject()).as("R flag: " + reply).isTrue();
                assertThat(reply.markers()).as("M flag: " + reply).isFalse();
                assertThat(reply.revision()).as(reply.toString()).isEqualTo(2);
                assertThat(peer.awaitClose("the reject Reply")).isEqualTo(RawPeer.Close.EOF);
            }
            assertNextValidRequestIsAccepted(server, accepting, request);
        }
    }

    static Stream<Arguments> droppedRequests() {
        byte[] valid = mpaRequest(load("plain-s6-client.bin"));
        byte[] badKey = valid.clone();
        badKey[0] = 'X';
        byte[] replyKey = FpduBuilder.mpa(false, "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII), 0x10, 2,
                Arrays.copyOfRange(valid, 20, valid.length)).bytes();
        byte[] revision3 = valid.clone();
        revision3[17] = 3;
        byte[] pdTooLong = Arrays.copyOf(valid, 20);
        pdTooLong[18] = 0x02;
        pdTooLong[19] = 0x01;
        return Stream.of(
                Arguments.of("bad key", badKey),
                Arguments.of("Reply key in a Request", replyKey),
                Arguments.of("revision 3", revision3),
                Arguments.of("PD_Length 513", pdTooLong));
    }

    /** A Request with a bad key or revision is dropped without a Reply (as siw does); the listener accepts the next valid one. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("droppedRequests")
    void malformedRequestIsDroppedAndTheListenerServesOn(String what, byte[] bad) {
        byte[] valid = mpaRequest(load("plain-s6-client.bin"));
        try (Responder server = new Responder(SERVER_IP, true)) {
            var accepting = server.acceptNext();
            try (RawPeer peer = RawPeer.connect(RAW_IP, server.address())) {
                peer.send(bad);
                RawPeer.Close close = peer.awaitClose("a Request with " + what + " (" + HexFormat.of().formatHex(bad) + ")");
                assertThat(close).as("the stream ends without a Reply").isIn(RawPeer.Close.EOF, RawPeer.Close.RESET);
            }
            assertNextValidRequestIsAccepted(server, accepting, valid);
        }
    }

    /** An Enhanced Request too short for the RFC 6581 IRD/ORD words is refused with R set (as siw does), never queued. */
    @Test
    void enhancedRequestWithoutIrdOrdWordsIsRejected() {
        byte[] valid = mpaRequest(load("plain-s6-client.bin"));
        byte[] shortPd = FpduBuilder.mpa(false, "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII), 0x10, 2, new byte[2]).bytes();
        try (Responder server = new Responder(SERVER_IP, true)) {
            var accepting = server.acceptNext();
            try (RawPeer peer = RawPeer.connect(RAW_IP, server.address())) {
                peer.send(shortPd);
                RawPeer.Reply reply = peer.readReply();
                assertThat(reply.reject()).as("Reply to an Enhanced Request with 2 bytes of private data: " + reply).isTrue();
                assertThat(peer.awaitClose("the refused Enhanced Request")).isIn(RawPeer.Close.EOF, RawPeer.Close.RESET);
            }
            assertNextValidRequestIsAccepted(server, accepting, valid);
        }
    }

    /** A fresh raw peer's valid Request is the one the application accepts, and it gets a normal Reply. */
    private static void assertNextValidRequestIsAccepted(Responder server, java.util.concurrent.Future<Responder.Accepted> accepting,
                                                         byte[] valid) {
        try (RawPeer next = RawPeer.connect(RAW_IP, server.address())) {
            next.send(valid);
            RawPeer.Reply reply = next.readReply();
            assertThat(reply.reject()).as(reply.toString()).isFalse();
            Responder.Accepted a = Responder.await(accepting, "accepting the valid Request after the refused one");
            assertThat(a.request().remoteAddress()).as("the request the application got").isEqualTo(next.localAddress());
            assertThat(a.qp().state()).isEqualTo(QpState.RTS);
        }
    }
}

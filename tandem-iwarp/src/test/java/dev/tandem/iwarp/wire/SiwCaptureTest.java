package dev.tandem.iwarp.wire;

import static dev.tandem.iwarp.wire.RdmapOpcode.RDMA_WRITE;
import static dev.tandem.iwarp.wire.RdmapOpcode.READ_REQUEST;
import static dev.tandem.iwarp.wire.RdmapOpcode.READ_RESPONSE;
import static dev.tandem.iwarp.wire.RdmapOpcode.SEND;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Frames every FPDU of the 28 Linux siw captures in {@code src/test/resources/siw} (see the README
 * there) and checks them against the README's table and facts, which come from the recording, not
 * from this decoder.
 */
class SiwCaptureTest {

    /** One row of the README table: IRD/ORD and the RDMAP opcodes each side sent. */
    private record Row(int stream, int ird, int ord, Map<Integer, Integer> client, Map<Integer, Integer> server) {
    }

    private static final List<Row> TABLE = List.of(
            new Row(0, 1, 1, Map.of(SEND, 10, READ_RESPONSE, 5), Map.of(SEND, 10, READ_REQUEST, 5, RDMA_WRITE, 5)),
            new Row(1, 0, 0, Map.of(SEND, 16), Map.of(SEND, 16)),
            new Row(2, 0, 0, Map.of(RDMA_WRITE, 300), Map.of()),
            new Row(3, 0, 0, Map.of(SEND, 11), Map.of(SEND, 11)),
            new Row(4, 128, 128, Map.of(READ_REQUEST, 100), Map.of(READ_RESPONSE, 100)),
            new Row(5, 0, 0, Map.of(SEND, 11), Map.of(SEND, 11)),
            new Row(6, 0, 0, Map.of(SEND, 100), Map.of(SEND, 100)));

    static Stream<Arguments> files() {
        List<Arguments> all = new ArrayList<>();
        for (String variant : List.of("plain", "crc")) {
            for (Row row : TABLE) {
                for (boolean client : new boolean[] {true, false}) {
                    all.add(Arguments.of(name(variant, row.stream(), client), variant.equals("crc"), client, row));
                }
            }
        }
        return all.stream();
    }

    private static String name(String variant, int stream, boolean client) {
        return variant + "-s" + stream + "-" + (client ? "client" : "server") + ".bin";
    }

    private static byte[] load(String name) {
        try (InputStream in = SiwCaptureTest.class.getResourceAsStream("/siw/" + name)) {
            assertThat(in).as("classpath resource /siw/" + name).isNotNull();
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void allTwentyEightCapturesAreCovered() {
        assertThat(files()).hasSize(28);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("files")
    void mpaFrameMatchesTheReadme(String name, boolean crc, boolean client, Row row) {
        byte[] s = load(name);
        MpaFrame mpa = FpduDecoder.decode(s, crc).mpa();

        assertThat(mpa.reply()).as("the connecting side sends the Request").isEqualTo(!client);
        assertThat(mpa.revision()).isEqualTo(2);
        assertThat(mpa.enhanced()).isTrue();
        assertThat(mpa.markers()).isFalse();
        assertThat(mpa.reject()).isFalse();
        assertThat(mpa.crc()).isEqualTo(crc);
        assertThat(mpa.privateData()).as("private data is only the RFC 6581 words").hasSize(4);
        EnhancedParameters p = mpa.enhancedParameters();
        assertThat(p.ird()).isEqualTo(row.ird());
        assertThat(p.ord()).isEqualTo(row.ord());
        assertThat(p.peerToPeer()).isFalse();
        assertThat(p.sendRtr() || p.writeRtr() || p.readRtr()).isFalse();
        // The raw flags byte and revision (RFC 5044 7.1): Enhanced 0x10, plus C 0x40 in crc-*.
        assertThat(s[16] & 0xFF).isEqualTo(crc ? 0x50 : 0x10);
        assertThat(s[17]).isEqualTo((byte) 2);
        // Deriving CRC use from the stream's own frame agrees with the file name for these captures.
        assertThat(FpduDecoder.decode(s).crcMode()).isEqualTo(crc ? FpduDecoder.CrcMode.VERIFY : FpduDecoder.CrcMode.NOT_USED);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("files")
    void everyFpduIsFramedAndCountedExactly(String name, boolean crc, boolean client, Row row) {
        byte[] s = load(name);
        FpduDecoder.Decoded d = FpduDecoder.decode(s, crc);
        List<Fpdu> fpdus = d.fpdus();

        assertThat(d.opcodeCounts()).isEqualTo(client ? row.client() : row.server());

        // Consumed to the last byte, with FPDUs back to back after the 24-byte MPA frame.
        assertThat(d.length()).isEqualTo(s.length);
        int offset = MpaFrame.HEADER_LENGTH + 4;
        for (Fpdu f : fpdus) {
            assertThat(f.offset()).isEqualTo(offset);
            offset += 2 + f.ulpduLength() + (4 - (2 + f.ulpduLength()) % 4) % 4 + 4;
        }
        assertThat(offset).isEqualTo(s.length);

        for (Fpdu f : fpdus) {
            assertThat(f.ddpVersion()).isEqualTo(1);
            assertThat(f.rdmapVersion()).isEqualTo(1);
            assertThat(f.tagged()).isEqualTo(f.opcode() == RDMA_WRITE || f.opcode() == READ_RESPONSE);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("files")
    void crcFieldsVerifyInCrcFilesAndAreZeroInPlainFiles(String name, boolean crc, boolean client, Row row) {
        byte[] s = load(name);
        List<Fpdu> fpdus = FpduDecoder.decode(s, crc).fpdus();
        boolean bigEndianWouldAlsoMatch = true;

        for (Fpdu f : fpdus) {
            int covered = 2 + f.ulpduLength() + f.padLength();
            int crcAt = f.offset() + covered;
            int littleEndian = ByteBuffer.wrap(s, crcAt, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
            int bigEndian = ByteBuffer.wrap(s, crcAt, 4).order(ByteOrder.BIG_ENDIAN).getInt();
            assertThat(f.crc()).isEqualTo(littleEndian);
            if (crc) {
                CRC32C c = new CRC32C();
                c.update(s, f.offset(), covered);
                assertThat(littleEndian).as("CRC32C.getValue() stored little-endian at offset %d", crcAt).isEqualTo((int) c.getValue());
                bigEndianWouldAlsoMatch &= bigEndian == (int) c.getValue();
                assertThat(f.crcStatus()).isEqualTo(Fpdu.CrcStatus.VALID);
            } else {
                assertThat(littleEndian).isZero();
                assertThat(f.crcStatus()).isEqualTo(Fpdu.CrcStatus.NOT_CHECKED);
            }
        }
        if (crc && !fpdus.isEmpty()) {
            assertThat(bigEndianWouldAlsoMatch).as("big-endian order must not verify").isFalse();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("files")
    void untaggedQueuesNumberMessagesFromOneAndOffsetsSegments(String name, boolean crc, boolean client, Row row) {
        List<Fpdu> fpdus = FpduDecoder.decode(load(name), crc).fpdus();
        Map<Integer, Integer> nextMsn = new HashMap<>();
        Map<Integer, Integer> nextMo = new HashMap<>();
        Map<Integer, Long> nextTo = new HashMap<>();

        for (Fpdu f : fpdus) {
            if (f.tagged()) {
                // Later segments of a tagged message continue at the previous segment's end, same STag.
                Long to = nextTo.remove(f.stag());
                if (to != null) {
                    assertThat(f.to()).isEqualTo(to);
                }
                if (!f.last()) {
                    nextTo.put(f.stag(), f.to() + f.payloadLength());
                }
                continue;
            }
            // RFC 5041: MSN per queue starts at 1; MO is the offset within the message.
            int msn = nextMsn.getOrDefault(f.qn(), 1);
            assertThat(f.msn()).as("MSN on queue %d at offset %d", f.qn(), f.offset()).isEqualTo(msn);
            assertThat(f.mo()).isEqualTo(nextMo.getOrDefault(f.qn(), 0));
            if (f.last()) {
                nextMsn.put(f.qn(), msn + 1);
                nextMo.put(f.qn(), 0);
            } else {
                nextMo.put(f.qn(), f.mo() + f.payloadLength());
            }
        }
        assertThat(nextTo).as("no tagged message left unfinished").isEmpty();
    }

    @ParameterizedTest
    @MethodSource("variants")
    void a4096ByteWriteIsThreeTaggedFpdus(boolean crc) {
        String name = name(crc ? "crc" : "plain", 2, true);
        List<Fpdu> fpdus = FpduDecoder.decode(load(name), crc).fpdus();

        assertThat(fpdus).hasSize(300);
        for (int m = 0; m < 100; m++) {
            List<Fpdu> message = fpdus.subList(3 * m, 3 * m + 3);
            assertThat(message).extracting(Fpdu::ulpduLength).containsExactly(1442, 1442, 1254);
            assertThat(message).extracting(Fpdu::last).containsExactly(false, false, true);
            assertThat(message).allSatisfy(f -> {
                assertThat(f.tagged()).isTrue();
                assertThat(f.opcode()).isEqualTo(RDMA_WRITE);
                assertThat(f.stag()).isEqualTo(message.getFirst().stag());
            });
            assertThat(message.stream().mapToInt(Fpdu::payloadLength).sum()).isEqualTo(4096);
        }
        assertThat(FpduDecoder.summary(fpdus)).isEqualTo("RDMA_WRITE 300 FPDUs (100 messages)");
        assertThat(FpduDecoder.decode(load(name(crc ? "crc" : "plain", 2, false)), crc).fpdus()).isEmpty();
    }

    static Stream<Boolean> variants() {
        return Stream.of(false, true);
    }

    /** A Read Response message: the STag and TO of its first segment and its total payload. */
    private record Response(int stag, long to, long length) {
    }

    private static List<Response> readResponses(List<Fpdu> fpdus) {
        List<Response> out = new ArrayList<>();
        Fpdu first = null;
        long length = 0;
        for (Fpdu f : fpdus) {
            if (f.opcode() != READ_RESPONSE) {
                continue;
            }
            if (first == null) {
                first = f;
            }
            length += f.payloadLength();
            if (f.last()) {
                out.add(new Response(first.stag(), first.to(), length));
                first = null;
                length = 0;
            }
        }
        assertThat(first).as("unfinished Read Response").isNull();
        return out;
    }

    @ParameterizedTest
    @MethodSource("variants")
    void readResponsesTargetTheSinkOfTheMatchingReadRequest(boolean crc) {
        String variant = crc ? "crc" : "plain";
        // s0: rping's server reads from the client; s4: ib_read_lat's client reads from the server.
        for (int[] streamAndRequesterIsClient : new int[][] {{0, 0}, {4, 1}}) {
            int stream = streamAndRequesterIsClient[0];
            boolean requesterIsClient = streamAndRequesterIsClient[1] == 1;
            List<Fpdu> requests = FpduDecoder.decode(load(name(variant, stream, requesterIsClient)), crc).fpdus().stream()
                    .filter(f -> f.opcode() == READ_REQUEST).toList();
            List<Response> responses = readResponses(FpduDecoder.decode(load(name(variant, stream, !requesterIsClient)), crc).fpdus());

            assertThat(requests).hasSize(stream == 0 ? 5 : 100);
            assertThat(responses).hasSameSizeAs(requests);
            for (int i = 0; i < requests.size(); i++) {
                Fpdu.ReadRequest rr = requests.get(i).readRequest();
                assertThat(new Response(rr.sinkStag(), rr.sinkTo(), Integer.toUnsignedLong(rr.size())))
                        .as("s%d Read Request %d vs Read Response %d", stream, i, i).isEqualTo(responses.get(i));
            }
            if (stream == 4) {
                // ib_read_lat -s 64 (README: 64 B).
                assertThat(requests).allSatisfy(f -> assertThat(f.readRequest().size()).isEqualTo(64));
            }
        }
    }

    /**
     * rping's client advertises a buffer in each Send as {@code struct rping_rdma_info {be64 buf;
     * be32 rkey; be32 size;}}: odd Sends its source buffer, which the server then reads, even Sends
     * its sink buffer, which the server then writes. This checks the source half of the Read Request
     * layout and the Write's STag/TO against bytes written by rping, not by the decoder.
     */
    @ParameterizedTest
    @MethodSource("variants")
    void rpingReadsAndWritesTheBuffersTheClientAdvertised(boolean crc) {
        String variant = crc ? "crc" : "plain";
        byte[] clientBytes = load(name(variant, 0, true));
        List<Fpdu> sends = FpduDecoder.decode(clientBytes, crc).fpdus().stream().filter(f -> f.opcode() == SEND).toList();
        List<Fpdu> server = FpduDecoder.decode(load(name(variant, 0, false)), crc).fpdus();
        List<Fpdu> requests = server.stream().filter(f -> f.opcode() == READ_REQUEST).toList();
        List<Fpdu> writes = server.stream().filter(f -> f.opcode() == RDMA_WRITE).toList();

        assertThat(sends).hasSize(10);
        for (int i = 0; i < 5; i++) {
            ByteBuffer source = ByteBuffer.wrap(clientBytes, sends.get(2 * i).payloadOffset(), 16);
            ByteBuffer sink = ByteBuffer.wrap(clientBytes, sends.get(2 * i + 1).payloadOffset(), 16);
            long sourceBuf = source.getLong();
            int sourceRkey = source.getInt();
            int sourceSize = source.getInt();
            long sinkBuf = sink.getLong();
            int sinkRkey = sink.getInt();
            int sinkSize = sink.getInt();

            Fpdu.ReadRequest rr = requests.get(i).readRequest();
            assertThat(rr.sourceStag()).isEqualTo(sourceRkey);
            assertThat(rr.sourceTo()).isEqualTo(sourceBuf);
            assertThat(rr.size()).isEqualTo(sourceSize);
            assertThat(writes.get(i).stag()).isEqualTo(sinkRkey);
            assertThat(writes.get(i).to()).isEqualTo(sinkBuf);
            assertThat(writes.get(i).payloadLength()).isEqualTo(sinkSize);
        }
    }
}

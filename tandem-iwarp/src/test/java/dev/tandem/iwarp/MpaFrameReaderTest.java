package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.EnhancedParameters;
import dev.tandem.iwarp.wire.MpaException;
import dev.tandem.iwarp.wire.MpaFrame;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** An MPA frame read as its bytes arrive: piece by piece, checked early, and never a byte beyond it. */
class MpaFrameReaderTest {
    private final Pipe pipe;

    MpaFrameReaderTest() throws IOException {
        pipe = Pipe.open();
        pipe.source().configureBlocking(false);
    }

    @AfterEach
    void close() throws IOException {
        pipe.sink().close();
        pipe.source().close();
    }

    private void send(byte[] b, int from, int to) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(b, from, to - from);
        while (buf.hasRemaining()) {
            pipe.sink().write(buf);
        }
    }

    private static byte[] request(byte[] privateData) {
        return new MpaFrame(false, false, true, false, true, 2, EnhancedParameters.of(4, 8).prepend(privateData)).encode();
    }

    @Test
    void aFrameArrivingInPiecesIsReturnedOnceCompleteAndNothingAfterItIsRead() throws IOException {
        byte[] frame = request("hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        byte[] fpdu = {1, 2, 3, 4};
        MpaFrameReader reader = new MpaFrameReader(false);
        assertThat(reader.read(pipe.source())).as("nothing arrived yet").isNull();
        send(frame, 0, 7);
        assertThat(reader.read(pipe.source())).as("7 bytes of the header").isNull();
        assertThat(reader.received()).isEqualTo(7);
        send(frame, 7, 22);
        assertThat(reader.read(pipe.source())).as("the header and 2 bytes of private data").isNull();
        assertThat(reader.received()).isEqualTo(22);
        send(frame, 22, frame.length);
        send(fpdu, 0, fpdu.length);   // what the peer sends next belongs to the engine, not to the handshake
        MpaFrame f = reader.read(pipe.source());
        assertThat(f).isNotNull();
        assertThat(f.enhancedParameters().ird()).isEqualTo(4);
        assertThat(f.applicationData()).asString(java.nio.charset.StandardCharsets.US_ASCII).isEqualTo("hello");
        assertThat(reader.received()).isEqualTo(frame.length);
        ByteBuffer rest = ByteBuffer.allocate(16);
        assertThat(pipe.source().read(rest)).as("the bytes after the frame are still in the channel").isEqualTo(fpdu.length);
        assertThat(Arrays.copyOf(rest.array(), fpdu.length)).isEqualTo(fpdu);
    }

    @Test
    void aFrameWithoutPrivateDataCompletesWithItsHeader() throws IOException {
        byte[] frame = new MpaFrame(false, false, false, false, false, 1, new byte[0]).encode();
        send(frame, 0, frame.length);
        assertThat(new MpaFrameReader(false).read(pipe.source())).isNotNull();
    }

    @Test
    void aBadHeaderIsRefusedBeforeItsPrivateDataIsRead() throws IOException {
        byte[] frame = request(new byte[100]);
        frame[0] = 'X';
        send(frame, 0, frame.length);
        assertThatThrownBy(() -> new MpaFrameReader(false).read(pipe.source())).isInstanceOf(MpaException.class).hasMessageContaining("MPA key");
        ByteBuffer rest = ByteBuffer.allocate(256);
        assertThat(pipe.source().read(rest)).as("the private data was not read").isEqualTo(frame.length - MpaFrame.HEADER_LENGTH);
    }

    @Test
    void aRequestWhereAReplyIsExpectedIsMalformed() throws IOException {
        byte[] frame = request(new byte[0]);
        send(frame, 0, frame.length);
        assertThatThrownBy(() -> new MpaFrameReader(true).read(pipe.source())).isInstanceOf(MpaException.class)
                .hasMessageContaining("MPA ID Rep Frame");
    }

    @Test
    void anEndOfStreamBeforeTheEndOfTheFrameSaysHowMuchCame() throws IOException {
        byte[] frame = request(new byte[8]);
        send(frame, 0, 26);
        pipe.sink().close();
        MpaFrameReader reader = new MpaFrameReader(false);
        assertThat(reader.read(pipe.source())).as("the 26 bytes that came, not yet the end").isNull();
        assertThatThrownBy(() -> reader.read(pipe.source())).as("the next read, when the selector reports the end")
                .isInstanceOf(EOFException.class)
                .hasMessage("the stream ended after 26 bytes of the MPA Request");
    }
}

package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.MpaException;
import dev.tandem.iwarp.wire.MpaFrame;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * Reads one MPA Request or Reply (RFC 5044 section 7.1) from a non-blocking channel as its bytes
 * arrive, never more than the frame: the fixed 20-byte header first, checked as soon as it is
 * complete (so a bad key, revision or PD_Length ends the handshake before any more is read), then
 * PD_Length bytes of private data.
 */
final class MpaFrameReader {
    private final boolean reply;
    private final ByteBuffer header = ByteBuffer.allocate(MpaFrame.HEADER_LENGTH);
    private ByteBuffer privateData;

    /** @param reply true to read a Reply (the initiator's side), false for a Request (a listener's) */
    MpaFrameReader(boolean reply) {
        this.reply = reply;
    }

    /**
     * Reads what {@code ch} has now.
     *
     * @return the frame once all of it arrived, else null (call again when the channel is readable)
     * @throws MpaException when the header is malformed
     * @throws EOFException when the stream ended before the frame did
     */
    MpaFrame read(ReadableByteChannel ch) throws IOException {
        if (privateData == null) {
            fill(ch, header);
            if (header.hasRemaining()) {
                return null;
            }
            privateData = ByteBuffer.allocate(MpaFrame.checkHeader(header.array(), reply));
        }
        fill(ch, privateData);
        return privateData.hasRemaining() ? null : MpaFrame.decode(header.array(), privateData.array(), reply);
    }

    private void fill(ReadableByteChannel ch, ByteBuffer b) throws IOException {
        if (b.hasRemaining() && ch.read(b) < 0) {
            throw new EOFException("the stream ended after " + received() + " bytes of the MPA " + (reply ? "Reply" : "Request"));
        }
    }

    /** Bytes of the frame received so far. */
    int received() {
        return header.position() + (privateData == null ? 0 : privateData.position());
    }
}

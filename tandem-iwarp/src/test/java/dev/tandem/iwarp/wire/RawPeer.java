package dev.tandem.iwarp.wire;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A hand-driven iWARP peer on a plain {@link SocketChannel}: it writes bytes a test built with
 * {@link FpduBuilder} and reads what the engine answers, parsing the MPA Reply and FPDU framing by
 * hand from the RFC layouts. Every read is bounded by {@link #WAIT}; a read that runs into the bound
 * or an early end of stream fails with a message that says what was expected.
 */
final class RawPeer implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(5);

    /** How the engine ended the stream, as this side saw it. */
    enum Close {
        /** Orderly FIN: read returned -1. */
        EOF,
        /** The engine aborted the stream (RST): read failed with "Connection reset". */
        RESET
    }

    /**
     * An MPA Reply as it came off the wire (RFC 5044 section 7.1, RFC 6581 section 9).
     *
     * @param header      the fixed 20 bytes
     * @param privateData PD_Length bytes that followed
     */
    record Reply(byte[] header, byte[] privateData) {
        String key() {
            return new String(header, 0, 16, StandardCharsets.US_ASCII);
        }

        int flags() {
            return header[16] & 0xFF;
        }

        boolean markers() {
            return (flags() & 0x80) != 0;
        }

        boolean crc() {
            return (flags() & 0x40) != 0;
        }

        boolean reject() {
            return (flags() & 0x20) != 0;
        }

        boolean enhanced() {
            return (flags() & 0x10) != 0;
        }

        int reservedFlags() {
            return flags() & 0x0F;
        }

        int revision() {
            return header[17] & 0xFF;
        }

        int pdLength() {
            return (header[18] & 0xFF) << 8 | (header[19] & 0xFF);
        }

        /** RFC 6581 word 1: {@code A B IRD(14)}. */
        int word1() {
            return (privateData[0] & 0xFF) << 8 | (privateData[1] & 0xFF);
        }

        /** RFC 6581 word 2: {@code C D ORD(14)}. */
        int word2() {
            return (privateData[2] & 0xFF) << 8 | (privateData[3] & 0xFF);
        }

        int ird() {
            return word1() & 0x3FFF;
        }

        int ord() {
            return word2() & 0x3FFF;
        }

        boolean peerToPeer() {
            return (word1() & 0x8000) != 0;
        }

        /** Any of the RTR bits B (zero-length Send), C (zero-length Write), D (zero-length Read). */
        boolean anyRtr() {
            return (word1() & 0x4000) != 0 || (word2() & 0xC000) != 0;
        }

        /** The application's private data after the IRD/ORD words. */
        byte[] applicationData() {
            return Arrays.copyOfRange(privateData, 4, privateData.length);
        }

        @Override
        public String toString() {
            return "Reply[" + HexFormat.of().formatHex(header) + " | " + HexFormat.of().formatHex(privateData) + "]";
        }
    }

    private final SocketChannel channel;
    private final InputStream in;

    private RawPeer(SocketChannel channel) throws IOException {
        this.channel = channel;
        channel.socket().setSoTimeout((int) WAIT.toMillis());
        this.in = channel.socket().getInputStream();
    }

    /** Connects from {@code localIp} (any free port) to {@code remote}, TCP_NODELAY as siw does. */
    static RawPeer connect(String localIp, InetSocketAddress remote) {
        try {
            SocketChannel ch = SocketChannel.open();
            ch.bind(new InetSocketAddress(localIp, 0));
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.socket().connect(remote, (int) WAIT.toMillis());
            return new RawPeer(ch);
        } catch (IOException e) {
            throw new UncheckedIOException("raw peer could not connect from " + localIp + " to " + remote, e);
        }
    }

    InetSocketAddress localAddress() {
        try {
            return (InetSocketAddress) channel.getLocalAddress();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void send(byte[] bytes) {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                channel.write(b);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("raw peer could not send " + bytes.length + " bytes", e);
        }
    }

    /** Half-closes: the engine sees end of stream, this side can still read its answer. */
    void shutdownOutput() {
        try {
            channel.shutdownOutput();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads exactly {@code n} bytes; fails naming {@code what} on timeout, reset or end of stream. */
    byte[] readExactly(int n, String what) {
        byte[] b = new byte[n];
        int got = 0;
        try {
            while (got < n) {
                int r = in.read(b, got, n - got);
                if (r < 0) {
                    throw new AssertionError("stream ended after " + got + " of " + n + " bytes of " + what
                            + (got > 0 ? ": " + HexFormat.of().formatHex(b, 0, got) : ""));
                }
                got += r;
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no " + what + " within " + WAIT + " (" + got + " of " + n + " bytes arrived)", e);
        } catch (IOException e) {
            throw new AssertionError("reading " + what + " failed after " + got + " of " + n + " bytes: " + e, e);
        }
        return b;
    }

    /** Reads the MPA Reply: 20 header bytes, then PD_Length bytes of private data. */
    Reply readReply() {
        byte[] header = readExactly(20, "MPA Reply header");
        int pdLength = (header[18] & 0xFF) << 8 | (header[19] & 0xFF);
        if (pdLength > 512) {
            throw new AssertionError("MPA Reply announces PD_Length " + pdLength + " > 512: " + HexFormat.of().formatHex(header));
        }
        return new Reply(header, readExactly(pdLength, "MPA Reply private data (" + pdLength + " bytes)"));
    }

    /** Reads one whole FPDU (length, ULPDU, pad, CRC) by its ULPDU_LENGTH and returns its bytes. */
    byte[] readFpdu(String what) {
        byte[] length = readExactly(2, what + " ULPDU_LENGTH");
        int ulpdu = (length[0] & 0xFF) << 8 | (length[1] & 0xFF);
        byte[] rest = readExactly(FpduDescriptor.fpduLength(ulpdu) - 2, what + " (ULPDU_LENGTH " + ulpdu + ")");
        byte[] all = new byte[2 + rest.length];
        all[0] = length[0];
        all[1] = length[1];
        System.arraycopy(rest, 0, all, 2, rest.length);
        return all;
    }

    /**
     * Waits for the engine to close the stream with nothing more sent: returns how it closed.
     *
     * @throws AssertionError if bytes arrive instead, or the stream stays open past {@link #WAIT}
     */
    Close awaitClose(String after) {
        byte[] b = new byte[256];
        try {
            int r = in.read(b);
            if (r < 0) {
                return Close.EOF;
            }
            throw new AssertionError("after " + after + " the engine sent " + r + " more bytes instead of closing: "
                    + HexFormat.of().formatHex(b, 0, r));
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the engine did not close the stream within " + WAIT + " after " + after, e);
        } catch (SocketException e) {
            if (String.valueOf(e.getMessage()).toLowerCase().contains("reset")) {
                return Close.RESET;
            }
            throw new AssertionError("reading after " + after + " failed: " + e, e);
        } catch (IOException e) {
            throw new AssertionError("reading after " + after + " failed: " + e, e);
        }
    }

    /** Aborts the connection: linger 0, so closing sends a TCP reset instead of FIN. */
    void reset() {
        try {
            channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // test teardown: nothing more to do
        }
    }
}

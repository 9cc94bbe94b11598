package dev.tandem.tools.perf.tcp;

import dev.tandem.tools.perf.PerfException;
import dev.tandem.tools.perf.Stall;
import dev.tandem.tools.perf.WaitMode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * One plain TCP connection of the baseline, with a direct send buffer and receive buffer as large
 * as the biggest message. In {@link WaitMode#POLL} the channel is non-blocking and every read and
 * write busy-polls it; in {@link WaitMode#EVENT} the channel blocks, as the Tandem run blocks on
 * completion events. TCP_NODELAY is on, as an RNIC sends each message at once.
 */
public final class TcpLink implements AutoCloseable {
    private final SocketChannel channel;
    private final boolean polling;
    private final ByteBuffer sendBuffer;
    private final ByteBuffer receiveBuffer;
    private final Stall stall = new Stall("TCP baseline waiting for the peer");

    TcpLink(SocketChannel channel, WaitMode wait, int bufferBytes) throws IOException {
        this.channel = channel;
        this.polling = wait == WaitMode.POLL;
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        channel.configureBlocking(!polling);
        this.sendBuffer = ByteBuffer.allocateDirect(bufferBytes);
        this.receiveBuffer = ByteBuffer.allocateDirect(bufferBytes);
    }

    /** Connects from {@code local} (so the baseline takes the same path as the adapter) to {@code server}. */
    public static TcpLink connect(InetAddress local, InetSocketAddress server, WaitMode wait, int bufferBytes) {
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open();
            ch.bind(new InetSocketAddress(local, 0));
            ch.configureBlocking(false);
            if (!ch.connect(server)) {
                try (Selector selector = Selector.open()) {
                    ch.register(selector, SelectionKey.OP_CONNECT);
                    if (selector.select(Stall.TIMEOUT.toMillis()) == 0) {
                        throw new PerfException("TCP baseline: could not connect to " + server + " within " + Stall.TIMEOUT.toSeconds() + " s");
                    }
                    ch.finishConnect();
                }
            }
            return new TcpLink(ch, wait, bufferBytes);
        } catch (IOException e) {
            closeQuietly(ch, e);
            throw new PerfException("TCP baseline: cannot connect " + local.getHostAddress() + " -> " + server + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(ch, e);
            throw e;
        }
    }

    /** Sends the first {@code length} bytes of the send buffer. */
    public void write(int length) {
        sendBuffer.clear().limit(length);
        try {
            if (polling) {
                stall.reset();
                while (sendBuffer.hasRemaining()) {
                    if (channel.write(sendBuffer) == 0) {
                        stall.spin();
                    }
                }
            } else {
                while (sendBuffer.hasRemaining()) {
                    channel.write(sendBuffer);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("TCP baseline: write failed", e);
        }
    }

    /** Receives exactly {@code length} bytes (at most the buffer's size) into the receive buffer. */
    public void read(int length) {
        if (!readOrEnd(length)) {
            throw new PerfException("TCP baseline: the peer closed the connection with " + length + " of " + length
                    + " bytes still to come");
        }
    }

    /**
     * Receives exactly {@code length} bytes, or nothing when the peer has finished sending
     * ({@link #finishSending}) before the first of them.
     *
     * @return false when the stream ended at this message boundary
     */
    public boolean readOrEnd(int length) {
        receiveBuffer.clear().limit(length);
        try {
            stall.reset();
            while (receiveBuffer.hasRemaining()) {
                int n = channel.read(receiveBuffer);
                if (n < 0) {
                    if (receiveBuffer.position() == 0) {
                        return false;
                    }
                    throw new PerfException("TCP baseline: the peer closed the connection with "
                            + receiveBuffer.remaining() + " of " + length + " bytes still to come");
                }
                if (n == 0 && polling) {
                    stall.spin();
                }
            }
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException("TCP baseline: read failed", e);
        }
    }

    /** Receives everything until the peer finishes sending ({@link #finishSending}); returns how many bytes. */
    public long readToEnd() {
        long total = 0;
        try {
            stall.reset();
            while (true) {
                receiveBuffer.clear();
                int n = channel.read(receiveBuffer);
                if (n < 0) {
                    return total;
                }
                if (n == 0 && polling) {
                    stall.spin();
                } else if (n > 0) {
                    total += n;
                    stall.reset();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("TCP baseline: read failed", e);
        }
    }

    /** Tells the peer nothing more comes (a half close); this side can still read. */
    public void finishSending() {
        try {
            channel.shutdownOutput();
        } catch (IOException e) {
            throw new UncheckedIOException("TCP baseline: shutting down output failed", e);
        }
    }

    /** Receives exactly {@code total} bytes, in buffer-sized pieces. */
    public void readStream(long total) {
        long left = total;
        int chunk = receiveBuffer.capacity();
        while (left > 0) {
            int n = (int) Math.min(left, chunk);
            read(n);
            left -= n;
        }
    }

    public int bufferBytes() {
        return sendBuffer.capacity();
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException("TCP baseline: close failed", e);
        }
    }

    private static void closeQuietly(SocketChannel ch, Exception into) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                into.addSuppressed(e);
            }
        }
    }
}

package dev.tandem.tools.perf.tcp;

import dev.tandem.tools.perf.PerfException;
import dev.tandem.tools.perf.Stall;
import dev.tandem.tools.perf.WaitMode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The server side's TCP listener for the baseline: a free port on the adapter's address, one
 * connection. Closing it (from any thread, any number of times) ends an accept that waits.
 */
public final class TcpBaselineServer implements AutoCloseable {
    private final ServerSocketChannel server;
    private final int port;
    /** The selector an accept waits in, so that close can wake it; guarded by this. */
    private Selector waiting;
    private boolean closed;

    private TcpBaselineServer(ServerSocketChannel server) {
        this.server = server;
        this.port = server.socket().getLocalPort();
    }

    public static TcpBaselineServer open(InetAddress local) {
        try {
            ServerSocketChannel ch = ServerSocketChannel.open();
            try {
                ch.bind(new InetSocketAddress(local, 0), 1);
                ch.configureBlocking(false);
                return new TcpBaselineServer(ch);
            } catch (IOException e) {
                ch.close();
                throw e;
            }
        } catch (IOException e) {
            throw new PerfException("TCP baseline: cannot listen on " + local.getHostAddress() + ": " + e.getMessage(), e);
        }
    }

    public int port() {
        return port;
    }

    /** Accepts the client's baseline connection, waiting at most {@link Stall#TIMEOUT} or until closed. */
    public TcpLink accept(WaitMode wait, int bufferBytes) {
        try (Selector selector = Selector.open()) {
            synchronized (this) {
                if (closed) {
                    throw closedWhileWaiting();
                }
                waiting = selector;
            }
            int ready;
            try {
                server.register(selector, SelectionKey.OP_ACCEPT);
                ready = selector.select(Stall.TIMEOUT.toMillis());
            } finally {
                synchronized (this) {
                    waiting = null;
                }
            }
            if (isClosed()) {
                throw closedWhileWaiting();
            }
            if (ready == 0) {
                throw new PerfException("TCP baseline: the client did not connect to port " + port() + " within " + Stall.TIMEOUT.toSeconds() + " s");
            }
            SocketChannel ch = server.accept();
            if (ch == null) {
                throw new PerfException("TCP baseline: accept on port " + port() + " found no connection after it was signalled");
            }
            try {
                return new TcpLink(ch, wait, bufferBytes);
            } catch (IOException e) {
                ch.close();
                throw e;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("TCP baseline: accept failed", e);
        }
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    private PerfException closedWhileWaiting() {
        return new PerfException("TCP baseline: the listener on port " + port() + " was closed while waiting for the client (the run was stopped)");
    }

    @Override
    public void close() {
        Selector wake;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            wake = waiting;
        }
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException("TCP baseline: closing the listener failed", e);
        } finally {
            if (wake != null) {
                wake.wakeup();
            }
        }
    }
}

package dev.tandem.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A hostile population against one listener, as a port scanner, a health check or a slowloris
 * attacker makes it: {@code idle} TCP connections that send nothing, and {@code trickling} ones that
 * send a valid MPA Request one byte per second. Each comes from its own loopback source address
 * (127.1.x.y, "many hosts") or all from 127.0.3.1 ("one host"). The attacker is persistent: a
 * connection the listener closes is replaced at once, so the population stays at strength.
 *
 * <p>One named thread ({@code bench-hostile}) drives every connection on one selector; {@link #close}
 * stops it and closes them all.
 */
final class HostileClients implements AutoCloseable {
    /** An Enhanced MPA Request (RFC 5044 / 6581) with IRD = ORD = 1 and no private data beyond the IRD/ORD words. */
    private static final byte[] REQUEST = request();
    private static final long TRICKLE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final InetSocketAddress target;
    private final List<Slot> slots = new ArrayList<>();
    private final Selector selector;
    private final Thread thread;
    private final AtomicInteger connected = new AtomicInteger();
    private final AtomicLong replaced = new AtomicLong();
    private final AtomicLong failedConnects = new AtomicLong();
    private volatile boolean running = true;
    private final ByteBuffer scratch = ByteBuffer.allocate(4096);

    /** One hostile connection, reopened in place whenever the listener closes it. */
    private static final class Slot {
        final InetAddress source;
        final boolean trickling;
        SocketChannel channel;
        boolean connected;
        int sent;

        Slot(InetAddress source, boolean trickling) {
            this.source = source;
            this.trickling = trickling;
        }
    }

    HostileClients(InetSocketAddress target, int idle, int trickling, boolean oneSource) throws IOException {
        this.target = target;
        this.selector = Selector.open();
        for (int i = 0; i < idle + trickling; i++) {
            slots.add(new Slot(oneSource ? address("127.0.3.1") : address("127.1." + (i / 250) + "." + (i % 250 + 1)), i >= idle));
        }
        for (Slot s : slots) {
            open(s);
        }
        thread = Thread.ofPlatform().daemon().name("bench-hostile").start(this::run);
    }

    private static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(ip + " is not an IP address", e);
        }
    }

    private static byte[] request() {
        ByteBuffer b = ByteBuffer.allocate(24);
        b.put("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII));
        b.put((byte) 0x50).put((byte) 2).putShort((short) 4);   // CRC + Enhanced, revision 2, PD_Length 4
        b.putShort((short) 1).putShort((short) 1);               // IRD 1, ORD 1
        return b.array();
    }

    /** Starts a non-blocking connect for {@code s}; a connect that fails at once is retried on the next cycle. */
    private void open(Slot s) {
        s.connected = false;
        s.sent = 0;
        try {
            SocketChannel ch = SocketChannel.open();
            s.channel = ch;
            ch.configureBlocking(false);
            ch.bind(new InetSocketAddress(s.source, 0));
            if (ch.connect(target)) {
                established(s);
                ch.register(selector, SelectionKey.OP_READ, s);
            } else {
                ch.register(selector, SelectionKey.OP_CONNECT, s);
            }
        } catch (IOException e) {
            failedConnects.incrementAndGet();
            closeQuietly(s);
        }
    }

    private void established(Slot s) {
        s.connected = true;
        connected.incrementAndGet();
    }

    private void run() {
        long nextTrickle = System.nanoTime() + TRICKLE_NANOS;
        while (running) {
            try {
                long waitMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(nextTrickle - System.nanoTime()));
                selector.select(key -> ready(key), waitMs);
                for (Slot s : slots) {
                    if (s.channel == null) {
                        open(s);
                    }
                }
                if (System.nanoTime() - nextTrickle >= 0) {
                    nextTrickle += TRICKLE_NANOS;
                    trickle();
                }
            } catch (IOException e) {
                throw new IllegalStateException("hostile clients' selector failed: " + e.getMessage(), e);
            }
        }
    }

    private void ready(SelectionKey key) {
        Slot s = (Slot) key.attachment();
        try {
            if (key.isConnectable()) {
                if (s.channel.finishConnect()) {
                    established(s);
                    key.interestOps(SelectionKey.OP_READ);
                }
            } else if (key.isReadable()) {
                scratch.clear();
                if (s.channel.read(scratch) < 0) {
                    replace(s);
                }
            }
        } catch (IOException e) {
            replace(s);
        }
    }

    /** The listener closed (or refused) a hostile connection: another opens in its place after this selection. */
    private void replace(Slot s) {
        replaced.incrementAndGet();
        closeQuietly(s);
    }

    /** Sends the next byte of the MPA Request on every trickling connection (starting over once it was all sent). */
    private void trickle() {
        for (Slot s : slots) {
            if (!s.trickling || !s.connected || s.channel == null) {
                continue;
            }
            try {
                s.channel.write(ByteBuffer.wrap(REQUEST, s.sent % REQUEST.length, 1));
                s.sent++;
            } catch (IOException e) {
                replace(s);
            }
        }
    }

    private void closeQuietly(Slot s) {
        if (s.connected) {
            connected.decrementAndGet();
            s.connected = false;
        }
        if (s.channel != null) {
            try {
                s.channel.close();
            } catch (IOException ignored) {
                // the listener already dropped it
            }
            s.channel = null;
        }
    }

    /** Waits up to 10 s for {@code t} to end; a thread that does not is a failure of the benchmark. */
    static void awaitStop(Thread t) {
        try {
            if (!t.join(Duration.ofSeconds(10))) {
                throw new IllegalStateException("thread " + t.getName() + " did not stop within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping " + t.getName(), e);
        }
    }

    /** Waits until every hostile connection is established at the TCP level; false when {@code timeout} ran out first. */
    boolean awaitEstablished(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (connected.get() < slots.size()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return true;
    }

    /** Hostile connections established right now. */
    int connected() {
        return connected.get();
    }

    /** Connect attempts that failed at once (each is retried). */
    long failedConnects() {
        return failedConnects.get();
    }

    /** Hostile connections the listener closed so far (each was replaced). */
    long replaced() {
        return replaced.get();
    }

    @Override
    public void close() {
        running = false;
        selector.wakeup();
        awaitStop(thread);
        for (Slot s : slots) {
            closeQuietly(s);
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // every channel is closed already
        }
    }
}

package dev.tandem.bench;

import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * Round trip of an 8-byte message on loopback: a Tandem Send answered by a Send from an echo
 * thread (both sides busy-polling their CQ), against the same ping-pong over busy-polled
 * non-blocking java.nio TCP (the baseline; half the round trip is perftest's send_lat). Sends are
 * signalled: a send-queue slot is free again only once a completion covering it is polled. Each
 * benchmark starts only its own echo thread. Run with {@code -prof gc} for bytes per operation.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SendLatencyBenchmark {

    /** A connected Tandem pair with an echo thread on side B. */
    @State(Scope.Benchmark)
    public static class TandemPair {
        @Param({"false", "true"})
        public boolean crc;

        LoopbackLink link;
        WorkRequest ping;
        ReceiveRequest receiveA;
        final WorkCompletion[] wc = WorkCompletion.array(16);
        private Thread echo;
        private volatile boolean running;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            link = new LoopbackLink(crc, 4096);
            ping = new WorkRequest.Send(1, new Sge(link.mrA, 0, 8), WrFlags.SIGNALED);
            receiveA = new ReceiveRequest(2, new Sge(link.mrA, 1024, 64));
            ReceiveRequest receiveB = new ReceiveRequest(3, new Sge(link.mrB, 1024, 64));
            WorkRequest pong = new WorkRequest.Send(4, new Sge(link.mrB, 0, 8), WrFlags.SIGNALED);
            for (int i = 0; i < 64; i++) {
                link.qpA.postReceive(receiveA);
                link.qpB.postReceive(receiveB);
            }
            running = true;
            echo = Thread.ofPlatform().daemon().name("bench-echo").start(() -> {
                WorkCompletion[] out = WorkCompletion.array(16);
                while (running) {
                    int n = link.cqB.poll(out);
                    for (int i = 0; i < n; i++) {
                        if (out[i].opcode() == CompletionOpcode.RECV) {
                            link.qpB.postReceive(receiveB);
                            link.qpB.postSend(pong);
                        }
                    }
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            running = false;
            echo.join(5000);
            link.close();
        }
    }

    /** A connected non-blocking TCP pair with an echo thread on the server side. */
    @State(Scope.Benchmark)
    public static class TcpPair {
        SocketChannel client;
        private SocketChannel server;
        final ByteBuffer buffer = ByteBuffer.allocateDirect(8);
        private Thread echo;
        private volatile boolean running;

        @Setup(Level.Trial)
        public void setUp() throws IOException {
            try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.1.2", 0))) {
                client = SocketChannel.open(listener.getLocalAddress());
                server = listener.accept();
            }
            for (SocketChannel ch : new SocketChannel[] {client, server}) {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.configureBlocking(false);
            }
            running = true;
            echo = Thread.ofPlatform().daemon().name("bench-tcp-echo").start(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect(8);
                try {
                    while (running) {
                        b.clear();
                        while (b.hasRemaining() && running) {
                            server.read(b);
                        }
                        b.flip();
                        while (b.hasRemaining() && running) {
                            server.write(b);
                        }
                    }
                } catch (IOException e) {
                    running = false;
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            running = false;
            echo.join(5000);
            client.close();
            server.close();
        }
    }

    /** One Tandem Send and the echoed Send back (a full round trip). */
    @Benchmark
    public int tandemSendRoundTrip(TandemPair p) {
        p.link.qpA.postSend(p.ping);
        while (true) {
            int n = p.link.cqA.poll(p.wc);
            for (int i = 0; i < n; i++) {
                if (p.wc[i].opcode() == CompletionOpcode.RECV) {
                    p.link.qpA.postReceive(p.receiveA);
                    return n;
                }
            }
        }
    }

    /** The same ping-pong over busy-polled non-blocking TCP: the baseline. */
    @Benchmark
    public int tcpRoundTrip(TcpPair p) throws IOException {
        ByteBuffer b = p.buffer;
        b.clear();
        while (b.hasRemaining()) {
            p.client.write(b);
        }
        b.clear();
        while (b.hasRemaining()) {
            p.client.read(b);
        }
        return b.position();
    }
}

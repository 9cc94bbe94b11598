package dev.tandem.iwarp;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A QP whose socket refuses a write (the local end of the link is gone: here its output is shut
 * down under it) fails at once from the transmit side: QP_FATAL naming the lost connection, the
 * request flushed, and the next post reports the error. The peer is a bare socket that answers
 * the MPA Request by hand and then stays silent, so that nothing but the refused write can end
 * the connection.
 */
@Timeout(60)
class TransmitFailureTest {
    private static final Duration WAIT = LoopbackPair.WAIT;
    private static final String TANDEM_IP = "127.0.1.136";
    private static final String RAW_IP = "127.0.1.137";

    /** Reads the MPA Request (20 bytes and PD_Length more) and answers with an Enhanced rev 2 Reply, CRC on, IRD/ORD 16. */
    private static SocketChannel acceptAndReply(ServerSocketChannel server) {
        try {
            SocketChannel ch = server.accept();
            ByteBuffer header = ByteBuffer.allocate(20);
            readFully(ch, header);
            readFully(ch, ByteBuffer.allocate(header.getShort(18) & 0xFFFF));
            ByteBuffer reply = ByteBuffer.allocate(24).put("MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII))
                    .put((byte) 0x50).put((byte) 2).putShort((short) 4).putShort((short) 16).putShort((short) 16).flip();
            while (reply.hasRemaining()) {
                ch.write(reply);
            }
            return ch;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void readFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new IOException("the MPA Request ended after " + b.position() + " bytes");
            }
        }
    }

    @Test
    void aWriteTheSocketRefusesFailsTheQpWithQpFatalAndFlushesTheRequest() throws Exception {
        try (IwarpDevice device = IwarpDevice.open(IwarpConfig.of(TANDEM_IP));
             Arena arena = Arena.ofShared();
             ProtectionDomain pd = device.allocateProtectionDomain();
             CompletionQueue cq = device.createCompletionQueue(16);
             MemoryRegion mr = pd.registerMemory(arena.allocate(4096, 64), Access.LOCAL_WRITE);
             QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq));
             ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(RAW_IP, 0))) {
            CompletableFuture<SocketChannel> accepted = CompletableFuture.supplyAsync(() -> acceptAndReply(server));
            qp.connect((InetSocketAddress) server.getLocalAddress(), new byte[0], WAIT);
            try (SocketChannel silent = accepted.get(5, TimeUnit.SECONDS)) {
                assertThat(qp.state()).isEqualTo(QpState.RTS);
                ((IwQueuePair) qp).connection().channel.shutdownOutput();
                qp.postSend(new WorkRequest.Send(1, new Sge(mr, 0, 64), WrFlags.SIGNALED));

                AsyncEvent e;
                long deadline = System.nanoTime() + WAIT.toNanos();
                do {
                    long left = deadline - System.nanoTime();
                    e = left > 0 ? device.pollAsyncEvent(Duration.ofNanos(left)) : null;
                    assertThat(e).as("an error event about the QP within " + WAIT).isNotNull();
                } while (e.resource() != qp || e.type() == AsyncEventType.COMMUNICATION_ESTABLISHED);
                assertThat(e.type()).as("the first event after the refused write: " + e).isEqualTo(AsyncEventType.QP_FATAL);
                assertThat(e.detail()).contains("connection lost");
                assertThat(qp.state()).isEqualTo(QpState.ERROR);
                WorkCompletion wc = LoopbackPair.awaitOne(cq);
                assertThat(wc.wrId()).isEqualTo(1);
                assertThat(wc.status()).as(wc.toString()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
                WorkRequest.Send next = new WorkRequest.Send(2, new Sge(mr, 0, 8), WrFlags.SIGNALED);
                assertThatThrownBy(() -> qp.postSend(next)).isInstanceOf(AsyncErrorException.class).hasMessageContaining("connection lost");
                assertThat(silent.isOpen()).isTrue();
            }
        }
    }
}

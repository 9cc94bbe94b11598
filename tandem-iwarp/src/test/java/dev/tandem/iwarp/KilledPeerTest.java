package dev.tandem.iwarp;

import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Two JVMs: connect, write, read back, SIGKILL the peer; our QP must go to ERROR and flush in bounded time. */
class KilledPeerTest {

    @Test
    @Timeout(60)
    void killedPeerMovesQueuePairToErrorAndFlushes() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process peer = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
                PeerProcess.class.getName(), "127.0.1.3"))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.US_ASCII));
             LoopbackPairSide side = new LoopbackPairSide("127.0.1.4")) {
            String ready = out.readLine();
            assertThat(ready).as("peer process start line").startsWith("READY ");
            int port = Integer.parseInt(ready.substring(6));
            byte[] pd = side.qp.connect(new InetSocketAddress("127.0.1.3", port), new byte[0], Duration.ofSeconds(10));
            assertThat(out.readLine()).isEqualTo("CONNECTED");
            int rkey = ByteBuffer.wrap(pd).getInt();

            for (int i = 0; i < 4096; i++) {
                side.mr.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            }
            side.qp.postSend(new WorkRequest.RdmaWrite(1, new Sge(side.mr, 0, 4096), 0, rkey, WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(side.cq).status()).isEqualTo(CompletionStatus.SUCCESS);
            side.qp.postSend(new WorkRequest.RdmaRead(2, new Sge(side.mr, 8192, 4096), 0, rkey, WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(side.cq).status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(side.mr.segment().asSlice(8192, 4096).mismatch(side.mr.segment().asSlice(0, 4096))).isEqualTo(-1L);

            side.qp.postReceive(new ReceiveRequest(3, new Sge(side.mr, 16384, 64)));
            peer.destroyForcibly();
            assertThat(peer.waitFor(10, TimeUnit.SECONDS)).as("peer process killed").isTrue();

            WorkCompletion flushed = LoopbackPair.awaitOne(side.cq);
            assertThat(flushed.wrId()).isEqualTo(3);
            assertThat(flushed.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
            assertThat(side.qp.state()).isEqualTo(QpState.ERROR);
            AsyncEvent e = LoopbackPair.awaitFailureEvent(side.device, "async event after the peer died");
            assertThat(e.type()).isIn(AsyncEventType.DISCONNECTED, AsyncEventType.QP_FATAL);
        } finally {
            peer.destroyForcibly();
        }
    }

    /** One adapter with a PD, CQ, region and QP. */
    static final class LoopbackPairSide implements AutoCloseable {
        final IwarpDevice device;
        final dev.tandem.verbs.ProtectionDomain pd;
        final dev.tandem.verbs.CompletionQueue cq;
        final dev.tandem.verbs.MemoryRegion mr;
        final dev.tandem.verbs.QueuePair qp;
        private final java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();

        LoopbackPairSide(String ip) {
            device = IwarpDevice.open(IwarpConfig.of(ip));
            pd = device.allocateProtectionDomain();
            cq = device.createCompletionQueue(64);
            mr = pd.registerMemory(arena.allocate(1 << 16, 64), dev.tandem.verbs.Access.LOCAL_WRITE | dev.tandem.verbs.Access.REMOTE_WRITE);
            qp = pd.createQueuePair(dev.tandem.verbs.QueuePairConfig.of(cq));
        }

        @Override
        public void close() {
            qp.close();
            mr.close();
            cq.close();
            pd.close();
            device.close();
            arena.close();
        }
    }
}

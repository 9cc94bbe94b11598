package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.EnhancedParameters;
import dev.tandem.iwarp.wire.FpduDescriptor;
import dev.tandem.iwarp.wire.MpaFrame;
import dev.tandem.iwarp.wire.NodeKeyBlock;
import dev.tandem.provider.NodeKeyTable;
import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRejectedException;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Seed 001, claim 1, on the adapter: node p connected to node c, then restarted (a new node key table
 * under the same name, a new incarnation key). Whatever p's earlier life still sends on its old
 * connection is dropped by c's adapter before a byte is placed, counted and logged, and p's old QP gets
 * a Terminate (RDMAP remote protection error) and goes to ERROR; a set-up replaying the earlier life's
 * key is refused; the rkeys of the earlier life name nothing in the new one; and the new life's
 * connection carries traffic throughout.
 */
@Timeout(60)
class RestartedPeerTest {
    private static final String C_IP = "127.0.9.11";
    private static final String P_IP = "127.0.9.12";
    private static final String P_RESTARTED_IP = "127.0.9.13";
    private static final String RAW_IP = "127.0.9.14";
    private static final int CANARY = 0xC5;
    private static final int SIZE = 4096;
    /** What p's lives send: never a canary byte. */
    private static final int PAYLOAD = 0x77;

    private final Deque<AutoCloseable> toClose = new ArrayDeque<>();

    @AfterEach
    void closeAll() throws Exception {
        while (!toClose.isEmpty()) {
            toClose.pop().close();
        }
    }

    private KeyedNode node(String ip, NodeKeyTable keys) {
        KeyedNode n = new KeyedNode(ip, keys);
        toClose.push(n);
        return n;
    }

    /** Node c listening, node p's first life connected to it, and p restarted and connected too. */
    private final class Restart {
        final NodeKeyTable firstLife = new NodeKeyTable("p");
        final NodeKeyTable secondLife = new NodeKeyTable("p");
        final KeyedNode c = node(C_IP, new NodeKeyTable("c"));
        final KeyedNode p1 = node(P_IP, firstLife);
        final Listener listener = c.listen();
        final MemoryRegion canary = c.region(SIZE, CANARY);
        final MemoryRegion receiveBuffer = c.region(SIZE, CANARY);
        final MemoryRegion cScratch = c.region(SIZE, 0);
        final MemoryRegion p1Data = p1.region(SIZE, PAYLOAD);
        final QueuePair cFromP1 = c.qp();
        final QueuePair p1Qp = p1.qp();
        KeyedNode p2;
        QueuePair cFromP2;
        QueuePair p2Qp;
        MemoryRegion p2Data;

        Restart() throws Exception {
            KeyedNode.connect(p1Qp, new byte[0], listener, cFromP1, new byte[0]);
            // the first life works: a Write into c's scratch region, then a Read of it back. The Read's completion
            // says c has read everything p1 sent so far: a frame still unread when p restarts would be dropped too
            p1Qp.postSend(new WorkRequest.RdmaWrite(1, new Sge(p1Data, 0, 64), 0, cScratch.rkey(), WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(p1.cq).status()).isEqualTo(CompletionStatus.SUCCESS);
            p1Qp.postSend(new WorkRequest.RdmaRead(2, new Sge(p1Data, 1024, 64), 0, cScratch.rkey(), WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(p1.cq).status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(bytes(cScratch, 0, 64)).containsOnly((byte) PAYLOAD);
        }

        /** p restarts: a new key table under the same name, on a new adapter, connects to c. */
        void restart() throws Exception {
            p2 = node(P_RESTARTED_IP, secondLife);
            p2Data = p2.region(SIZE, PAYLOAD);
            cFromP2 = c.qp();
            p2Qp = p2.qp();
            KeyedNode.connect(p2Qp, "second life".getBytes(StandardCharsets.US_ASCII), listener, cFromP2, new byte[0]);
            assertThat(secondLife.incarnation()).isNotEqualTo(firstLife.incarnation());
        }

        /** The new life's connection carries a Send to c and c's RDMA Read of p's region. */
        void newLifeCarriesTraffic() {
            MemoryRegion into = c.region(SIZE, 0);
            cFromP2.postReceive(new ReceiveRequest(21, new Sge(into, 0, SIZE)));
            p2Qp.postSend(new WorkRequest.Send(22, new Sge(p2Data, 0, 1000), WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(p2.cq).status()).isEqualTo(CompletionStatus.SUCCESS);
            WorkCompletion received = LoopbackPair.awaitOne(c.cq);
            assertThat(received.wrId()).isEqualTo(21);
            assertThat(received.status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(bytes(into, 0, 1000)).containsOnly((byte) PAYLOAD);
            MemoryRegion sink = c.region(SIZE, 0);
            cFromP2.postSend(new WorkRequest.RdmaRead(23, new Sge(sink, 0, 500), 0, p2Data.rkey(), WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(c.cq).status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(bytes(sink, 0, 500)).as("an RDMA Read of the new life's region").containsOnly((byte) PAYLOAD);
        }
    }

    private static byte[] bytes(MemoryRegion r, long offset, int length) {
        return r.segment().asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    private static void assertUntouched(MemoryRegion r, String what) {
        assertThat(bytes(r, 0, SIZE)).as(what + ": unchanged byte for byte").containsOnly((byte) CANARY);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"RDMA Write", "Send"})
    void aFrameFromTheEarlierLifeIsDroppedBeforePlacementAndItsSenderTerminated(String what) throws Exception {
        Restart r = new Restart();
        r.cFromP1.postReceive(new ReceiveRequest(11, new Sge(r.receiveBuffer, 0, SIZE)));
        r.restart();
        assertThat(r.c.device.ras().oldIncarnationFramesDropped.get()).as("nothing dropped before p's first life sends").isZero();

        // p's first life does not know it is dead: it goes on posting on its old connection
        WorkRequest late = what.equals("Send") ? new WorkRequest.Send(12, new Sge(r.p1Data, 0, 2000), WrFlags.SIGNALED)
                : new WorkRequest.RdmaWrite(12, new Sge(r.p1Data, 0, 2000), 100, r.canary.rkey(), WrFlags.SIGNALED);
        r.p1Qp.postSend(late);

        WorkCompletion senders = LoopbackPair.awaitOne(r.p1.cq);
        assertThat(senders.wrId()).isEqualTo(12);
        assertThat(senders.status()).as("a Write or Send completes once it left (as on siw); the refusal comes back as a Terminate")
                .isEqualTo(CompletionStatus.SUCCESS);
        LoopbackPair.awaitState(r.p1Qp, QpState.ERROR, "the earlier life's QP after the Terminate");
        assertThat(awaitEvent(r.p1, r.p1Qp).type())
                .as("the Terminate is a remote protection error").isEqualTo(AsyncEventType.QP_ACCESS_ERROR);
        assertThatThrownBy(() -> r.p1Qp.postSend(new WorkRequest.Send(13, new Sge(r.p1Data, 0, 1), WrFlags.SIGNALED)))
                .as("the earlier life's next post learns why").isInstanceOf(AsyncErrorException.class)
                .hasMessageContaining("peer sent Terminate RDMAP_UNSPECIFIED_PROTECTION");
        LoopbackPair.awaitState(r.cFromP1, QpState.ERROR, "c's QP of the earlier life's connection");
        WorkCompletion flushed = LoopbackPair.awaitOne(r.c.cq);
        assertThat(flushed.wrId()).isEqualTo(11);
        assertThat(flushed.status()).as("c's posted receive is flushed, not filled").isEqualTo(CompletionStatus.WR_FLUSH_ERR);
        assertThat(flushed.byteLength()).isZero();
        assertUntouched(r.canary, "the region the Write named");
        assertUntouched(r.receiveBuffer, "the receive buffer the Send would have filled");
        assertThat(awaitEvent(r.c, r.cFromP1).type()).as("c's event for the earlier life's QP").isEqualTo(AsyncEventType.QP_ACCESS_ERROR);

        assertThat(r.c.device.ras().oldIncarnationFramesDropped.get()).isEqualTo(1);
        assertThat(r.c.counter("terminates sent RDMAP_UNSPECIFIED_PROTECTION(layer=0 etype=1 ecode=0xff)")).isEqualTo(1);
        assertThat(r.p1.counter("terminates received RDMAP_UNSPECIFIED_PROTECTION(layer=0 etype=1 ecode=0xff)")).isEqualTo(1);
        assertThat(r.c.errors()).as("c's error log").anySatisfy(e -> {
            assertThat(e.text()).contains("frame from an earlier incarnation of node p (key " + String.format("0x%016x", r.firstLife.incarnation())
                    + ") dropped before placement").contains("RDMAP_UNSPECIFIED_PROTECTION");
            assertThat(e.count()).isEqualTo(1);
        });
        assertThat(r.p2.device.ras().oldIncarnationFramesDropped.get()).isZero();
        assertThat(peerIncarnationsInTheDump(r.c)).as("c's connections in tandem dump").containsExactlyInAnyOrder(
                "p key " + String.format("0x%016x", r.firstLife.incarnation()) + " (earlier life: its frames are dropped)",
                "p key " + String.format("0x%016x", r.secondLife.incarnation()) + " (current)");

        r.newLifeCarriesTraffic();
        assertThat(r.cFromP2.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void aSetUpThatReplaysTheEarlierLifesKeyIsRefusedAndNeverReachesTheApplication() throws Exception {
        Restart r = new Restart();
        r.restart();
        // the earlier life's table, still in hand, presents its old key again from another adapter
        KeyedNode replay = node(P_IP, r.firstLife);
        QueuePair replayQp = replay.qp();
        assertThatThrownBy(() -> replayQp.connect(r.listener.localAddress(), "replayed".getBytes(StandardCharsets.US_ASCII), KeyedNode.WAIT))
                .isInstanceOf(ConnectionRejectedException.class)
                .hasMessageContaining("(node c) refused the connection")
                .hasMessageContaining("the incarnation key " + String.format("0x%016x", r.firstLife.incarnation())
                        + " this adapter presented for node p is of an earlier incarnation of p");
        assertThat(replayQp.state()).isIn(QpState.INIT, QpState.RESET);
        assertThat(r.c.device.ras().oldIncarnationSetupsRefused.get()).isEqualTo(1);
        assertThat(r.c.device.ras().mpaRequestsRefused.get()).isEqualTo(1);
        assertThat(r.c.errors()).anySatisfy(e -> assertThat(e.text()).contains("refused a connection set-up: the incarnation key")
                .contains("is of an earlier incarnation of p"));

        // the application never saw the refused request: the next one it accepts is the new life's
        QueuePair again = r.p2.qp();
        byte[] marker = "new life again".getBytes(StandardCharsets.US_ASCII);
        assertThat(KeyedNode.connect(again, marker, r.listener, r.c.qp(), new byte[0]).byResponder()).isEqualTo(marker);
        assertThat(r.secondLife.refusedOldKeys()).isZero();
        r.newLifeCarriesTraffic();
    }

    @Test
    void aReplayedSetUpFollowedAtOnceByFramesPlacesNothing() throws Exception {
        Restart r = new Restart();
        r.restart();
        // a raw replay of the earlier life: its Request and, without waiting for the Reply, a Write to c's canary
        byte[] request = new MpaFrame(false, false, false, false, true, 2,
                EnhancedParameters.of(4, 4).prepend(NodeKeyBlock.of("p", r.firstLife.incarnation()).prepend(new byte[0]))).encode();
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        stream.writeBytes(request);
        stream.writeBytes(taggedWrite(r.canary.rkey(), 0, new byte[512]));
        try (SocketChannel raw = SocketChannel.open()) {
            raw.bind(new InetSocketAddress(RAW_IP, 0));
            raw.connect(r.listener.localAddress());
            raw.write(ByteBuffer.wrap(stream.toByteArray()));
            raw.socket().setSoTimeout((int) KeyedNode.WAIT.toMillis());
            InputStream in = raw.socket().getInputStream();
            byte[] header = in.readNBytes(MpaFrame.HEADER_LENGTH);
            MpaFrame reply = MpaFrame.decode(header, in.readNBytes(MpaFrame.checkHeader(header, true)), true);
            assertThat(reply.reject()).isTrue();
            assertThat(reply.nodeKeyBlock()).isEqualTo(NodeKeyBlock.of("c", r.c.keys.incarnation()).refusing());
            assertThat(endOfStream(in)).as("the listener closes the refused stream, its frames unread").isTrue();
        }
        assertUntouched(r.canary, "c's canary after the replay");
        assertThat(r.c.device.ras().oldIncarnationSetupsRefused.get()).isEqualTo(1);
        r.newLifeCarriesTraffic();
    }

    @Test
    void anInitiatorThatFindsAnEarlierLifeAnsweringRefusesIt() throws Exception {
        Restart r = new Restart();
        r.restart();
        // p's first life is still listening (a zombie): c, which has met p's new life, connects to it
        Listener zombie = r.p1.listen();
        QueuePair zombieSide = r.p1.qp();
        QueuePair cQp = r.c.qp();
        java.util.concurrent.CompletableFuture<Void> accepted = java.util.concurrent.CompletableFuture.runAsync(
                () -> zombie.accept(KeyedNode.WAIT).accept(zombieSide, new byte[0]));
        assertThatThrownBy(() -> cQp.connect(zombie.localAddress(), new byte[0], KeyedNode.WAIT))
                .isInstanceOf(ConnectionException.class)
                .isNotInstanceOf(ConnectionRejectedException.class)
                .hasMessageContaining("refused: the incarnation key " + String.format("0x%016x", r.firstLife.incarnation()))
                .hasMessageContaining("that node p presented is of an earlier incarnation of p");
        accepted.get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(cQp.state()).isIn(QpState.INIT, QpState.RESET);
        assertThat(r.c.device.ras().oldIncarnationSetupsRefused.get()).isEqualTo(1);
        LoopbackPair.awaitState(zombieSide, QpState.ERROR, "the zombie's QP once c closed the stream");
        r.newLifeCarriesTraffic();
    }

    @Test
    void theRkeysOfAnEarlierLifeNameNothingInTheNewOne() throws Exception {
        NodeKeyTable cKeys = new NodeKeyTable("c");
        KeyedNode c = node(C_IP, cKeys);
        KeyedNode p1 = node(P_IP, new NodeKeyTable("p"));
        // p's first life registers four regions; c learns their rkeys (as an application would, in private data or a Send)
        List<Integer> oldRkeys = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            oldRkeys.add(p1.region(SIZE, 0).rkey());
        }
        Listener l1 = p1.listen();
        KeyedNode.connect(c.qp(), new byte[0], l1, p1.qp(), new byte[0]);
        p1.close();   // p dies

        // p restarts on the same address and registers the same regions in the same order
        KeyedNode p2 = node(P_IP, new NodeKeyTable("p"));
        List<MemoryRegion> canaries = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            canaries.add(p2.region(SIZE, CANARY));
        }
        assertThat(canaries).extracting(MemoryRegion::rkey).as("a new life draws other STags (a sequential source would give these again)")
                .doesNotContainAnyElementsOf(oldRkeys);
        Listener l2 = p2.listen();
        QueuePair cQp = c.qp();
        QueuePair p2Qp = p2.qp();
        KeyedNode.connect(cQp, new byte[0], l2, p2Qp, new byte[0]);

        MemoryRegion source = c.region(SIZE, PAYLOAD);
        cQp.postSend(new WorkRequest.RdmaWrite(31, new Sge(source, 0, 256), 0, oldRkeys.get(0), WrFlags.SIGNALED));
        assertThat(LoopbackPair.awaitOne(c.cq).wrId()).as("the Write left").isEqualTo(31);
        LoopbackPair.awaitState(cQp, QpState.ERROR, "c's QP after p's Terminate for the Write with an rkey of the earlier life");
        assertThat(awaitEvent(c, cQp).type()).isEqualTo(AsyncEventType.QP_ACCESS_ERROR);
        assertThat(c.counter("terminates received DDP_TAGGED_INVALID_STAG(layer=1 etype=1 ecode=0x00)")).isEqualTo(1);
        assertThat(p2.counter("terminates sent DDP_TAGGED_INVALID_STAG(layer=1 etype=1 ecode=0x00)")).isEqualTo(1);
        for (MemoryRegion canary : canaries) {
            assertUntouched(canary, "the new life's region " + dev.tandem.verbs.STag.format(canary.rkey()));
        }
        assertThat(p2.device.ras().oldIncarnationFramesDropped.get()).as("a current peer: refused for its STag, not its life").isZero();
    }

    /** The first async event of {@code node} about {@code qp} other than COMMUNICATION_ESTABLISHED, within the wait. */
    private static AsyncEvent awaitEvent(KeyedNode node, QueuePair qp) {
        long deadline = System.nanoTime() + KeyedNode.WAIT.toNanos();
        while (true) {
            AsyncEvent e = node.device.pollAsyncEvent(java.time.Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            assertThat(e).as("an async event of " + node.device.name() + " about QP " + qp.qpNumber() + " within " + KeyedNode.WAIT).isNotNull();
            if (e.resource() == qp && e.type() != AsyncEventType.COMMUNICATION_ESTABLISHED) {
                return e;
            }
        }
    }

    /** The "peer incarnation" of every connection of {@code node}'s adapter in a dump of the process. */
    private static List<String> peerIncarnationsInTheDump(KeyedNode node) throws Exception {
        java.nio.file.Path dump = dev.tandem.ras.ProcessRas.dump("restarted peer test");
        try (dev.tandem.ras.DumpReader reader = dev.tandem.ras.DumpReader.open(dump)) {
            List<String> found = new ArrayList<>();
            collect(reader.tree(), node.device.name(), false, found);
            return found;
        } finally {
            java.nio.file.Files.deleteIfExists(dump);
        }
    }

    private static void collect(List<dev.tandem.ras.SnapshotNode> nodes, String adapter, boolean inAdapter, List<String> found) {
        for (dev.tandem.ras.SnapshotNode n : nodes) {
            if (n instanceof dev.tandem.ras.SnapshotNode.Group g) {
                boolean in = inAdapter || (g.kind().equals("adapter") && g.name().equals(adapter));
                collect(g.children(), adapter, in, found);
            } else if (inAdapter && n instanceof dev.tandem.ras.SnapshotNode.TextField t && t.key().equals("peer incarnation")) {
                found.add(t.value());
            }
        }
    }

    /** One tagged RDMA Write FPDU (CRC off: the field is zero), framed as RFC 5044 section 4 says. */
    private static byte[] taggedWrite(int stag, long to, byte[] payload) {
        int ulpdu = FpduDescriptor.TAGGED_HEADER_LENGTH + payload.length;
        ByteBuffer b = ByteBuffer.allocate(FpduDescriptor.fpduLength(ulpdu));
        b.putShort((short) ulpdu).put((byte) FpduDescriptor.ddpControl(true, true)).put((byte) FpduDescriptor.rdmapControl(0))
                .putInt(stag).putLong(to).put(payload);
        b.position(b.position() + FpduDescriptor.padLength(ulpdu));
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.order(ByteOrder.LITTLE_ENDIAN).putInt((int) crc.getValue());
        return b.array();
    }

    /** True when the stream ends (FIN or reset) before any further byte arrives. */
    private static boolean endOfStream(InputStream in) throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketException reset) {
            return true;
        }
    }
}

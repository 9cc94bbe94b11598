package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.EnhancedParameters;
import dev.tandem.iwarp.wire.MpaFrame;
import dev.tandem.iwarp.wire.NodeKeyBlock;
import dev.tandem.provider.NodeKeyTable;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRejectedException;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.DeviceOptions;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.NodeKeys;
import dev.tandem.verbs.PeerIncarnation;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Connection set-up between adapters with node keys (restart-safe keys): each presents its node's name
 * and incarnation key in a {@link NodeKeyBlock} that the application never sees, each learns the other's,
 * and an adapter without keys, or a plain iWARP initiator, connects as it always did. A malformed block
 * is refused with a clear reason on either side, and nothing crashes.
 */
@Timeout(60)
class NodeKeySetupTest {
    private static final String C_IP = "127.0.9.1";
    private static final String P_IP = "127.0.9.2";
    private static final String RAW_IP = "127.0.9.3";
    private static final long KEY = 0x1122_3344_5566_7788L;

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

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Application data that opens with the block's own magic: after Tandem's block it is still all the application's. */
    private static byte[] magicFirst(int n, long seed) {
        byte[] b = random(n, seed);
        System.arraycopy("TANDEMNK".getBytes(StandardCharsets.US_ASCII), 0, b, 0, Math.min(8, n));
        return b;
    }

    @Test
    void twoNodesWithKeysPassTheApplicationsPrivateDataUnchangedUpToTheLimitAndLearnEachOthersKey() throws Exception {
        NodeKeyTable cKeys = new NodeKeyTable("c");
        NodeKeyTable pKeys = new NodeKeyTable("producer-node-7");
        KeyedNode c = node(C_IP, cKeys);
        KeyedNode p = node(P_IP, pKeys);
        int cMax = c.device.attributes().maxPrivateData();
        int pMax = p.device.attributes().maxPrivateData();
        assertThat(cMax).as("508 less the block: 20 octets and the name 'c'").isEqualTo(508 - 21);
        assertThat(pMax).as("508 less 20 octets and the 15 of 'producer-node-7'").isEqualTo(508 - 35);

        Listener l = c.listen();
        QueuePair server = c.qp();
        QueuePair client = p.qp();
        byte[] request = magicFirst(pMax, 1);
        byte[] reply = magicFirst(cMax, 2);
        KeyedNode.Seen seen = KeyedNode.connect(client, request, l, server, reply);
        assertThat(seen.byResponder()).as("the initiator application's bytes, all and only them").isEqualTo(request);
        assertThat(seen.byInitiator()).as("the responder application's bytes, all and only them").isEqualTo(reply);
        assertThat(cKeys.currentKeyOf("producer-node-7")).as("c learnt p's key from the Request").isEqualTo(pKeys.incarnation());
        assertThat(pKeys.currentKeyOf("c")).as("p learnt c's key from the Reply").isEqualTo(cKeys.incarnation());

        // the connection checks a current peer per frame and carries traffic both ways
        MemoryRegion cBuf = c.region(4096, 0);
        MemoryRegion pBuf = p.region(4096, 0x3C);
        server.postReceive(new ReceiveRequest(1, new Sge(cBuf, 0, 4096)));
        client.postSend(new WorkRequest.Send(2, new Sge(pBuf, 0, 3000), WrFlags.SIGNALED));
        assertThat(LoopbackPair.awaitOne(p.cq).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(LoopbackPair.awaitOne(c.cq).byteLength()).isEqualTo(3000);
        assertThat(cBuf.segment().asSlice(0, 3000).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsOnly((byte) 0x3C);
        client.postSend(new WorkRequest.RdmaWrite(3, new Sge(pBuf, 0, 100), 3000, cBuf.rkey(), WrFlags.SIGNALED));
        assertThat(LoopbackPair.awaitOne(p.cq).status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(c.device.ras().oldIncarnationFramesDropped.get()).isZero();
        assertThat(p.device.ras().oldIncarnationFramesDropped.get()).isZero();
    }

    @Test
    void privateDataOneByteOverTheSmallerLimitIsRefusedNamingTheBlock() throws Exception {
        KeyedNode c = node(C_IP, new NodeKeyTable("c"));
        KeyedNode p = node(P_IP, new NodeKeyTable("p"));
        int max = p.device.attributes().maxPrivateData();
        QueuePair client = p.qp();
        assertThatThrownBy(() -> client.connect(new InetSocketAddress(C_IP, 9), new byte[max + 1], KeyedNode.WAIT))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining(max + 1 + " bytes exceeds the limit of " + max)
                .hasMessageContaining("21 bytes of the node key block that presents node p");
        assertThat(client.state()).isEqualTo(QpState.INIT);

        Listener l = c.listen();
        QueuePair server = c.qp();
        int cMax = c.device.attributes().maxPrivateData();
        CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
            ConnectionRequest r = l.accept(KeyedNode.WAIT);
            assertThatThrownBy(() -> r.accept(server, new byte[cMax + 1])).isInstanceOf(InvalidArgumentException.class)
                    .hasMessageContaining("node key block");
            r.accept(server, new byte[cMax]);
        });
        assertThat(client.connect(l.localAddress(), new byte[max], KeyedNode.WAIT)).hasSize(cMax);
        accepted.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aNodeWithKeysAndOneWithoutConnectEitherWayWithTheApplicationsDataUnchanged() throws Exception {
        NodeKeyTable keys = new NodeKeyTable("keyed");
        KeyedNode keyed = node(C_IP, keys);
        KeyedNode plain = node(P_IP, null);
        assertThat(plain.device.attributes().maxPrivateData()).as("no block, the whole 508").isEqualTo(508);

        // keyed initiator, keyless responder: the block is stripped and ignored, none comes back
        Listener plainListener = plain.listen();
        byte[] request = random(keyed.device.attributes().maxPrivateData(), 3);
        byte[] reply = random(508, 4);
        KeyedNode.Seen seen = KeyedNode.connect(keyed.qp(), request, plainListener, plain.qp(), reply);
        assertThat(seen.byResponder()).isEqualTo(request);
        assertThat(seen.byInitiator()).as("all 508 bytes of a keyless peer arrive").isEqualTo(reply);

        // keyless initiator, keyed responder: no block either way
        Listener keyedListener = keyed.listen();
        byte[] request2 = random(508, 5);
        byte[] reply2 = random(keyed.device.attributes().maxPrivateData(), 6);
        KeyedNode.Seen seen2 = KeyedNode.connect(plain.qp(), request2, keyedListener, keyed.qp(), reply2);
        assertThat(seen2.byResponder()).isEqualTo(request2);
        assertThat(seen2.byInitiator()).isEqualTo(reply2);
        assertThat(keys.currentKeyOf("keyed")).isZero();
        assertThat(keyed.device.ras().oldIncarnationSetupsRefused.get()).isZero();
    }

    @Test
    void aPlainIwarpInitiatorGetsAReplyWithoutABlockFromAnAdapterWithKeys() throws Exception {
        KeyedNode keyed = node(C_IP, new NodeKeyTable("keyed"));
        Listener l = keyed.listen();
        QueuePair server = keyed.qp();
        byte[] hello = "siw says hello".getBytes(StandardCharsets.US_ASCII);
        byte[] welcome = "welcome".getBytes(StandardCharsets.US_ASCII);
        CompletableFuture<byte[]> accepted = CompletableFuture.supplyAsync(() -> {
            ConnectionRequest r = l.accept(KeyedNode.WAIT);
            r.accept(server, welcome);
            return r.privateData();
        });
        try (SocketChannel raw = rawConnect(l.localAddress())) {
            raw.write(ByteBuffer.wrap(new MpaFrame(false, false, false, false, true, 2, EnhancedParameters.of(4, 4).prepend(hello)).encode()));
            MpaFrame reply = readReply(raw);
            assertThat(reply.reject()).isFalse();
            assertThat(reply.privateData()).as("exactly the RFC 6581 words and the application's bytes, as siw expects")
                    .hasSize(EnhancedParameters.LENGTH + welcome.length);
            assertThat(Arrays.copyOfRange(reply.privateData(), 4, reply.privateData().length)).isEqualTo(welcome);
            assertThat(accepted.get(5, TimeUnit.SECONDS)).isEqualTo(hello);
            LoopbackPair.awaitState(server, QpState.RTS, "the keyed responder's QP");
        }
    }

    @Test
    void aRequestWithAMalformedBlockIsRefusedWithTheReasonLoggedAndTheListenerServesOn() throws Exception {
        for (NodeKeyTable keys : new NodeKeyTable[] {new NodeKeyTable("c"), null}) {
            KeyedNode c = node(C_IP, keys);
            Listener l = c.listen();
            byte[] bad = NodeKeyBlock.of("p", KEY).prepend(new byte[0]);
            bad[NodeKeyBlock.VERSION_OFFSET] = 9;
            try (SocketChannel raw = rawConnect(l.localAddress())) {
                raw.write(ByteBuffer.wrap(new MpaFrame(false, false, false, false, true, 2, EnhancedParameters.of(4, 4).prepend(bad)).encode()));
                MpaFrame reply = readReply(raw);
                assertThat(reply.reject()).as("refused with a reject Reply (adapter with keys: " + (keys != null) + ")").isTrue();
                assertThat(reply.nodeKeyBlock()).as("a refusal for a malformed block carries no block").isNull();
            }
            assertThat(c.device.ras().mpaRequestsRefused.get()).isEqualTo(1);
            assertThat(c.errors()).anySatisfy(e -> {
                assertThat(e.text()).contains("refused an MPA Request: node key block version 9 is not supported (this adapter reads version 1)");
                assertThat(e.count()).isEqualTo(1);
            });

            QueuePair server = c.qp();
            KeyedNode p = node(P_IP, new NodeKeyTable("p"));
            byte[] after = "after the bad one".getBytes(StandardCharsets.US_ASCII);
            assertThat(KeyedNode.connect(p.qp(), after, l, server, new byte[0]).byResponder()).isEqualTo(after);
            closeAll();
        }
    }

    @Test
    void aReplyWithAMalformedBlockFailsTheConnectWithTheReasonAndClosesTheStream() throws Exception {
        KeyedNode p = node(P_IP, new NodeKeyTable("p"));
        QueuePair client = p.qp();
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(C_IP, 0));
            CompletableFuture<SocketChannel> peer = CompletableFuture.supplyAsync(() -> {
                try {
                    SocketChannel ch = server.accept();
                    MpaFrame request = readFrame(ch, false);
                    assertThat(request.nodeKeyBlock().nodeName()).isEqualTo("p");
                    byte[] bad = NodeKeyBlock.of("c", KEY).prepend(new byte[0]);
                    bad[NodeKeyBlock.LENGTH_OFFSET] = 0x7F;   // length 0x7F15: past the private data and the largest block
                    ch.write(ByteBuffer.wrap(new MpaFrame(true, false, false, false, true, 2, EnhancedParameters.of(4, 4).prepend(bad)).encode()));
                    return ch;
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            assertThatThrownBy(() -> client.connect((InetSocketAddress) server.getLocalAddress(), new byte[0], KeyedNode.WAIT))
                    .isInstanceOf(ConnectionException.class)
                    .hasMessageContaining("answered with a Reply Tandem refuses: node key block length 32533 is outside 21..84");
            assertThat(client.state()).isIn(QpState.INIT, QpState.RESET);
            try (SocketChannel ch = peer.get(5, TimeUnit.SECONDS)) {
                ch.socket().setSoTimeout((int) KeyedNode.WAIT.toMillis());
                assertThat(ch.socket().getInputStream().read()).as("the initiator closed the stream").isEqualTo(-1);
            }
        }
        assertThat(p.device.ras().connectsEstablished.get()).isZero();
    }

    @Test
    void nodeKeysThatCouldNotBePresentedAreRefusedWhenTheAdapterOpens() {
        NodeKeys zero = new NodeKeys() {
            @Override
            public String nodeName() {
                return "n";
            }

            @Override
            public long incarnation() {
                return 0;
            }

            @Override
            public PeerIncarnation admit(String peerNode, long peerIncarnation) {
                throw new AssertionError("never asked");
            }
        };
        assertThatThrownBy(() -> IwarpDevice.open(IwarpConfig.of(C_IP), DeviceOptions.DEFAULT.withNodeKeys(zero)))
                .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("incarnation key 0");
    }

    private static SocketChannel rawConnect(InetSocketAddress to) throws IOException {
        SocketChannel ch = SocketChannel.open();
        ch.bind(new InetSocketAddress(RAW_IP, 0));
        ch.connect(to);
        ch.socket().setSoTimeout((int) KeyedNode.WAIT.toMillis());
        return ch;
    }

    private static MpaFrame readReply(SocketChannel ch) throws IOException {
        return readFrame(ch, true);
    }

    /** Reads one MPA frame from a blocking channel (bounded by the socket's timeout through its stream). */
    private static MpaFrame readFrame(SocketChannel ch, boolean reply) throws IOException {
        byte[] header = readFully(ch, MpaFrame.HEADER_LENGTH);
        return MpaFrame.decode(header, readFully(ch, MpaFrame.checkHeader(header, reply)), reply);
    }

    private static byte[] readFully(SocketChannel ch, int n) throws IOException {
        byte[] b = new byte[n];
        int got = 0;
        var in = ch.socket().getInputStream();
        while (got < n) {
            int r = in.read(b, got, n - got);
            if (r < 0) {
                throw new EOFException("stream ended after " + got + " of " + n + " bytes");
            }
            got += r;
        }
        return b;
    }
}

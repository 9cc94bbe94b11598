package dev.tandem.failover;

import dev.tandem.verbs.ConnectionException;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The hello a path's set-up carries: every field survives the round trip, and a hello that is not one, or is cut short, is refused saying why. */
class HelloTest {
    private static final String NAMES = "abcxyz-.0123456789äöüßñ中文😀";

    private static Hello random(Random rnd) throws Exception {
        StringBuilder node = new StringBuilder();
        int chars = rnd.nextInt(20);
        for (int i = 0; i < chars; i++) {
            node.appendCodePoint(NAMES.codePointAt(NAMES.offsetByCodePoints(0, rnd.nextInt(NAMES.codePointCount(0, NAMES.length())))));
        }
        List<InetSocketAddress> adapters = new ArrayList<>();
        int count = rnd.nextInt(Hello.MAX_ADAPTERS + 1);
        for (int i = 0; i < count; i++) {
            byte[] addr = new byte[rnd.nextBoolean() ? 4 : 16];
            rnd.nextBytes(addr);
            adapters.add(new InetSocketAddress(InetAddress.getByAddress(addr), rnd.nextInt(0x10000)));
        }
        byte[] data = new byte[rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(100)];
        rnd.nextBytes(data);
        return new Hello(Hello.CONNECT + rnd.nextInt(4), rnd.nextInt(256), rnd.nextLong(), rnd.nextInt(), rnd.nextInt(0x10000),
                rnd.nextInt(0x10000), rnd.nextInt(), rnd.nextLong(), rnd.nextInt(256), rnd.nextInt(256), rnd.nextInt(0x10000),
                rnd.nextInt(), rnd.nextInt(), node.toString(), adapters, data);
    }

    private static Hello plain(int kind, List<InetSocketAddress> adapters, byte[] data) {
        return new Hello(kind, 1, 0x1122334455667788L, 0x0A0B0C0D, 16, 8, 42, 0x0102030405060708L, 1, Hello.THIS_PATH, 3, 0x51, 0x61,
                "node-a", adapters, data);
    }

    private static void assertSame(Hello actual, Hello expected, String what) {
        assertThat(actual.kind()).as("%s: kind", what).isEqualTo(expected.kind());
        assertThat(actual.pathIndex()).as("%s: path index", what).isEqualTo(expected.pathIndex());
        assertThat(actual.connectionId()).as("%s: connection id", what).isEqualTo(expected.connectionId());
        assertThat(actual.proofStag()).as("%s: proof STag", what).isEqualTo(expected.proofStag());
        assertThat(actual.ird()).as("%s: IRD", what).isEqualTo(expected.ird());
        assertThat(actual.ord()).as("%s: ORD", what).isEqualTo(expected.ord());
        assertThat(actual.qpNumber()).as("%s: QP number", what).isEqualTo(expected.qpNumber());
        assertThat(actual.incarnation()).as("%s: incarnation", what).isEqualTo(expected.incarnation());
        assertThat(actual.recvAdapter()).as("%s: receive adapter", what).isEqualTo(expected.recvAdapter());
        assertThat(actual.receivePath()).as("%s: receive path", what).isEqualTo(expected.receivePath());
        assertThat(actual.generation()).as("%s: generation", what).isEqualTo(expected.generation());
        assertThat(actual.mailboxStag()).as("%s: mailbox STag", what).isEqualTo(expected.mailboxStag());
        assertThat(actual.session()).as("%s: session", what).isEqualTo(expected.session());
        assertThat(actual.node()).as("%s: node", what).isEqualTo(expected.node());
        assertThat(actual.adapters()).as("%s: adapters", what).isEqualTo(expected.adapters());
        assertThat(actual.data()).as("%s: private data", what).isEqualTo(expected.data());
    }

    @Test
    void everyFieldSurvivesTheRoundTrip() throws Exception {
        Random rnd = new Random(11);
        for (int i = 0; i < 500; i++) {
            Hello h = random(rnd);
            byte[] bytes = h.encode();
            assertThat(bytes).as("hello %d: the block and the data", i).hasSize(Hello.overhead(h.node(), h.adapters()) + h.data().length);
            assertSame(Hello.decode(bytes, "peer"), h, "hello " + i);
        }
    }

    @Test
    void theFixedPartIsBigEndianAtTheDocumentedOffsets() throws Exception {
        List<InetSocketAddress> adapters = List.of(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 1, 2}), 0x1234));
        byte[] bytes = new Hello(Hello.ACCEPT, 2, 0x0102030405060708L, 0x090A0B0C, 0x0D0E, 0x0F10, 0x11121314, 0x15161718191A1B1CL, 3,
                0x1D, 0x1E1F, 0x20212223, 0x24252627, "ab", adapters, new byte[] {(byte) 0xFE}).encode();
        byte[] expected = {
            'T', 'F', 'O', 2, 3, 2, 1, 2,
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0x11, 0x12, 0x13, 0x14,
            0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 3, 0x1D, 0x1E, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27,
            'a', 'b', 0x12, 0x34, 4, 127, 0, 1, 2, (byte) 0xFE};
        assertThat(bytes).isEqualTo(expected);
        assertThat(Hello.overhead("ab", adapters)).isEqualTo(48 + 2 + 3 + 4);
    }

    @Test
    void theSmallestHelloIsTheFixedPartAlone() {
        Hello h = new Hello(Hello.REJECT, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "", List.of(), null);
        byte[] bytes = h.encode();
        assertThat(bytes).hasSize(48);
        assertSame(Hello.decode(bytes, "peer"), h, "48 bytes");
        assertThat(h.data()).as("no private data is an empty array").isEmpty();
    }

    @Test
    void theRecordKeepsCopiesOfWhatItWasGiven() throws Exception {
        List<InetSocketAddress> adapters = new ArrayList<>(List.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1)));
        byte[] data = {1, 2, 3};
        Hello h = plain(Hello.CONNECT, adapters, data);
        adapters.clear();
        data[0] = 9;
        assertThat(h.adapters()).hasSize(1);
        assertThat(h.data()).containsExactly(1, 2, 3);
        assertThatThrownBy(() -> h.adapters().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void theMostAdaptersAndEveryKindAreAccepted() throws Exception {
        List<InetSocketAddress> eight = new ArrayList<>();
        for (int i = 0; i < Hello.MAX_ADAPTERS; i++) {
            eight.add(new InetSocketAddress(InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) i}), 4000 + i));
        }
        for (int kind = Hello.CONNECT; kind <= Hello.REJECT; kind++) {
            Hello h = plain(kind, eight, new byte[] {5});
            assertSame(Hello.decode(h.encode(), "peer"), h, "kind " + kind);
        }
    }

    @Test
    void bytesThatAreNoHelloAreRefusedAsNotAFailoverDevice() {
        byte[] good = plain(Hello.CONNECT, List.of(), new byte[0]).encode();
        assertNotAHello(null, "no private data");
        assertNotAHello(Arrays.copyOf(good, 47), "47 bytes");
        for (int i = 0; i < 3; i++) {
            byte[] bad = good.clone();
            bad[i] = 'X';
            assertNotAHello(bad, "magic byte " + i + " wrong");
        }
    }

    private static void assertNotAHello(byte[] bytes, String what) {
        assertThatThrownBy(() -> Hello.decode(bytes, "10.0.0.9:4791")).as(what).isInstanceOf(ConnectionException.class)
                .hasMessageContaining("10.0.0.9:4791 is not a fail-over device");
    }

    @Test
    void anotherVersionIsRefusedNamingIt() {
        byte[] bytes = plain(Hello.CONNECT, List.of(), new byte[0]).encode();
        bytes[3] = (byte) 200;
        assertThatThrownBy(() -> Hello.decode(bytes, "peer")).isInstanceOf(ConnectionException.class)
                .hasMessageContaining("peer speaks fail-over hello version 200; this device speaks 2");
    }

    @Test
    void aMalformedHelloIsRefusedSayingWhatIsWrong() {
        byte[] good = plain(Hello.CONNECT, List.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1)), new byte[0]).encode();
        for (int kind : new int[] {0, 5, 255}) {
            byte[] bad = good.clone();
            bad[4] = (byte) kind;
            assertThatThrownBy(() -> Hello.decode(bad, "peer")).as("kind %d", kind).isInstanceOf(ConnectionException.class)
                    .hasMessageContaining("malformed").hasMessageContaining("kind " + kind);
        }
        byte[] nine = good.clone();
        nine[6] = 9;
        assertThatThrownBy(() -> Hello.decode(nine, "peer")).isInstanceOf(ConnectionException.class)
                .hasMessageContaining("malformed").hasMessageContaining("9 adapters");
        byte[] oddAddress = good.clone();
        oddAddress[48 + "node-a".length() + 2] = 5;
        assertThatThrownBy(() -> Hello.decode(oddAddress, "peer")).isInstanceOf(ConnectionException.class)
                .hasMessageContaining("an address of 5 bytes");
    }

    @Test
    void aHelloCutShortIsRefusedAsTruncated() throws Exception {
        List<InetSocketAddress> adapters = List.of(new InetSocketAddress(InetAddress.getByName("::1"), 7),
                new InetSocketAddress(InetAddress.getByAddress(new byte[] {1, 2, 3, 4}), 8));
        byte[] full = plain(Hello.ACCEPT, adapters, new byte[0]).encode();
        for (int length = 48; length < full.length; length++) {
            byte[] cut = Arrays.copyOf(full, length);
            assertThatThrownBy(() -> Hello.decode(cut, "peer")).as("cut to %d of %d bytes", length, full.length)
                    .isInstanceOf(ConnectionException.class).hasMessageContaining("peer sent a truncated fail-over hello of " + length + " bytes");
        }
        assertThat(Hello.decode(full, "peer").adapters()).isEqualTo(adapters);
    }

    @Test
    void theApplicationsDataFollowsTheBlock() {
        byte[] data = ByteBuffer.allocate(12).putInt(1).putLong(-1).array();
        Hello h = plain(Hello.JOIN, List.of(), data);
        byte[] bytes = h.encode();
        assertThat(Arrays.copyOfRange(bytes, bytes.length - 12, bytes.length)).isEqualTo(data);
        assertThat(Hello.decode(bytes, "peer").data()).isEqualTo(data);
    }
}

package dev.tandem.iwarp.wire;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The node key block byte for byte as {@link NodeKeyBlock}'s diagram draws it, where it stands in MPA
 * private data (after the RFC 6581 words, before the application's bytes, which come through unchanged),
 * and every malformed block refused with the field that is wrong.
 */
class NodeKeyBlockTest {
    private static final long KEY = 0x0123_4567_89AB_CDEFL;
    private static final byte[] APP = "application's own".getBytes(StandardCharsets.US_ASCII);

    /** The block for node "node-7", written out by hand from the layout diagram. */
    private static byte[] handBuilt(int version, int flags, int length, long key, byte[] name) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(new byte[] {0x54, 0x41, 0x4E, 0x44, 0x45, 0x4D, 0x4E, 0x4B});   // "TANDEMNK"
        b.write(version);
        b.write(flags);
        b.write(length >>> 8);
        b.write(length);
        for (int shift = 56; shift >= 0; shift -= 8) {
            b.write((int) (key >>> shift));
        }
        b.writeBytes(name);
        return b.toByteArray();
    }

    private static byte[] handBuilt(String name) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        return handBuilt(1, 0, 20 + n.length, KEY, n);
    }

    /** Private data of an Enhanced frame: the RFC 6581 words, then {@code rest}. */
    private static byte[] afterWords(byte[] rest) {
        return EnhancedParameters.of(16, 8).prepend(rest);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void theBlockIsWrittenAtAnyOffsetByteForByteAsTheDiagramSays() {
        NodeKeyBlock block = NodeKeyBlock.of("node-7", KEY);
        byte[] expected = handBuilt("node-7");
        assertThat(block.length()).isEqualTo(26).isEqualTo(NodeKeyBlock.lengthFor("node-7")).isEqualTo(expected.length);
        for (int offset : new int[] {0, 4, 7}) {
            byte[] out = new byte[offset + block.length() + 3];
            Arrays.fill(out, (byte) 0xEE);
            block.encode(out, offset);
            assertThat(HexFormat.of().formatHex(out, offset, offset + block.length())).as("at offset " + offset)
                    .isEqualTo(HexFormat.of().formatHex(expected));
            for (int i = 0; i < offset; i++) {
                assertThat(out[i]).as("nothing before the block is touched: byte " + i).isEqualTo((byte) 0xEE);
            }
            assertThat(Arrays.copyOfRange(out, offset + block.length(), out.length)).as("nothing after it").containsOnly((byte) 0xEE);
            assertThat(NodeKeyBlock.decode(out, offset)).isEqualTo(block);
        }
        assertThat(NodeKeyBlock.of("node-7", KEY).refusing().prepend(new byte[0])[NodeKeyBlock.FLAGS_OFFSET])
                .as("R is the top bit of the flags octet").isEqualTo((byte) 0x80);
    }

    @Test
    void aFrameCarriesTheBlockAfterTheIrdOrdWordsAndTheApplicationSeesOnlyItsOwnBytes() {
        byte[] pd = afterWords(concat(handBuilt("p"), APP));
        MpaFrame request = new MpaFrame(false, false, true, false, true, 2, pd);
        assertThat(request.enhancedParameters()).isEqualTo(EnhancedParameters.of(16, 8));
        assertThat(request.nodeKeyBlock()).isEqualTo(NodeKeyBlock.of("p", KEY));
        assertThat(request.applicationData()).isEqualTo(APP);

        MpaFrame decoded = MpaFrame.decode(Arrays.copyOf(request.encode(), MpaFrame.HEADER_LENGTH),
                Arrays.copyOfRange(request.encode(), MpaFrame.HEADER_LENGTH, request.encode().length), false);
        assertThat(decoded.nodeKeyBlock()).as("through the wire encoding").isEqualTo(NodeKeyBlock.of("p", KEY));

        MpaFrame revisionOne = new MpaFrame(true, false, false, false, false, 1, concat(handBuilt("p"), APP));
        assertThat(revisionOne.nodeKeyBlock()).as("no RFC 6581 words: the block leads").isEqualTo(NodeKeyBlock.of("p", KEY));
        assertThat(revisionOne.applicationData()).isEqualTo(APP);
    }

    @Test
    void privateDataWithoutTheMagicIsAllTheApplicationsEvenWhenItLooksAlmostLikeABlock() {
        byte[] almost = handBuilt("p");
        almost[7] = 'X';   // "TANDEMNX"
        MpaFrame f = new MpaFrame(false, false, true, false, true, 2, afterWords(almost));
        assertThat(f.nodeKeyBlock()).isNull();
        assertThat(f.applicationData()).isEqualTo(almost);
        MpaFrame empty = new MpaFrame(false, false, true, false, true, 2, afterWords(new byte[0]));
        assertThat(empty.nodeKeyBlock()).isNull();
        assertThat(empty.applicationData()).isEmpty();
        assertThat(new MpaFrame(false, false, true, false, true, 2, afterWords("TANDEM".getBytes(StandardCharsets.US_ASCII)))
                .applicationData()).as("shorter than the magic").isEqualTo("TANDEM".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void aMalformedBlockIsRefusedNamingTheFieldThatIsWrong() {
        byte[] name = "p".getBytes(StandardCharsets.US_ASCII);
        assertRefused(handBuilt(2, 0, 21, KEY, name), "version 2 is not supported");
        assertRefused(handBuilt(0, 0, 21, KEY, name), "version 0 is not supported");
        assertRefused(handBuilt(1, 0, 20, KEY, name), "length 20 is outside 21..84");
        assertRefused(handBuilt(1, 0, 85, KEY, name), "length 85 is outside 21..84");
        assertRefused(handBuilt(1, 0, 30, KEY, name), "length 30 runs past the private data: only 21 octets");
        assertRefused(handBuilt(1, 0, 21, 0, name), "incarnation key 0 is no key");
        assertRefused(handBuilt(1, 0, 21, KEY, new byte[] {(byte) 0xC3}), "not valid UTF-8");
        assertRefused(handBuilt(1, 0, 21, KEY, new byte[] {' '}), "node name is blank");
        assertRefused(Arrays.copyOf(handBuilt("p"), 15), "cut off: 15 octets");
        assertRefused(Arrays.copyOf(handBuilt("p"), 8), "cut off: 8 octets");
        assertRefused(Arrays.copyOf(handBuilt("p"), 20), "length 21 runs past the private data: only 20 octets");
    }

    private static void assertRefused(byte[] block, String why) {
        MpaFrame f = new MpaFrame(false, false, true, false, true, 2, afterWords(block));
        assertThatThrownBy(f::nodeKeyBlock).isInstanceOf(MpaException.class).hasMessageContaining("node key block").hasMessageContaining(why);
        assertThatThrownBy(f::applicationData).as("the application's share cannot be told either").isInstanceOf(MpaException.class);
    }

    @Test
    void reservedFlagBitsAreIgnoredOnReceipt() {
        byte[] name = "p".getBytes(StandardCharsets.US_ASCII);
        assertThat(NodeKeyBlock.decode(handBuilt(1, 0x7F, 21, KEY, name), 0)).isEqualTo(NodeKeyBlock.of("p", KEY));
        NodeKeyBlock refusal = NodeKeyBlock.decode(handBuilt(1, 0xFF, 21, KEY, name), 0);
        assertThat(refusal.refusedEarlierLife()).isTrue();
        assertThat(refusal).hasToString("NodeKeyBlock[p, key 0x0123456789abcdef, refused earlier life]");
        assertThat(NodeKeyBlock.of("p", KEY)).hasToString("NodeKeyBlock[p, key 0x0123456789abcdef]");
    }

    @Test
    void aBlockThatCouldNotBeSentIsRefusedWhenBuilt() {
        assertThatThrownBy(() -> NodeKeyBlock.of("x".repeat(65), KEY)).isInstanceOf(MpaException.class).hasMessageContaining("at most 64");
        assertThatThrownBy(() -> NodeKeyBlock.of("p", 0)).isInstanceOf(MpaException.class).hasMessageContaining("never 0");
        NodeKeyBlock longest = NodeKeyBlock.of("x".repeat(64), KEY);
        assertThat(longest.length()).isEqualTo(NodeKeyBlock.MAX_LENGTH);
        byte[] pd = longest.prepend(APP);
        assertThat(NodeKeyBlock.decode(pd, 0)).as("the longest block reads back").isEqualTo(longest);
        assertThat(Arrays.copyOfRange(pd, NodeKeyBlock.MAX_LENGTH, pd.length)).as("the application's bytes follow it").isEqualTo(APP);
    }
}

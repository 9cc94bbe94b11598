package dev.tandem.failover.check;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The verifier alone, fed made-up messages and blocks: it must count each kind of wrong once, and
 * count a clean sequence as clean, so that a clean verdict means something.
 */
class StreamVerifierTest {
    private static final StreamShape SHAPE = new StreamShape(4, 64, 4, 48, 1);
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment ring = arena.allocate((long) SHAPE.ringSlots() * SHAPE.blockBytes());
    private final Findings findings = new Findings("receiver");
    private final StreamVerifier verifier = new StreamVerifier(SHAPE, ring, findings);

    /** Message {@code seq} announcing block {@code seq + 1} in its slot, with that block written there. */
    private MemorySegment messageWithBlock(long seq) {
        int slot = (int) (seq % SHAPE.ringSlots());
        CheckedBlock.write(ring.asSlice((long) slot * SHAPE.blockBytes(), SHAPE.blockBytes()), SHAPE.blockBytes(), seq + 1);
        return message(seq, slot, seq + 1);
    }

    private MemorySegment message(long seq, int slot, long blockSeq) {
        MemorySegment m = arena.allocate(SHAPE.messageBytes());
        CheckedMessage.writeData(m, SHAPE.messageBytes(), seq, slot, blockSeq);
        return m;
    }

    private void feed(long... seqs) {
        for (long s : seqs) {
            verifier.accept(messageWithBlock(s), SHAPE.messageBytes());
        }
    }

    @Test
    void aCleanSequenceCountsEveryMessageBlockAndByteAndNothingElse() {
        feed(0, 1, 2, 3, 4, 5);
        assertThat(verifier.messages()).isEqualTo(6);
        assertThat(verifier.blocks()).isEqualTo(6);
        assertThat(verifier.bytes()).isEqualTo(6L * 64 + 6L * 48);
        assertThat(verifier.sequence().missingBelow(6)).isZero();
        assertThat(verifier.sequence().duplicated() + verifier.sequence().reordered()).isZero();
        assertThat(findings.lost + findings.checksumErrors + findings.reordered + findings.errors()).isZero();
        assertThat(findings.problems()).isEmpty();
    }

    @Test
    void aGapThatIsNeverFilledIsLost() {
        feed(0, 1, 4, 5);
        assertThat(verifier.messages()).isEqualTo(4);
        assertThat(verifier.sequence().missingBelow(6)).isEqualTo(2);
        assertThat(verifier.sequence().describeGaps(6, 10)).containsExactly("2..3");
        assertThat(verifier.sequence().reordered() + verifier.sequence().duplicated()).isZero();
    }

    @Test
    void messagesMissingAtTheEndAreLostToo() {
        feed(0, 1, 2);
        assertThat(verifier.sequence().missingBelow(5)).isEqualTo(2);
        assertThat(verifier.sequence().describeGaps(5, 10)).containsExactly("3..4");
    }

    @Test
    void aDuplicateIsCountedOnceAndNotReceivedTwice() {
        feed(0, 1, 2);
        verifier.accept(message(1, CheckedMessage.NO_SLOT, 0), SHAPE.messageBytes());
        feed(3);
        assertThat(verifier.sequence().duplicated()).isEqualTo(1);
        assertThat(verifier.messages()).isEqualTo(4);
        assertThat(verifier.sequence().missingBelow(4)).isZero();
        assertThat(findings.problems()).containsExactly("receiver: message 1 arrived again");
    }

    @Test
    void aMessageThatFillsAGapLateIsReorderedNotLost() {
        feed(0, 2, 1, 3);
        assertThat(verifier.sequence().reordered()).isEqualTo(1);
        assertThat(verifier.sequence().missingBelow(4)).isZero();
        assertThat(verifier.sequence().duplicated()).isZero();
        assertThat(verifier.messages()).isEqualTo(4);
        assertThat(findings.problems()).containsExactly("receiver: message 1 arrived after later ones");
    }

    @Test
    void aCorruptPayloadByteIsAChecksumErrorAndTheMessageIsNotReceived() {
        feed(0);
        MemorySegment bad = messageWithBlock(1);
        bad.set(ValueLayout.JAVA_BYTE, 50, (byte) (bad.get(ValueLayout.JAVA_BYTE, 50) ^ 1));
        verifier.accept(bad, SHAPE.messageBytes());
        assertThat(findings.checksumErrors).isEqualTo(1);
        assertThat(verifier.messages()).isEqualTo(1);
        assertThat(verifier.sequence().next()).isEqualTo(1);
    }

    @Test
    void aMessageShorterThanItsHeaderSaysIsAChecksumError() {
        verifier.accept(messageWithBlock(0), SHAPE.messageBytes() - 8);
        assertThat(findings.checksumErrors).isEqualTo(1);
        assertThat(verifier.messages()).isZero();
        assertThat(findings.problems()).containsExactly("receiver: a message of 56 bytes is corrupt (its length or CRC32C does not match)");
    }

    @Test
    void aCreditMessageOnTheDataPathIsRefused() {
        MemorySegment m = arena.allocate(CheckedMessage.HEADER);
        CheckedMessage.writeCredit(m, 0, 8);
        verifier.accept(m, CheckedMessage.HEADER);
        assertThat(findings.checksumErrors).isEqualTo(1);
        assertThat(verifier.messages()).isZero();
    }

    @Test
    void aCorruptBlockIsAChecksumError() {
        MemorySegment m = messageWithBlock(0);
        ring.set(ValueLayout.JAVA_BYTE, 20, (byte) (ring.get(ValueLayout.JAVA_BYTE, 20) ^ 0x40));
        verifier.accept(m, SHAPE.messageBytes());
        assertThat(findings.checksumErrors).isEqualTo(1);
        assertThat(verifier.blocks()).isZero();
        assertThat(verifier.messages()).as("the message itself arrived").isEqualTo(1);
    }

    @Test
    void aWriteThatDidNotLandIsALostBlock() {
        feed(0, 1, 2, 3);
        // message 4 announces block 5 in slot 0, which still holds block 1
        verifier.accept(message(4, 0, 5), SHAPE.messageBytes());
        assertThat(findings.lost).isEqualTo(1);
        assertThat(verifier.blocks()).isEqualTo(4);
        assertThat(findings.problems()).containsExactly(
                "receiver: block 5 (announced by message 4, slot 0) is not there: the slot still holds block 1");
    }

    @Test
    void aSlotNeverWrittenIsALostBlock() {
        verifier.accept(message(0, 2, 1), SHAPE.messageBytes());
        assertThat(findings.lost).isEqualTo(1);
        assertThat(findings.problems()).singleElement().asString().contains("never written");
    }

    @Test
    void aBlockOverwrittenBeforeItWasCheckedIsReordered() {
        CheckedBlock.write(ring.asSlice(0, SHAPE.blockBytes()), SHAPE.blockBytes(), 5);
        verifier.accept(message(0, 0, 1), SHAPE.messageBytes());
        assertThat(findings.reordered).isEqualTo(1);
        assertThat(verifier.blocks()).isZero();
    }

    @Test
    void aDuplicateIsNotCheckedForItsBlockAgain() {
        feed(0, 1, 2, 3, 4);
        // message 0 again: its slot holds block 5 by now, which would look like an overwrite
        verifier.accept(message(0, 0, 1), SHAPE.messageBytes());
        assertThat(verifier.sequence().duplicated()).isEqualTo(1);
        assertThat(findings.reordered + findings.lost).isZero();
    }
}

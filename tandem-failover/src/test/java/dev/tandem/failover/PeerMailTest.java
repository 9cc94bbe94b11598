package dev.tandem.failover;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A mailbox record is taken once: only one with a higher sequence than the last taken is news ({@link PeerMail#newer}). */
class PeerMailTest {

    @Test
    void onlyAHigherSequenceIsNews() {
        assertThat(PeerMail.newer(1, 0)).as("the first record").isTrue();
        assertThat(PeerMail.newer(2, 1)).isTrue();
        assertThat(PeerMail.newer(1, 1)).as("taken already").isFalse();
        assertThat(PeerMail.newer(1, 2)).as("an older record").isFalse();
        assertThat(PeerMail.newer(0, 0)).as("an empty slot").isFalse();
    }

    @Test
    void sequencesCompareUnsigned() {
        assertThat(PeerMail.newer(0x8000_0000, 0x7FFF_FFFF)).as("past the sign bit").isTrue();
        assertThat(PeerMail.newer(0xFFFF_FFFF, 0x8000_0000)).isTrue();
        assertThat(PeerMail.newer(0x7FFF_FFFF, 0x8000_0000)).isFalse();
        assertThat(PeerMail.newer(0xFFFF_FFFF, 0)).isTrue();
    }
}

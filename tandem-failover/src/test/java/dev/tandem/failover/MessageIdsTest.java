package dev.tandem.failover;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** Message ids count from 1, skip 0 at the wrap, and compare as serial numbers ({@link MessageIds}). */
class MessageIdsTest {

    @Test
    void idsCountFromOneAndSkipZeroWhenTheyWrap() {
        assertThat(MessageIds.next(0)).as("the first Send after none").isEqualTo(1);
        assertThat(MessageIds.next(41)).isEqualTo(42);
        assertThat(MessageIds.next(0x7FFF_FFFF)).isEqualTo(0x8000_0000);
        assertThat(MessageIds.next(0xFFFF_FFFF)).as("0 means none: the id after 0xFFFFFFFF is 1").isEqualTo(1);
    }

    @Test
    void anIdComesAfterTheOnesBeforeItAcrossTheWrapAndTheSignBit() {
        assertThat(MessageIds.after(2, 1)).isTrue();
        assertThat(MessageIds.after(1, 2)).isFalse();
        assertThat(MessageIds.after(5, 5)).as("not after itself").isFalse();
        assertThat(MessageIds.after(0x8000_0000, 0x7FFF_FFFF)).as("past the sign bit").isTrue();
        assertThat(MessageIds.after(1, 0xFFFF_FFFF)).as("past the wrap").isTrue();
        assertThat(MessageIds.after(0xFFFF_FFFF, 1)).isFalse();
        assertThat(MessageIds.after(0x9000_0000, 0)).as("any id comes after none").isTrue();
        assertThat(MessageIds.after(0, 0x9000_0000)).as("none comes after nothing").isFalse();
        assertThat(MessageIds.after(0, 0)).isFalse();
    }

    @Test
    void theLaterOfTwoIds() {
        assertThat(MessageIds.later(3, 7)).isEqualTo(7);
        assertThat(MessageIds.later(1, 0xFFFF_FFFF)).isEqualTo(1);
        assertThat(MessageIds.later(0, 0)).isZero();
        assertThat(MessageIds.later(0, 0xF000_0000)).isEqualTo(0xF000_0000);
    }

    /** Walking the ids from anywhere (seeded): each next one is after every one up to half the space back, and never 0. */
    @Test
    void eachNextIdComesAfterTheWindowBeforeIt() {
        SplittableRandom random = new SplittableRandom(0x1D5);
        for (int run = 0; run < 200; run++) {
            int start = run < 4 ? new int[] {0xFFFF_FFF0, 0x7FFF_FFF0, 0, 1}[run] : random.nextInt();
            int id = start == 0 ? 1 : start;
            for (int step = 0; step < 64; step++) {
                int n = MessageIds.next(id);
                assertThat(n).as("after %s", Integer.toUnsignedString(id)).isNotZero();
                assertThat(MessageIds.after(n, id)).as("%s after %s", Integer.toUnsignedString(n), Integer.toUnsignedString(id)).isTrue();
                assertThat(MessageIds.after(id, n)).isFalse();
                int back = random.nextInt(1, 1 << 30);
                int earlier = id - back == 0 ? id - back - 1 : id - back;
                assertThat(MessageIds.after(n, earlier)).as("%s after %s", Integer.toUnsignedString(n), Integer.toUnsignedString(earlier))
                        .isTrue();
                id = n;
            }
        }
    }
}

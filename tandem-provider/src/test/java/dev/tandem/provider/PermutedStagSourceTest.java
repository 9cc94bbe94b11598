package dev.tandem.provider;

import dev.tandem.verbs.STag;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.BitSet;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.function.IntPredicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * The STag allocator alone ({@link PermutedStagSource}, the live indices a bitset): a released STag does not
 * come back within 2^24 further allocations, STags are not predictable, index 0 never comes.
 */
class StagSourceTest {
    private static final int INDICES = 1 << 24;

    /**
     * More than a pass of allocations, a few STags held throughout (the second pass must skip
     * them) and the rest released 64 allocations after they were issued. Every STag issued is
     * checked against the last issue of its index: the index must not come back before
     * {@code 2^24 - 2^20} allocations (so no earlier issue of it can be within 2^24 of now), and
     * if it comes back within 2^24 allocations of that STag's release, with another key.
     */
    @Test
    void aReleasedStagIsNotIssuedAgainWithin2To24FurtherAllocations() {
        PermutedStagSource source = new PermutedStagSource(new Random(1));
        BitSet liveIndices = new BitSet(INDICES);
        IntPredicate live = liveIndices::get;
        int allocations = INDICES + INDICES / 4;
        long[] lastIssue = new long[INDICES]; // allocation << 8 | key, or -1
        Arrays.fill(lastIssue, -1);
        int[] held = new int[1000];
        for (int i = 0; i < held.length; i++) {
            held[i] = source.next(live);
            liveIndices.set(STag.index(held[i]));
        }
        int[] churn = new int[64];
        int issuedIndices = 0;
        for (int a = 0; a < allocations; a++) {
            int stag = source.next(live);
            int index = STag.index(stag);
            int key = STag.key(stag);
            if (index == 0 || liveIndices.get(index)) {
                fail("index " + index + " issued at allocation " + a + " is 0 or live");
            }
            long previous = lastIssue[index];
            if (previous < 0) {
                issuedIndices++;
            } else {
                int issuedAt = (int) (previous >>> 8);
                int releasedAt = issuedAt + churn.length;
                if (a - issuedAt < INDICES - (1 << 20)) {
                    fail("index " + index + " issued at allocations " + issuedAt + " and " + a);
                }
                if (a - releasedAt < INDICES && (previous & 0xFF) == key) {
                    fail("STag " + STag.format(stag) + " released at allocation " + releasedAt + " issued again at " + a);
                }
            }
            lastIssue[index] = (long) a << 8 | key;
            int slot = a % churn.length;
            if (a >= churn.length) {
                liveIndices.clear(STag.index(churn[slot]));
                source.release(churn[slot]);
            }
            churn[slot] = stag;
            liveIndices.set(index);
        }
        for (int h : held) {
            assertThat(lastIssue[STag.index(h)]).as("issue of held index " + STag.index(h) + " again").isEqualTo(-1);
        }
        assertThat(issuedIndices).as("indices issued: all but 0 and the held ones").isEqualTo(INDICES - 1 - held.length);
        assertThat(source.quarantined()).as("quarantined indices: no STag lived long enough").isZero();
    }

    @Test
    void theIndexPermutationNamesEveryIndexOnceAndUndoes() {
        PermutedStagSource source = new PermutedStagSource(new Random(2));
        BitSet seen = new BitSet(INDICES);
        for (int x = 0; x < INDICES; x++) {
            int index = source.permute(x);
            if (index < 0 || index >= INDICES || seen.get(index) || source.unpermute(index) != x) {
                fail("offset " + x + " gives index " + index + (seen.get(index) ? ", named before" : "")
                        + ", which maps back to " + source.unpermute(index));
            }
            seen.set(index);
        }
    }

    @Test
    void stagsAreNotSequentialAndDifferPerIncarnation() {
        int[] first = stags(new PermutedStagSource(), 4096);
        int[] second = stags(new PermutedStagSource(), 4096);
        assertThat(first).as("two incarnations' STags").isNotEqualTo(second);
        Set<Integer> steps = new HashSet<>();
        int adjacent = 0;
        for (int i = 1; i < first.length; i++) {
            int step = STag.index(first[i]) - STag.index(first[i - 1]);
            steps.add(step);
            if (Math.abs(step) == 1) {
                adjacent++;
            }
        }
        assertThat(steps).as("distinct steps between consecutive indices").hasSizeGreaterThan(4000);
        assertThat(adjacent).as("consecutive indices that are neighbours").isLessThan(4);
    }

    private static int[] stags(PermutedStagSource source, int n) {
        int[] s = new int[n];
        for (int i = 0; i < n; i++) {
            s[i] = source.next(index -> false);
        }
        return s;
    }

    @Test
    void anIndexComesBackAPassLaterWithTheNextKey() {
        PermutedStagSource source = new PermutedStagSource(new Random(3));
        int stag = source.next(index -> false);
        source.release(stag);
        int index = STag.index(stag);
        assertThat(source.quarantined()).as("a region released in the pass it was issued in").isZero();
        int again = source.next(other -> other != index);
        assertThat(again).as("the index one pass later").isEqualTo(STag.of(index, (STag.key(stag) + 1) & 0xFF));
    }

    /** A window's consumer chose the key its index gets next pass: the source skips that pass. */
    @Test
    void aReleasedKeyDueWithinThreePassesIsQuarantined() {
        PermutedStagSource source = new PermutedStagSource(new Random(4));
        int stag = source.next(index -> false);
        int index = STag.index(stag);
        int boundKey = (STag.key(stag) + 1) & 0xFF;
        source.release(STag.of(index, boundKey));
        assertThat(source.quarantined()).isEqualTo(1);
        assertThatThrownBy(() -> source.next(other -> other != index))
                .as("the one free index, in the pass where it would carry the released key")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no free STag index");
        assertThat(source.next(other -> other != index)).as("the pass after").isEqualTo(STag.of(index, (boundKey + 1) & 0xFF));
        assertThat(source.quarantined()).isZero();
    }
}

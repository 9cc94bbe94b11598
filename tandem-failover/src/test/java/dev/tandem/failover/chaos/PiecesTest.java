package dev.tandem.failover.chaos;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** Gather and scatter layouts cover the bytes exactly, in pieces that fit their slot and never overlap. */
class PiecesTest {
    @Test
    void piecesAddUpFitAndDoNotOverlap() {
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < 10_000; i++) {
            int total = 1 + r.nextInt(4096);
            int space = total + r.nextInt(4096);
            int[] p = Pieces.layout(total, space, 3, r);
            assertThat(p.length / 2).isBetween(1, 3);
            int sum = 0;
            boolean[] used = new boolean[space];
            for (int k = 0; k < p.length; k += 2) {
                assertThat(p[k + 1]).isPositive();
                assertThat(p[k] + p[k + 1]).isLessThanOrEqualTo(space);
                for (int j = p[k]; j < p[k] + p[k + 1]; j++) {
                    assertThat(used[j]).as("overlap at %d", j).isFalse();
                    used[j] = true;
                }
                sum += p[k + 1];
            }
            assertThat(sum).isEqualTo(total);
        }
    }
}

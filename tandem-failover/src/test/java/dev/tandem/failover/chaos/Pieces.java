package dev.tandem.failover.chaos;

import java.util.random.RandomGenerator;

/**
 * Where the 1 to 3 pieces of a gathered or scattered buffer lie in a slot twice its size: the pieces
 * keep their order in the work request's list but lie in memory in a random order with random gaps,
 * so a device that gathers or scatters by address instead of by list order is caught.
 */
final class Pieces {
    private Pieces() {
    }

    /**
     * Splits {@code total} bytes into up to {@code maxPieces} pieces laid out in {@code space} bytes
     * (at least {@code total}); returns {@code [offset0, length0, offset1, length1, ...]} in list order.
     * Pieces are never empty; a total of 0 gives one empty piece.
     */
    static int[] layout(int total, int space, int maxPieces, RandomGenerator rng) {
        int k = total < 3 ? 1 : 1 + rng.nextInt(Math.min(3, maxPieces));
        int[] lengths = new int[k];
        if (k == 1) {
            lengths[0] = total;
        } else {
            int[] cuts = new int[k - 1];
            for (int i = 0; i < cuts.length; i++) {
                cuts[i] = 1 + rng.nextInt(total - 1);
            }
            java.util.Arrays.sort(cuts);
            int prev = 0;
            for (int i = 0; i < cuts.length; i++) {
                lengths[i] = cuts[i] - prev;
                prev = cuts[i];
            }
            lengths[k - 1] = total - prev;
            for (int len : lengths) {
                if (len == 0) { // equal cuts: fall back to one piece
                    return new int[] {rng.nextInt(space - total + 1), total};
                }
            }
        }
        // memory order: a random permutation of the pieces, with random gaps that fit the space
        int[] order = new int[k];
        for (int i = 0; i < k; i++) {
            order[i] = i;
        }
        for (int i = k - 1; i > 0; i--) {
            int j = rng.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        int slack = space - total;
        int[] out = new int[2 * k];
        int at = 0;
        for (int i = 0; i < k; i++) {
            int gap = slack == 0 ? 0 : rng.nextInt(slack / (k - i) + 1);
            slack -= gap;
            at += gap;
            int piece = order[i];
            out[2 * piece] = at;
            out[2 * piece + 1] = lengths[piece];
            at += lengths[piece];
        }
        return out;
    }
}

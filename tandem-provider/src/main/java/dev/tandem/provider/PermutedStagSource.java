package dev.tandem.provider;

import dev.tandem.verbs.StagSource;

import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.IntPredicate;

/**
 * Where the STags of one incarnation come from (unless the opener of a device gives a source of its
 * own): never sequential, not guessable from the ones a
 * peer has seen (RFC 5042 §5.1.2), and the STag of a released region not issued again for at least
 * 2<sup>24</sup> further STags. It is separate from any adapter's {@link StagTable} so that one
 * source can serve several adapters (the node key table gives a region the same STag on each).
 *
 * <p>How. A counter {@code n} walks passes of {@code P = 2^24} steps. Step {@code n} names the
 * index {@code permute(n mod P)}, a Feistel network over 24 bits keyed by a secret drawn from
 * {@link SecureRandom} per incarnation (a bijection: a pass names every index exactly once, in an
 * order a peer cannot predict), with the key byte {@code base + n / P} for a random {@code base}.
 * So an index comes up once a pass, as late as possible, with the next key byte each time: an STag
 * comes up once in 256 passes. A step issues nothing when its index is 0 (STag 0 is never valid),
 * live, or quarantined.
 *
 * <p>The bound. Let {@code C} bound the indices live at once (65,535 on an adapter). A step of
 * pass {@code X} skips index 0 once; a live index only if it was issued before {@code X} began,
 * so was live at its start: at most {@code C}; a quarantined index only if a release in the three
 * passes before quarantined it. Releasing STag {@code (i, k)} at step {@code c} quarantines
 * {@code i} (skips it up to and including its step with key {@code k}) when that step falls in
 * {@code [c, c + 3P)}: for a region only when it lived through about 253 passes, so it was live
 * when pass {@code X - 3} began: at most {@code C} more; for a window, whose key the consumer picks
 * at bind, for about 3 in 256 releases too (call their skips in a pass {@code W}). So every full
 * pass issues at least {@code P - 1 - 2C - W} STags. Without quarantine, {@code (i, k)} comes up
 * again no earlier than {@code c + 3P}, after two full passes: at least {@code 2(P - 1 - 2C - W)}
 * STags are issued first, which is at least {@code P} while {@code 2C + W < P/2} (W is 0 without
 * windows; only a consumer aiming its window keys at the coming passes could raise it near that).
 * With quarantine, the next step with {@code (i, k)} that issues is 256 passes later.
 *
 * <p>Not a cipher: the round function is a keyed 64-bit mix, plenty against a peer guessing STags
 * and cheap enough to run 2^24 times in a test. Thread-safe; allocation is rare, so it locks.
 */
public final class PermutedStagSource implements StagSource {
    /** Bits of the index part of an STag. */
    public static final int INDEX_BITS = 24;
    /** Steps in one pass: every index once. */
    public static final long PASS = 1L << INDEX_BITS;
    private static final int HALF_BITS = INDEX_BITS / 2;
    private static final int HALF_MASK = (1 << HALF_BITS) - 1;
    private static final int ROUNDS = 4;
    /** How far a release looks ahead for its key coming up again. */
    private static final long LOOK_AHEAD = 3 * PASS;

    private final long[] roundKeys = new long[ROUNDS];
    private final int keyBase;
    /** The next step. */
    private long counter;
    /** Released indices whose key comes up again too soon → the first step at which they may be issued. */
    private final Map<Integer, Long> quarantine = new HashMap<>();

    /** A source for a new incarnation, its secret from {@link SecureRandom}. */
    public PermutedStagSource() {
        this(new SecureRandom());
    }

    /** A source whose secret comes from {@code random} (tests pass a seeded one). */
    public PermutedStagSource(Random random) {
        for (int r = 0; r < ROUNDS; r++) {
            roundKeys[r] = random.nextLong();
        }
        keyBase = random.nextInt(256);
    }

    /**
     * The next STag whose index is not {@code live} (the caller's view of the indices in use),
     * not 0 and not quarantined.
     *
     * @throws IllegalStateException when a whole pass finds no free index (the caller lets no table fill that far)
     */
    @Override
    public synchronized int next(IntPredicate live) {
        for (long tried = 0; tried < PASS; tried++) {
            long n = counter++;
            int index = permute((int) (n & (PASS - 1)));
            if (index == 0 || live.test(index) || quarantined(index, n)) {
                continue;
            }
            return (index << 8) | keyAt(n);
        }
        throw new IllegalStateException("no free STag index in a whole pass of " + PASS + " indices");
    }

    /**
     * Takes back {@code stag}, whose entry is gone: quarantines its index if the index would come
     * up with the same key within the next three passes (see the class comment).
     */
    @Override
    public synchronized void release(int stag) {
        int index = stag >>> 8;
        long now = counter;
        long step = (now & -PASS) + unpermute(index);
        if (step < now) {
            step += PASS;
        }
        for (; step < now + LOOK_AHEAD; step += PASS) {
            if (keyAt(step) == (stag & 0xFF)) {
                quarantine.put(index, step + 1);
                return;
            }
        }
    }

    /** How many indices are quarantined now (for tests and dumps). */
    public synchronized int quarantined() {
        return quarantine.size();
    }

    private boolean quarantined(int index, long step) {
        if (quarantine.isEmpty()) {
            return false;
        }
        Long until = quarantine.get(index);
        if (until == null) {
            return false;
        }
        if (step < until) {
            return true;
        }
        quarantine.remove(index);
        return false;
    }

    private int keyAt(long step) {
        return (int) (keyBase + (step >>> INDEX_BITS)) & 0xFF;
    }

    /** The index named at offset {@code x} of a pass: a balanced Feistel network, hence a bijection. */
    public int permute(int x) {
        int left = x >>> HALF_BITS;
        int right = x & HALF_MASK;
        for (int r = 0; r < ROUNDS; r++) {
            int f = round(r, right);
            int nextRight = left ^ f;
            left = right;
            right = nextRight;
        }
        return (left << HALF_BITS) | right;
    }

    /** The offset in a pass at which {@code index} comes up: {@link #permute} backwards. */
    public int unpermute(int index) {
        int left = index >>> HALF_BITS;
        int right = index & HALF_MASK;
        for (int r = ROUNDS - 1; r >= 0; r--) {
            int previousRight = left;
            left = right ^ round(r, left);
            right = previousRight;
        }
        return (left << HALF_BITS) | right;
    }

    private int round(int r, int half) {
        long z = roundKeys[r] ^ half;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return (int) (z >>> (64 - HALF_BITS));
    }
}

package dev.tandem.verbs.conformance;

import dev.tandem.verbs.StagSource;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * A caller's STag source for tests: gives the STags queued with {@link #give}, in order, and after
 * them STags of its own (index counting up from 0x7F0000, key 0x5A); records what devices give back.
 */
final class ScriptedStags implements StagSource {
    private final ArrayDeque<Integer> queued = new ArrayDeque<>();
    private final List<Integer> released = new ArrayList<>();
    private int nextIndex = 0x7F0000;

    /** The next registrations get these STags, in order. */
    synchronized ScriptedStags give(int... stags) {
        for (int s : stags) {
            queued.addLast(s);
        }
        return this;
    }

    @Override
    public synchronized int next(IntPredicate indexLive) {
        Integer s = queued.pollFirst();
        if (s != null) {
            return s;
        }
        while (indexLive.test(nextIndex)) {
            nextIndex++;
        }
        return nextIndex++ << 8 | 0x5A;
    }

    @Override
    public synchronized void release(int stag) {
        released.add(stag);
    }

    synchronized List<Integer> released() {
        return List.copyOf(released);
    }
}

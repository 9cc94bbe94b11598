package dev.tandem.failover.chaos;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Every violation of one scenario, from every thread, in the order they were found: the checker never
 * stops at the first. Keeps the text of the first {@value #KEEP_PER_CHECK} of each {@link Check} and
 * counts the rest, so a broken stream cannot flood memory.
 */
final class Findings {
    static final int KEEP_PER_CHECK = 40;

    /** One violation: what broke, when (ms since the scenario's traffic started), and what was seen. */
    record Violation(Check check, long atMillis, String what) {
        @Override
        public String toString() {
            return "[" + check + " +" + atMillis + "ms] " + what;
        }
    }

    private final TrafficClock clock;
    private final List<Violation> kept = new ArrayList<>();
    private final Map<Check, Integer> counts = new EnumMap<>(Check.class);

    Findings(TrafficClock clock) {
        this.clock = clock;
    }

    /** Records a violation of {@code check}. */
    synchronized void add(Check check, String what) {
        int n = counts.merge(check, 1, Integer::sum);
        if (n <= KEEP_PER_CHECK) {
            kept.add(new Violation(check, clock.millisSinceStart(), what));
        }
    }

    synchronized boolean isEmpty() {
        return counts.isEmpty();
    }

    synchronized int total() {
        return counts.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** How many of each check, in the enum's order. */
    synchronized Map<Check, Integer> counts() {
        return new EnumMap<>(counts);
    }

    /** The violations whose text was kept, in the order found. */
    synchronized List<Violation> kept() {
        return List.copyOf(kept);
    }

    synchronized int count(Check check) {
        return counts.getOrDefault(check, 0);
    }
}

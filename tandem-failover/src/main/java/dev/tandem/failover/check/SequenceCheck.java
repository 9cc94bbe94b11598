package dev.tandem.failover.check;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Tells, for each sequence number as it arrives, whether it came in order, ahead of numbers not seen
 * yet (a gap), late into such a gap (reordered), or again (duplicated). A gap that is never filled is
 * lost. Numbers count from 0. The open gaps are kept as ranges, so memory grows with the number of
 * gaps, not with the stream.
 */
final class SequenceCheck {
    /** How one number arrived. */
    enum Order { IN_ORDER, AHEAD, LATE, DUPLICATE }

    /** Open gaps: first missing number to one past the last. */
    private final TreeMap<Long, Long> gaps = new TreeMap<>();
    private long next;
    private long missing;
    private long accepted;
    private long duplicated;
    private long reordered;

    /** Notes the arrival of {@code seq}. */
    Order observe(long seq) {
        if (seq == next) {
            next++;
            accepted++;
            return Order.IN_ORDER;
        }
        if (seq > next) {
            gaps.put(next, seq);
            missing += seq - next;
            next = seq + 1;
            accepted++;
            return Order.AHEAD;
        }
        Map.Entry<Long, Long> gap = seq < 0 ? null : gaps.floorEntry(seq);
        if (gap != null && seq < gap.getValue()) {
            long from = gap.getKey();
            long to = gap.getValue();
            gaps.remove(from);
            if (from < seq) {
                gaps.put(from, seq);
            }
            if (seq + 1 < to) {
                gaps.put(seq + 1, to);
            }
            missing--;
            reordered++;
            accepted++;
            return Order.LATE;
        }
        duplicated++;
        return Order.DUPLICATE;
    }

    /** One past the highest number seen: the next one expected in order. */
    long next() {
        return next;
    }

    /** Numbers that arrived once (in order, ahead or late). */
    long accepted() {
        return accepted;
    }

    long duplicated() {
        return duplicated;
    }

    /** Numbers that arrived after a higher one (they filled a gap). */
    long reordered() {
        return reordered;
    }

    /** Numbers in open gaps: below {@link #next()} and not seen. */
    long missing() {
        return missing;
    }

    /** Numbers below {@code end} never seen: the open gaps and those from {@link #next()} up to {@code end}. */
    long missingBelow(long end) {
        return missing + Math.max(0, end - next);
    }

    /** Where it stands, with the first {@link Findings#MAX_PROBLEMS} open gaps in words. */
    SequenceState state() {
        return new SequenceState(next, missing, duplicated, reordered, describeGaps(0, Findings.MAX_PROBLEMS));
    }

    /** The open gaps below {@code end} as text ("5", "7..9"), at most {@code max} of them. */
    List<String> describeGaps(long end, int max) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<Long, Long> g : gaps.entrySet()) {
            if (out.size() == max) {
                return out;
            }
            out.add(range(g.getKey(), g.getValue()));
        }
        if (end > next && out.size() < max) {
            out.add(range(next, end));
        }
        return out;
    }

    static String range(long from, long to) {
        return to - from == 1 ? Long.toString(from) : from + ".." + (to - 1);
    }
}

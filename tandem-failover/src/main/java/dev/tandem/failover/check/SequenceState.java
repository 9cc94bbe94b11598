package dev.tandem.failover.check;

import java.util.List;

/**
 * Where a {@link SequenceCheck} stands, as a value that can leave its process.
 *
 * @param next       one past the highest number seen
 * @param missing    numbers in open gaps below {@code next}
 * @param duplicated numbers that arrived again
 * @param reordered  numbers that arrived after a higher one
 * @param gaps       the first open gaps in words ("5", "7..9"), at most {@link Findings#MAX_PROBLEMS}
 */
public record SequenceState(long next, long missing, long duplicated, long reordered, List<String> gaps) {
    public SequenceState {
        gaps = List.copyOf(gaps);
        if (next < 0 || missing < 0 || missing > next || duplicated < 0 || reordered < 0) {
            throw new IllegalArgumentException("a sequence state needs 0 <= missing <= next and no negative count: next " + next
                    + ", missing " + missing + ", duplicated " + duplicated + ", reordered " + reordered);
        }
    }

    /** Numbers below {@code end} never seen: the open gaps and those from {@link #next()} up to {@code end}. */
    public long missingBelow(long end) {
        return missing + Math.max(0, end - next);
    }

    /** The open gaps, and {@code next..end-1} when {@code end} is beyond {@code next}, in words; at most {@code max}. */
    List<String> describeGaps(long end, int max) {
        List<String> out = new java.util.ArrayList<>(gaps.subList(0, Math.min(max, gaps.size())));
        if (end > next && out.size() < max) {
            out.add(SequenceCheck.range(next, end));
        }
        return out;
    }
}

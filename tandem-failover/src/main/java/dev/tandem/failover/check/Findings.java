package dev.tandem.failover.check;

import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.RdmaException;
import dev.tandem.verbs.WorkCompletion;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one side of a checked stream found wrong: counts of lost, duplicated, reordered and corrupt
 * messages or blocks, completions in error by status, posts and polls the device refused, and the
 * first problems in words (a human reads
 * them when a verdict is not clean). Owned by the thread that drives the side.
 */
final class Findings {
    /** Distinct problems kept in words; the rest are only counted. */
    static final int MAX_PROBLEMS = 20;

    private final String side;
    private final EnumMap<CompletionStatus, Long> errors = new EnumMap<>(CompletionStatus.class);
    /** Each distinct problem in words, in the order first seen, with how often it happened. */
    private final Map<String, Long> problems = new LinkedHashMap<>();
    long lost;
    long duplicated;
    long reordered;
    long checksumErrors;
    private long errorCount;
    private long refused;
    private long unsaid;

    Findings(String side) {
        this.side = side;
    }

    /** A completion not SUCCESS: the application saw an error. */
    void error(CompletionStatus status, String what) {
        errors.merge(status, 1L, Long::sum);
        errorCount++;
        problem(what + " completed " + status);
    }

    /**
     * A completion of work the stream never posted (its queue is shared with other work): counted as an
     * error the application saw, whatever its status, since the stream cannot vouch for it.
     */
    void stray(WorkCompletion wc) {
        errors.merge(wc.status(), 1L, Long::sum);
        errorCount++;
        problem("a completion of work the stream never posted: " + wc);
    }

    /** A post or poll the device refused with an exception: the application saw an error. */
    void refused(String what, RdmaException e) {
        refused++;
        problem(what + " was refused: " + e.getMessage());
    }

    /** One more problem in words; one said before is counted again, not repeated. */
    void problem(String what) {
        String said = side + ": " + what;
        Long before = problems.get(said);
        if (before != null) {
            problems.put(said, before + 1);
        } else if (problems.size() < MAX_PROBLEMS) {
            problems.put(said, 1L);
        } else {
            unsaid++;
        }
    }

    long errors() {
        return errorCount;
    }

    long refused() {
        return refused;
    }

    Map<CompletionStatus, Long> errorsByStatus() {
        return errors;
    }

    /** The problems in words, each with "(N times)" when it happened more than once. */
    List<String> problems() {
        List<String> out = new ArrayList<>(problems.size());
        problems.forEach((p, n) -> out.add(n == 1 ? p : p + " (" + n + " times)"));
        return out;
    }

    /** What it found so far, as a value. */
    SideFindings view() {
        return new SideFindings(lost, duplicated, reordered, checksumErrors, errorCount, errors, refused, problems(), unsaid);
    }

    /** Problems counted but not kept in words. */
    long unsaid() {
        return unsaid;
    }
}

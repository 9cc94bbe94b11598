package dev.tandem.failover.check;

import dev.tandem.verbs.CompletionStatus;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What one side of a checked stream found wrong, as a value that can leave its process: the counts of
 * {@link Findings} and its first problems in words.
 *
 * @param lost           messages or blocks this side found missing
 * @param duplicated     what arrived again
 * @param reordered      what arrived or completed out of order
 * @param checksumErrors corrupt messages or blocks
 * @param errors         completions not SUCCESS, by status in {@code errorsByStatus}
 * @param refused        posts and polls the device refused
 * @param problems       the first problems in words, each prefixed with the side
 * @param unsaid         problems counted but not kept in words
 */
public record SideFindings(long lost, long duplicated, long reordered, long checksumErrors, long errors,
                           Map<CompletionStatus, Long> errorsByStatus, long refused, List<String> problems, long unsaid) {
    public SideFindings {
        errorsByStatus = errorsByStatus.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(errorsByStatus));
        problems = List.copyOf(problems);
        if (lost < 0 || duplicated < 0 || reordered < 0 || checksumErrors < 0 || errors < 0 || refused < 0 || unsaid < 0) {
            throw new IllegalArgumentException("counts of findings are never negative: " + lost + ", " + duplicated + ", " + reordered
                    + ", " + checksumErrors + ", " + errors + ", " + refused + ", " + unsaid);
        }
    }
}

package dev.tandem.failover.chaos;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What one scenario found and saw.
 *
 * @param spec       the scenario
 * @param counts     violations per check
 * @param violations the violations whose text was kept, in the order found
 * @param faults     the fault thread's log
 * @param events     the fail-over events of both nodes
 * @param delivered  messages delivered to the applications, all streams
 * @param migrated   fail-overs completed (Migrated events, both nodes)
 * @param maxPauseMs the longest pause a Migrated event told
 * @param wall       how long the scenario took, set-up and close included
 */
record ScenarioResult(ScenarioSpec spec, Map<Check, Integer> counts, List<Findings.Violation> violations, List<String> faults,
                      List<String> events, long delivered, int migrated, long maxPauseMs, Duration wall) {
    boolean failed() {
        return !counts.isEmpty();
    }

    int total() {
        return counts.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** The violations per check in one line, e.g. {@code LOST 2, STALL 1}. */
    String countsLine() {
        StringBuilder sb = new StringBuilder();
        counts.forEach((c, n) -> sb.append(sb.isEmpty() ? "" : ", ").append(c).append(' ').append(n));
        return sb.toString();
    }

    /** The failure as a report shows it: what ran, how to rerun it, the first violations, the faults and events. */
    String describe(int firstViolations, int firstEvents) {
        StringBuilder sb = new StringBuilder();
        sb.append(failed() ? "FAIL " : "ok   ").append(spec.displayName()).append(": ").append(total()).append(" violations")
                .append(failed() ? " (" + countsLine() + ")" : "").append(", ").append(delivered).append(" messages delivered, ")
                .append(migrated).append(" fail-overs, longest pause ").append(maxPauseMs).append("ms, ").append(wall.toMillis())
                .append("ms\n");
        sb.append("  scenario: ").append(spec.describe()).append('\n');
        sb.append("  rerun: ").append(spec.rerun()).append('\n');
        if (failed()) {
            sb.append("  first violations:\n");
            violations.stream().limit(firstViolations).forEach(v -> sb.append("    ").append(v).append('\n'));
        }
        sb.append("  faults:").append(faults.isEmpty() ? " none\n" : "\n");
        faults.forEach(f -> sb.append("    ").append(f).append('\n'));
        sb.append("  fail-over events (").append(Math.min(firstEvents, events.size())).append(" of ").append(events.size()).append("):\n");
        events.stream().limit(firstEvents).forEach(e -> sb.append("    ").append(e).append('\n'));
        return sb.toString();
    }
}

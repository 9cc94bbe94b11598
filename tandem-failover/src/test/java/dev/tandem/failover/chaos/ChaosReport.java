package dev.tandem.failover.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The results of a run: each scenario's description as it finishes, and at the end a table of
 * scenarios run and failed per fault kind with the checks that failed, the fail-overs completed and the
 * longest pause (under NONE every fail-over is a false detection), printed and written to
 * {@code target/chaos-report.txt} with every failed scenario's details.
 */
final class ChaosReport {
    static final int FIRST_VIOLATIONS = 8;
    static final int FIRST_EVENTS = Integer.getInteger("tandem.chaos.events", 25);
    private final String settings;
    private final List<ScenarioResult> results = new ArrayList<>();
    private final long began = System.nanoTime();

    ChaosReport(String settings) {
        this.settings = settings;
    }

    synchronized void add(ScenarioResult r) {
        results.add(r);
    }

    /** The summary table. */
    synchronized String summary() {
        Map<FaultKind, long[]> runFailed = new EnumMap<>(FaultKind.class);
        Map<FaultKind, Map<Check, Integer>> checks = new EnumMap<>(FaultKind.class);
        for (ScenarioResult r : results) {
            long[] rf = runFailed.computeIfAbsent(r.spec().kind(), k -> new long[4]);
            rf[0]++;
            rf[2] += r.migrated();
            rf[3] = Math.max(rf[3], r.maxPauseMs());
            if (r.failed()) {
                rf[1]++;
                r.counts().keySet().forEach(c -> checks.computeIfAbsent(r.spec().kind(), k -> new EnumMap<>(Check.class))
                        .merge(c, 1, Integer::sum));
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append("Chaos run: ").append(settings).append('\n');
        sb.append(String.format("%-24s %4s %6s %6s %6s  %s%n", "fault kind", "run", "failed", "moves", "max ms",
                "scenarios failing each check"));
        long run = 0;
        long failed = 0;
        for (var e : runFailed.entrySet()) {
            run += e.getValue()[0];
            failed += e.getValue()[1];
            StringBuilder c = new StringBuilder();
            checks.getOrDefault(e.getKey(), Map.of()).forEach((k, n) -> c.append(c.isEmpty() ? "" : ", ").append(k).append(' ').append(n));
            long[] v = e.getValue();
            sb.append(String.format("%-24s %4d %6d %6d %6d  %s%n", e.getKey(), v[0], v[1], v[2], v[3], c));
        }
        sb.append(String.format("%-24s %4d %6d %6s %6s  wall %ds%n", "total", run, failed, "", "", Duration.ofNanos(System.nanoTime() - began).toSeconds()));
        return sb.toString();
    }

    /** Writes the summary and every failed scenario's details to {@code file}. */
    synchronized void write(Path file) throws IOException {
        StringBuilder sb = new StringBuilder(summary()).append('\n');
        for (ScenarioResult r : results) {
            if (r.failed()) {
                sb.append(r.describe(FIRST_VIOLATIONS * 3, FIRST_EVENTS * 4)).append('\n');
            }
        }
        sb.append("Passed:\n");
        for (ScenarioResult r : results) {
            if (!r.failed()) {
                sb.append("  ").append(r.spec().displayName()).append(" ").append(r.spec().rerun()).append('\n');
            }
        }
        Files.createDirectories(file.getParent());
        Files.writeString(file, sb);
    }
}

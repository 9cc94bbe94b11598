package dev.tandem.failover.chaos;

import dev.tandem.failover.Topology;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Which scenarios a run makes, from system properties (defaults: the bounded CI set):
 * <ul>
 *   <li>{@code tandem.chaos.master} the master seed (default: a fresh one, printed);</li>
 *   <li>{@code tandem.chaos.scenarios} scenarios per fault kind (default 2; 0 runs none);</li>
 *   <li>{@code tandem.chaos.seconds} traffic per scenario (default 2);</li>
 *   <li>{@code tandem.chaos.kinds} the kinds, comma-separated (default all);</li>
 *   <li>{@code tandem.chaos.seed} with {@code tandem.chaos.kind}: that one scenario alone (with the
 *       kind left out: that seed under every kind of {@code tandem.chaos.kinds});</li>
 *   <li>{@code tandem.chaos.topology} SWITCHED or SWITCHLESS for every scenario (default: drawn);</li>
 *   <li>{@code tandem.chaos.windows} {@code drawn} (default): memory windows in one scenario of four; {@code true}: in every
 *       scenario; {@code false}: in none;</li>
 *   <li>{@code tandem.chaos.keepDumps} {@code true} keeps the dump each injected fatal error writes (deleted by default).</li>
 * </ul>
 */
record ChaosSettings(long master, int perKind, Duration traffic, List<FaultKind> kinds, Long seed, Topology topology, Boolean windows) {
    static ChaosSettings fromSystemProperties() {
        String master = System.getProperty("tandem.chaos.master");
        String seed = System.getProperty("tandem.chaos.seed");
        String kind = System.getProperty("tandem.chaos.kind");
        String kinds = System.getProperty("tandem.chaos.kinds");
        String topology = System.getProperty("tandem.chaos.topology");
        String windows = System.getProperty("tandem.chaos.windows");
        List<FaultKind> k = kind != null ? List.of(FaultKind.valueOf(kind.strip().toUpperCase(Locale.ROOT)))
                : kinds != null ? Arrays.stream(kinds.split(",")).map(s -> FaultKind.valueOf(s.strip().toUpperCase(Locale.ROOT))).toList()
                : List.of(FaultKind.values());
        double seconds = Double.parseDouble(System.getProperty("tandem.chaos.seconds", "2"));
        return new ChaosSettings(master != null ? Seeds.parse(master) : ThreadLocalRandom.current().nextLong(),
                Integer.parseInt(System.getProperty("tandem.chaos.scenarios", "2")), Duration.ofMillis((long) (seconds * 1000)), k,
                seed != null ? Seeds.parse(seed) : null,
                topology != null ? Topology.valueOf(topology.strip().toUpperCase(Locale.ROOT)) : null,
                windows == null || windows.strip().equalsIgnoreCase("drawn") ? null : Boolean.valueOf(windows.strip()));
    }

    /** The scenarios, grouped by kind: each seed derives from the master, kind and index (or is the one given). */
    List<ScenarioSpec> scenarios() {
        List<ScenarioSpec> l = new ArrayList<>();
        for (FaultKind kind : kinds) {
            if (seed != null) {
                l.add(ScenarioSpec.of(seed, kind, traffic, topology, windows));
                continue;
            }
            for (int i = 0; i < perKind; i++) {
                l.add(ScenarioSpec.of(Seeds.mix(master, kind.ordinal(), i), kind, traffic, topology, windows));
            }
        }
        return l;
    }

    String describe() {
        return seed != null ? "seed " + Seeds.format(seed) + " for " + kinds + ", " + traffic.toMillis() + "ms of traffic"
                : "master seed " + Seeds.format(master) + " (-Dtandem.chaos.master=" + Seeds.format(master) + "), " + perKind
                + " scenarios per kind of " + kinds + ", " + traffic.toMillis() + "ms of traffic each";
    }
}

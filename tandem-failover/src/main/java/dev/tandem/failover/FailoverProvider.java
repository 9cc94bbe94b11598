package dev.tandem.failover;

import dev.tandem.verbs.DeviceName;
import dev.tandem.verbs.DeviceOptions;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.RdmaProvider;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The {@code failover} scheme: {@code failover://IP+IP[+IP...]?node=NAME&topology=switched|switchless
 * &adapters=iwarp&proofEvery=16&proofAfterUs=1000
 * &heartbeatMs=50&misses=3&moveTimeoutMs=3000} opens a {@link FailoverDevice} over one adapter per
 * address, each opened as {@code ADAPTERS://IP}; every other option ({@code crc=off}, say) goes to
 * each adapter's name.
 */
public final class FailoverProvider implements RdmaProvider {
    private static final Set<String> OWN = Set.of("node", "topology", "adapters", "proofEvery", "proofAfterUs", "heartbeatMs", "misses", "moveTimeoutMs");

    /** The provider {@link java.util.ServiceLoader} instantiates. */
    public FailoverProvider() {
    }

    @Override
    public String scheme() {
        return "failover";
    }

    @Override
    public String nameFormat() {
        return "failover://IP+IP[+IP...]?node=NAME[&topology=switched|switchless&adapters=iwarp&proofEvery=N&proofAfterUs=N&heartbeatMs=N&misses=N&moveTimeoutMs=N"
                + "&OPTION=VALUE for each adapter]";
    }

    @Override
    public RdmaDevice open(DeviceName name, DeviceOptions options) {
        return FailoverDevice.open(config(name), options);
    }

    /** The settings {@code name} gives. */
    static FailoverConfig config(DeviceName name) {
        Map<String, String> options = name.options();
        String node = options.get("node");
        if (node == null) {
            throw new InvalidArgumentException("device name failover://" + name.address() + " has no node=NAME; give the node a name"
                    + " that stays the same across restarts");
        }
        String scheme = options.getOrDefault("adapters", "iwarp");
        StringBuilder pass = new StringBuilder();
        for (Map.Entry<String, String> e : options.entrySet()) {
            if (!OWN.contains(e.getKey())) {
                pass.append(pass.isEmpty() ? "?" : "&").append(e.getKey()).append('=').append(e.getValue());
            }
        }
        List<String> adapters = new ArrayList<>();
        for (String ip : name.address().split("\\+", -1)) {
            if (ip.isBlank()) {
                throw new InvalidArgumentException("device name failover://" + name.address() + ": an empty address between '+'");
            }
            adapters.add(scheme + "://" + ip + pass);
        }
        Topology topology = switch (options.getOrDefault("topology", "switched").toLowerCase(Locale.ROOT)) {
            case "switched" -> Topology.SWITCHED;
            case "switchless" -> Topology.SWITCHLESS;
            default -> throw new InvalidArgumentException("topology=" + options.get("topology") + " is not switched or switchless");
        };
        return new FailoverConfig(node, adapters, topology, name.number("proofEvery", 1, 1 << 20, FailoverConfig.PROOF_EVERY),
                Duration.ofNanos(1000L * name.number("proofAfterUs", 1, 10_000_000, (int) (FailoverConfig.PROOF_AFTER.toNanos() / 1000))),
                Duration.ofMillis(name.number("heartbeatMs", 1, 60_000, (int) FailoverConfig.HEARTBEAT.toMillis())),
                name.number("misses", 1, 1000, FailoverConfig.MISSES),
                Duration.ofMillis(name.number("moveTimeoutMs", 1, 600_000, (int) FailoverConfig.MOVE_TIMEOUT.toMillis())));
    }
}

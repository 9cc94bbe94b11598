package dev.tandem.failover.chaos;

import dev.tandem.failover.Topology;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * Everything that defines one scenario, all drawn from its seed and kind: rerunning a seed and kind
 * gives the same nodes, connections, sizes, traffic plan and fault plan (only thread timing differs).
 *
 * @param seed               the scenario's seed; every random choice derives from it
 * @param kind               the fault kind injected
 * @param topology           how the nodes' adapters are cabled
 * @param connections        connections between the nodes (3 or 4), traffic both ways on each
 * @param requestResponse    one node serves: its connections share a receive queue per protection domain,
 *                           and it answers every request on the connection it came on
 * @param traffic            how long the application traffic runs (longer while faults are still undone)
 * @param faults             faults of the kind (pairs for {@link FaultKind#SECOND_FAULT_WHEN_BACK})
 * @param subnet             0: the nodes use 127.0.1.x and 127.0.2.x; 1: 127.0.3.x and 127.0.4.x
 * @param openByName         open the nodes by {@code RdmaDevices.open("failover://...")} rather than {@code FailoverDevice.open}
 * @param driversPerNode     application threads per node that post and poll (1 or 2)
 * @param windows            ends may bind a type-2 memory window over their landing slots, through which the peer's
 *                           named Writes then go half of the time
 */
record ScenarioSpec(long seed, FaultKind kind, Topology topology, int connections, boolean requestResponse, Duration traffic,
                    int faults, int subnet, boolean openByName, int driversPerNode, boolean windows) {

    /**
     * The scenario {@code seed} and {@code kind} define, with {@code traffic} of traffic; {@code topology} and
     * {@code windows} null to draw them.
     */
    static ScenarioSpec of(long seed, FaultKind kind, Duration traffic, Topology topology, Boolean windows) {
        SplittableRandom r = new SplittableRandom(Seeds.mix(seed, 1));
        Topology t = r.nextInt(4) == 0 && kind.allowsSwitchless() ? Topology.SWITCHLESS : Topology.SWITCHED;
        if (topology != null) {
            t = topology == Topology.SWITCHLESS && !kind.allowsSwitchless() ? Topology.SWITCHED : topology;
        }
        int connections = 3 + r.nextInt(2);
        boolean requestResponse = r.nextInt(3) == 0;
        int faults = switch (kind) {
            case NONE -> 0;
            case BOTH_ADAPTERS_OF_A_NODE -> 1;
            case SECOND_FAULT_WHEN_BACK -> 1 + r.nextInt(2);
            default -> 1 + r.nextInt(3);
        };
        int subnet = r.nextInt(2);
        boolean byName = r.nextBoolean();
        int drivers = 1 + r.nextInt(2);
        boolean w = windows != null ? windows : r.nextInt(4) == 0;
        return new ScenarioSpec(seed, kind, t, connections, requestResponse, traffic, faults, subnet, byName, drivers, w);
    }

    /** The address of {@code node}'s ({@code 1} for a, {@code 2} for b) adapter {@code k}. */
    String address(int node, int k) {
        return "127.0." + (1 + 2 * subnet + k) + "." + node;
    }

    /** How a test and a report name it. */
    String displayName() {
        return kind + " seed=" + Seeds.format(seed) + " " + topology;
    }

    /** One line with every parameter. */
    String describe() {
        return displayName() + " connections=" + connections + (requestResponse ? " request/response over SRQs" : " both ways")
                + " traffic=" + traffic.toMillis() + "ms faults=" + faults + " adapters=" + address(1, 0) + "," + address(1, 1)
                + "|" + address(2, 0) + "," + address(2, 1) + " open=" + (openByName ? "RdmaDevices.open" : "FailoverDevice.open")
                + " drivers/node=" + driversPerNode + (windows ? " windows" : "");
    }

    /** The system properties that run this scenario alone. */
    String rerun() {
        return "-Dtandem.chaos.seed=" + Seeds.format(seed) + " -Dtandem.chaos.kind=" + kind + " -Dtandem.chaos.seconds="
                + traffic.toMillis() / 1000.0 + " -Dtandem.chaos.topology=" + topology + " -Dtandem.chaos.windows=" + windows;
    }
}

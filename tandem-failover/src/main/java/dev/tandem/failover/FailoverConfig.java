package dev.tandem.failover;

import dev.tandem.provider.NodeKeyTable;
import dev.tandem.verbs.DeviceName;
import dev.tandem.verbs.InvalidArgumentException;

import java.time.Duration;
import java.util.List;

/**
 * How to open a {@link FailoverDevice}.
 *
 * @param nodeName   this node's name, the same across restarts (peers know a restarted node by it)
 * @param adapters   the names of the adapters to run over, in order (adapter k of a switchless node is
 *                   cabled to adapter k of its peers), e.g. {@code iwarp://127.0.1.1}; two or more
 * @param topology   how the adapters are cabled
 * @param proofEvery a proof (an RDMA Read that shows the peer holds what came before it) follows at
 *                   the latest every this many Sends and Writes
 * @param proofAfter a proof follows at the latest this long after the oldest Send or Write it covers
 * @param heartbeat  how often each path of a connection is probed (an RDMA Read of the peer's proof region)
 * @param misses     a path whose probe stays unanswered this many heartbeats is a silent link: it fails over
 * @param moveTimeout the one deadline of the layer's waits: a move of the Sends the peer does not answer
 *                   within it (no REPORT, no MIGRATED) ends the connection with no path left, and the
 *                   sides' disagreements (a BYE in doubt, a bind that must finish before a Send) wait at
 *                   most this long; a connect's own timeout covers all its paths
 */
public record FailoverConfig(String nodeName, List<String> adapters, Topology topology, int proofEvery, Duration proofAfter,
                             Duration heartbeat, int misses, Duration moveTimeout) {
    /** Default {@link #proofEvery}. */
    public static final int PROOF_EVERY = 16;
    /** Default {@link #proofAfter}. */
    public static final Duration PROOF_AFTER = Duration.ofMillis(1);
    /** Default {@link #heartbeat}. */
    public static final Duration HEARTBEAT = Duration.ofMillis(50);
    /** Default {@link #misses}: with the default heartbeat, a silent link is found after 150 to 200 ms. */
    public static final int MISSES = 3;
    /** Default {@link #moveTimeout}. */
    public static final Duration MOVE_TIMEOUT = Duration.ofSeconds(3);

    public FailoverConfig {
        NodeKeyTable.checkName(nodeName);
        if (adapters == null || adapters.size() < 2) {
            throw new InvalidArgumentException("a fail-over device needs two or more adapters, got " + adapters);
        }
        adapters = List.copyOf(adapters);
        for (String a : adapters) {
            DeviceName.parse(a);
        }
        if (adapters.size() > Hello.MAX_ADAPTERS) {
            throw new InvalidArgumentException("a fail-over device runs over at most " + Hello.MAX_ADAPTERS + " adapters, got " + adapters.size());
        }
        if (topology == null) {
            throw new InvalidArgumentException("topology is null; give SWITCHED or SWITCHLESS");
        }
        if (proofEvery < 1) {
            throw new InvalidArgumentException("proofEvery " + proofEvery + " must be 1 or more");
        }
        if (proofAfter == null || proofAfter.isNegative() || proofAfter.isZero()) {
            throw new InvalidArgumentException("proofAfter " + proofAfter + " must be positive");
        }
        if (heartbeat == null || heartbeat.toMillis() < 1) {
            throw new InvalidArgumentException("heartbeat " + heartbeat + " must be 1 ms or more");
        }
        if (misses < 1) {
            throw new InvalidArgumentException("misses " + misses + " must be 1 or more");
        }
        if (moveTimeout == null || moveTimeout.toMillis() < 1) {
            throw new InvalidArgumentException("moveTimeout " + moveTimeout + " must be 1 ms or more");
        }
    }

    /** As the full constructor, with the default {@link #moveTimeout}. */
    public FailoverConfig(String nodeName, List<String> adapters, Topology topology, int proofEvery, Duration proofAfter,
                          Duration heartbeat, int misses) {
        this(nodeName, adapters, topology, proofEvery, proofAfter, heartbeat, misses, MOVE_TIMEOUT);
    }

    /** How long a path may stay silent before it fails over: {@code heartbeat * misses}. */
    public Duration detection() {
        return heartbeat.multipliedBy(misses);
    }

    /** A switched node {@code nodeName} over {@code adapters} with the default proof batching. */
    public static FailoverConfig of(String nodeName, List<String> adapters) {
        return new FailoverConfig(nodeName, adapters, Topology.SWITCHED, PROOF_EVERY, PROOF_AFTER, HEARTBEAT, MISSES, MOVE_TIMEOUT);
    }

    public FailoverConfig withTopology(Topology t) {
        return new FailoverConfig(nodeName, adapters, t, proofEvery, proofAfter, heartbeat, misses, moveTimeout);
    }

    public FailoverConfig withProofEvery(int n) {
        return new FailoverConfig(nodeName, adapters, topology, n, proofAfter, heartbeat, misses, moveTimeout);
    }

    public FailoverConfig withProofAfter(Duration d) {
        return new FailoverConfig(nodeName, adapters, topology, proofEvery, d, heartbeat, misses, moveTimeout);
    }

    /** These settings with a path probed every {@code interval}, failing over after {@code missed} unanswered probes. */
    public FailoverConfig withHeartbeat(Duration interval, int missed) {
        return new FailoverConfig(nodeName, adapters, topology, proofEvery, proofAfter, interval, missed, moveTimeout);
    }

    /** These settings with {@code d} as the deadline of a move the peer does not answer. */
    public FailoverConfig withMoveTimeout(Duration d) {
        return new FailoverConfig(nodeName, adapters, topology, proofEvery, proofAfter, heartbeat, misses, d);
    }
}

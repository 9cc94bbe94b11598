package dev.tandem.tools.lab;

import dev.tandem.failover.check.Verdict;
import dev.tandem.tools.lab.node.NodePair;
import dev.tandem.tools.lab.node.NodeReport;
import dev.tandem.verbs.CompletionStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fail-over across lab namespaces, with real processes: node a (the sender of a checked stream of Sends
 * and Writes) in host 1, node b (its receiver) in host 2, each a fail-over device over its host's two
 * adapters. A pulled cable of the adapter carrying the connection and (switched) a dead switch move the
 * connection without the application seeing anything; the path comes back after the heal; the verdict is
 * clean. When the peer process is killed, a's QP ends as on a plain adapter: ERROR, its work flushed, within
 * a bound. Needs root and {@code ip netns}; skipped with the reason elsewhere.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LabFailoverTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final int HEARTBEAT_MS = 50;
    private static final int MISSES = 3;

    private Ip ip;
    private String prefix;
    private final List<String> told = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() {
        ip = LabFixture.ipOrSkip();
        prefix = LabFixture.uniquePrefix();
    }

    @AfterEach
    void tearDown() {
        if (ip != null) {
            Lab.down(prefix, ip);
            assertThat(LabStatus.namespaces(prefix, ip)).as("namespaces left by the test").isEmpty();
        }
    }

    @Test
    void switchedAPulledCableADeadSwitchAndAFatalErrorOfEitherNodesAdapterLoseNothingAndAKilledPeerEndsTheQp() throws IOException {
        Lab lab = Lab.up(new LabPlan(prefix, Topology.SWITCHED, 2, 2), ip);
        NodePair p = NodePair.start(lab, HEARTBEAT_MS, MISSES, e -> told.add(e.node() + ": " + e.text()));
        try (p) {
            failAndHeal(lab, p, "h1.a", 1000);
            failAndHeal(lab, p, "switch", 2000);
            fatalAndReset(p, "a", 3000);
            fatalAndReset(p, "b", 4000);
            assertClean(p.finish(5000, WAIT), 5000);
            peerKilled(p);
        }
        assertThat(p.anyAlive()).as("node processes left after close").isFalse();
    }

    @Test
    void switchlessAPulledCableLosesNothingAndAKilledPeerEndsTheQp() throws IOException {
        Lab lab = Lab.up(new LabPlan(prefix, Topology.SWITCHLESS, 2, 2), ip);
        NodePair p = NodePair.start(lab, HEARTBEAT_MS, MISSES, e -> told.add(e.node() + ": " + e.text()));
        try (p) {
            failAndHeal(lab, p, "h1.a", 1000);
            assertClean(p.finish(2000, WAIT), 2000);
            peerKilled(p);
        }
        assertThat(p.anyAlive()).as("node processes left after close").isFalse();
    }

    /**
     * Streams {@code before} messages, then fails the {@code kind} ({@code h1.a} or {@code switch}) of the adapter
     * carrying a's sends while a keeps posting, waits for a's MIGRATED to the other adapter, heals it and waits
     * until a's path there is set up again. Only events told after the fault count: one fault may move a twice (its
     * sends, then its receives when the peer moves), and the second move of an earlier fault must not pass for this one's.
     */
    private void failAndHeal(Lab lab, NodePair p, String kind, long before) {
        p.sendUpTo(before);
        p.awaitStreamed(before, WAIT);
        int carrying = p.carryingAdapterNow(WAIT);
        String target = kind + carrying;
        p.sendUpTo(before + 500); // the application keeps posting through the fault
        int eventsFrom = p.events().size();
        lab.fail(target);
        int migrated = p.awaitEvent("a", "Migrated", eventsFrom, WAIT);
        assertThat(p.events().get(migrated).adapter()).as("a moved off adapter %d after %s failed; told: %s", carrying - 1, target, told)
                .isNotEqualTo(carrying - 1);
        p.awaitStreamed(before + 500, WAIT);
        assertThat(p.halves().broken()).as("no error while a path remained; told: %s", told).isFalse();
        lab.heal(target);
        awaitRestoredOn(p, carrying - 1, migrated, "the healed path on a's adapter " + (carrying - 1));
    }

    /**
     * Streams {@code before} messages, then the adapter of {@code node} on the path carrying a's sends gets a
     * fatal error (a's own adapter, or b's at the other end of that path) while a keeps posting; waits for a's
     * MIGRATED (told after the fault), resets the adapter and waits until a path to it is set up again.
     */
    private void fatalAndReset(NodePair p, String node, long before) {
        p.sendUpTo(before);
        p.awaitStreamed(before, WAIT);
        // the adapter at node's end of the path carrying a's sends (with cross paths, b's need not be a's)
        int carrying = (node.equals("a") ? p.carryingAdapterNow(WAIT) : p.receivingAdapterNow(WAIT)) - 1;
        p.sendUpTo(before + 500);
        int eventsFrom = p.events().size();
        p.adapterFails(node, carrying);
        int migrated = p.awaitEvent("a", "Migrated", eventsFrom, WAIT);
        if (node.equals("a")) {
            assertThat(p.events().get(migrated).adapter()).as("a moved off adapter %d after its adapter failed; told: %s", carrying, told)
                    .isNotEqualTo(carrying);
        }
        p.awaitStreamed(before + 500, WAIT);
        assertThat(p.halves().broken()).as("no error while a path remained; told: %s", told).isFalse();
        p.adapterReset(node, carrying);
        // a's own adapter: its paths come back there; b's: a's paths to it (from any of a's adapters, cross paths too)
        awaitRestoredOn(p, node.equals("a") ? carrying : -1, migrated, "a path to the adapter that was reset set up again");
    }

    /** Waits (bounded) for a's PathRestored on adapter {@code k} (any adapter when -1) after event {@code from}. */
    private void awaitRestoredOn(NodePair p, int k, int from, String what) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        int at = from;
        while (true) {
            int restored = p.awaitEvent("a", "PathRestored", at, Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            if (k < 0 || p.events().get(restored).adapter() == k) {
                return;
            }
            assertThat(System.nanoTime()).as("%s; told: %s", what, told).isLessThan(deadline);
            at = restored + 1;
        }
    }

    private void assertClean(Verdict v, long messages) {
        assertThat(v.clean()).as("verdict %s; told: %s", v, told).isTrue();
        assertThat(v.ending()).isEqualTo(Verdict.Ending.COMPLETE);
        assertThat(v.messagesSent()).isEqualTo(messages).isEqualTo(v.messagesReceived());
        assertThat(v.blocksVerified()).isEqualTo(messages);
        assertThat(v.lost() + v.duplicated() + v.reordered() + v.errors() + v.refused()).isZero();
    }

    /** Kills b mid-stream: a's QP must go to ERROR and its work be flushed within the bound, never a hang. */
    private void peerKilled(NodePair p) {
        long sent = p.sender().half().sent();
        p.sendUpTo(sent + 1_000_000);
        p.awaitStreamed(sent + 200, WAIT);
        p.killReceiver();
        p.await(() -> !(p.sender().qpState().equals("ERROR") && p.sender().half().broken() && p.sender().half().drained()), WAIT,
                "a's QP in ERROR with its work flushed after b was killed");
        NodeReport.SenderState a = p.sender();
        assertThat(a.half().findings().errorsByStatus()).as("a's outstanding work completed flushed").containsKey(CompletionStatus.WR_FLUSH_ERR);
        assertThat(p.events()).as("a said no path was left; told: %s", told)
                .anyMatch(e -> e.node().equals("a") && e.kind().equals("NoPathLeft"));
    }
}

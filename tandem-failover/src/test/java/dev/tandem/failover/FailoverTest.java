package dev.tandem.failover;

import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.LinkControl;
import dev.tandem.verbs.QueuePair;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A connection between two fail-over nodes keeps every Send and Write through a fault of one of its
 * adapters: each message arrives once, in order, with its bytes, and the application sees only
 * successful completions; fail, heal and fail the other path works any number of times.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FailoverTest {
    private static final int MESSAGES = 400;
    private TwoNodes nodes;

    @AfterEach
    void close() {
        if (nodes != null) {
            nodes.close();
        }
    }

    private void failsOver(Consumer<TwoNodes> fault) throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED);
        FailoverWatch wa = nodes.a.watch();
        FailoverWatch wb = nodes.b.watch();
        nodes.stream(MESSAGES, MESSAGES / 2, () -> fault.accept(nodes));
        List<FailoverEvent> ea = TwoNodes.eventsUntil(wa, FailoverEvent.Migrated.class);
        List<FailoverEvent> eb = TwoNodes.eventsUntil(wb, FailoverEvent.Migrated.class);
        assertThat(ea).as("node a's fail-over").anyMatch(e -> e instanceof FailoverEvent.Migrated);
        assertThat(eb).as("node b's fail-over").anyMatch(e -> e instanceof FailoverEvent.Migrated);
        assertThat(ea).noneMatch(e -> e instanceof FailoverEvent.NoPathLeft);
    }

    @Test
    void aLocalAdapterFatalErrorMovesTheConnectionWithNothingLostTwiceOrOutOfOrder() throws Exception {
        failsOver(n -> ((AdapterControl) n.a.adapters().get(0)).injectFatalError("test: PCI error on a's adapter 0"));
    }

    @Test
    void aRemoteAdapterFatalErrorMovesTheConnection() throws Exception {
        failsOver(n -> ((AdapterControl) n.b.adapters().get(0)).injectFatalError("test: PCI error on b's adapter 0"));
    }

    @Test
    void aLinkThatGoesSilentIsFoundByHeartbeatAndTheConnectionMoves() throws Exception {
        failsOver(n -> ((LinkControl) n.b.adapters().get(0)).linkDown());
    }

    @Test
    void aConnectionOnASharedReceiveQueueFailsOverWithItsReceives() throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED, true);
        FailoverWatch wb = nodes.b.watch();
        int path = ((FailoverSharedReceiveQueue) nodes.sb.srq()).adapter();
        nodes.stream(MESSAGES, MESSAGES / 2, () -> ((AdapterControl) nodes.b.adapters().get(path))
                .injectFatalError("test: the adapter of b's shared receive queue"));
        assertThat(TwoNodes.eventsUntil(wb, FailoverEvent.Migrated.class)).anyMatch(e -> e instanceof FailoverEvent.Migrated);
    }

    @Test
    void failHealAndFailTheOtherPathAnyNumberOfTimes() throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED);
        FailoverWatch wa = nodes.a.watch();
        FailoverWatch wb = nodes.b.watch();
        FailoverQueuePair qa = nodes.sa.failover();
        try {
            for (int round = 0; round < 3; round++) {
                int path = qa.sendAdapter();
                AdapterControl failing = (AdapterControl) nodes.a.adapters().get(path);
                nodes.stream(MESSAGES, MESSAGES / 2, () -> failing.injectFatalError("test: round with adapter " + path));
                assertThat(qa.sendAdapter()).as("the connection left the failed adapter").isNotEqualTo(path);
                failing.reset(Duration.ofSeconds(5));
                nodes.awaitAllPaths();
                int other = qa.sendAdapter();
                LinkControl link = (LinkControl) nodes.a.adapters().get(other);
                nodes.stream(MESSAGES, MESSAGES / 2, link::linkDown);
                assertThat(qa.sendAdapter()).as("the connection left the silent link").isNotEqualTo(other);
                link.linkUp();
                nodes.awaitAllPaths();
            }
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nnode a: " + TwoNodes.events(wa) + "\nnode b: " + TwoNodes.events(wb), e);
        }
        List<FailoverEvent> ea = TwoNodes.events(wa);
        assertThat(ea.stream().filter(e -> e instanceof FailoverEvent.Migrated).count()).as("six fail-overs of node a: " + ea).isEqualTo(6);
        assertThat(ea).noneMatch(e -> e instanceof FailoverEvent.NoPathLeft);
    }

    @Test
    void aBackupPathThatFailsIsToldAndSetUpAgainAndLateEvidenceAboutItsOldQpLeavesTheNewPathAlone() throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED);
        FailoverWatch wa = nodes.a.watch();
        FailoverQueuePair qa = nodes.sa.failover();
        int backup = 1 - qa.sendAdapter();
        assertThat(qa.receivePathAdapter()).as("a receives on the adapter it sends from").isEqualTo(qa.sendAdapter());
        Path backupPath = TwoNodes.pathOn(qa, backup);
        QueuePair before = backupPath.qp;
        AdapterControl failing = (AdapterControl) nodes.a.adapters().get(backup);
        failing.injectFatalError("test: PCI error on a's backup adapter");
        FailoverEvent lost = awaitEvent(wa, e -> e instanceof FailoverEvent.BackupLost l && l.adapter() == backup);
        assertThat(((FailoverEvent.BackupLost) lost).qpNumber()).isEqualTo(qa.qpNumber());
        failing.reset(Duration.ofSeconds(5));
        nodes.awaitAllPaths();
        assertThat(backupPath.qp).as("the healed path runs on a fresh QP").isNotSameAs(before);

        TwoNodes.events(wa); // what the fault and the heal told (both of the adapter's paths were backups)
        // an event or completion of the QP the path had before the heal, handled late, is about that QP only
        qa.moves().failover(backupPath, before, "test: a late event of the QP before the heal");
        assertThat(qa.livePaths()).as("paths after late evidence about the old QP").isEqualTo(qa.pathCount());
        assertThat(TwoNodes.events(wa)).noneMatch(e -> e instanceof FailoverEvent.BackupLost);

        // and the healed backup carries the connection when the primary fails
        int primary = qa.sendAdapter();
        nodes.stream(MESSAGES, MESSAGES / 2, () -> ((AdapterControl) nodes.a.adapters().get(primary))
                .injectFatalError("test: PCI error on a's primary adapter"));
        assertThat(qa.sendAdapter()).isEqualTo(backup);
    }

    private static FailoverEvent awaitEvent(FailoverWatch w, Predicate<FailoverEvent> wanted) {
        long deadline = System.nanoTime() + TwoNodes.WAIT.toNanos();
        List<FailoverEvent> seen = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            FailoverEvent e = w.poll(Duration.ofMillis(100));
            if (e != null) {
                seen.add(e);
                if (wanted.test(e)) {
                    return e;
                }
            }
        }
        throw new AssertionError("the awaited event did not come within " + TwoNodes.WAIT.toSeconds() + " s; saw " + seen);
    }
}

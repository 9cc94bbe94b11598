package dev.tandem.failover;

import dev.tandem.verbs.QueuePair;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A path set up again after a failure is a new set-up: what was noted about its earlier QP (the peer
 * closed it without a BYE, and the wait for one was still running when the path failed another way)
 * says nothing about the new one, which stays up.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PathHealingTest {
    private TwoNodes nodes;

    @AfterEach
    void close() {
        if (nodes != null) {
            nodes.close();
        }
    }

    @Test
    void aCloseWithoutByeNotedForAPathsEarlierQpDoesNotFailItsNewOne() throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED);
        nodes.stream(100, 100, () -> { });
        FailoverQueuePair qa = nodes.sa.failover();
        FailoverQueuePair qb = nodes.sb.failover();
        Path backup = qa.paths.all().stream().filter(p -> !qa.carries(p)).findFirst().orElseThrow();
        QueuePair before = backup.qp;
        Path peerEnd = qb.paths.get(backup.id);
        FailoverWatch wa = nodes.a.watch();

        peerEnd.qp.disconnect(); // the peer closes its end without a BYE: a waits for one (it may come) before failing the path
        long deadline = System.nanoTime() + Opened.WAIT.toNanos();
        while (backup.closedSince == 0) {
            assertThat(System.nanoTime()).as("a to note the close without a BYE").isLessThan(deadline);
            qa.sendCq.adapterEvent();
            Thread.onSpinWait();
        }
        qa.moves().failover(backup, null, "test: the path failed another way while the wait for a BYE ran");
        nodes.awaitAllPaths(); // set up again, on a new QP
        assertThat(backup.qp).isNotSameAs(before);
        TwoNodes.events(wa);

        // a second on: the new set-up stays up (before, the note about the old QP failed each new one as it came up)
        long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        int messages = 100;
        while (System.nanoTime() < until) {
            nodes.stream(50, 50, () -> { });
            messages += 50;
        }
        List<FailoverEvent> ea = TwoNodes.events(wa);
        assertThat(ea).as("node a after the path was set up again").noneMatch(e -> e instanceof FailoverEvent.BackupLost);
        assertThat(backup.up).isTrue();
        assertThat(qa.livePaths()).isEqualTo(qa.pathCount());
    }
}

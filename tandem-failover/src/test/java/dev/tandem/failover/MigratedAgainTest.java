package dev.tandem.failover;

import dev.tandem.verbs.QueuePair;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A MIGRATED that names the path this side already sends on, over the QP its requests went out on, moves
 * nothing: the peer wrote its record again (a write of it was refused and went again over another path),
 * or moved its receives onto the path they were on. What the peer holds completes; nothing is posted
 * again, the path is not failed, no move is told.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MigratedAgainTest {
    private TwoNodes nodes;

    @AfterEach
    void close() {
        if (nodes != null) {
            nodes.close();
        }
    }

    @Test
    void aMigratedNamingThePathTheSendsAlreadyTakeMovesNothing() throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED);
        nodes.stream(40, 40, () -> { });
        FailoverQueuePair qa = nodes.sa.failover();
        FailoverQueuePair qb = nodes.sb.failover();
        Path sends = qa.paths.sendPath();
        QueuePair wire = sends.qp;
        assertThat(qb.paths.receivePath().id).as("b receives where a sends").isEqualTo(sends.id);

        FailoverWatch wa = nodes.a.watch();
        qb.lock.lock();
        try {
            qb.mail().migrated(qb.paths.receivePath());
        } finally {
            qb.lock.unlock();
        }
        List<FailoverEvent> told = TwoNodes.eventsUntil(wa, FailoverEvent.Moved.class);
        assertThat(told).as("a took the MIGRATED").anyMatch(e -> e instanceof FailoverEvent.Moved);
        assertThat(told).as("a moved nothing: no Holding, no Migrated, no path lost (told: %s)", told)
                .noneMatch(e -> e instanceof FailoverEvent.Holding || e instanceof FailoverEvent.Migrated
                        || e instanceof FailoverEvent.BackupLost || e instanceof FailoverEvent.PathDown);
        FailoverEvent.Moved moved = (FailoverEvent.Moved) told.stream().filter(e -> e instanceof FailoverEvent.Moved).findFirst().orElseThrow();
        assertThat(moved.sendsReposted() + moved.writesReposted()).as("requests posted again").isZero();
        assertThat(qa.paths.sendPath()).as("a's send path").isSameAs(sends);
        assertThat(sends.up).as("the path is not failed").isTrue();
        assertThat(sends.qp).as("on the QP the requests went out on").isSameAs(wire);

        nodes.stream(40, 40, () -> { });
        assertThat(qb.receiving.duplicates()).as("messages b received twice").isZero();
        assertThat(TwoNodes.events(wa)).as("the stream after it moved nothing")
                .noneMatch(e -> e instanceof FailoverEvent.Holding || e instanceof FailoverEvent.PathDown);
    }
}

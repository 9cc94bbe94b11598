package dev.tandem.failover;

import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.LinkControl;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a move tells the watchers (the events operators and the RAS counters read): how many of the
 * application's Sends and Writes it posted again (exactly those the peer did not hold), that the move
 * ended (Migrated, on the adapter the work runs on now, with its pause), and on which side it began; and
 * that a MIGRATED which moves nothing tells no move.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MoveEventsTest {

    @Test
    void aMoveRepostsExactlyTheSendsAndWritesThatWereOnTheSilentLinkAndSaysHowMany() throws Exception {
        try (TwoNodes n = new TwoNodes(2, Topology.SWITCHED)) {
            FailoverQueuePair qa = n.sa.failover();
            FailoverWatch wa = n.a.watch();
            int dead = qa.sendAdapter();
            ((LinkControl) n.a.adapters().get(dead)).linkDown();
            // into the silent link, before anything finds it: Write, Send, Write, Send, Send (none can arrive)
            for (int i = 0; i < 5; i++) {
                long at = (long) i * TwoNodes.SIZE;
                n.sa.region().segment().set(ValueLayout.JAVA_INT_UNALIGNED, at, 1000 + i);
                Sge sge = new Sge(n.sa.region(), at, TwoNodes.SIZE);
                n.sa.qp().postSend(i == 0 || i == 2
                        ? new WorkRequest.RdmaWrite(i, sge, (long) TwoNodes.SIZE * TwoNodes.DEPTH + at, n.sb.region().rkey(), WrFlags.SIGNALED)
                        : new WorkRequest.Send(i, sge, WrFlags.SIGNALED));
            }
            for (int i = 0; i < 5; i++) {
                WorkCompletion wc = TwoNodes.awaitOne(n.sa.cq(), "a's completion " + i);
                assertThat(wc.status()).as("%s", wc).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(wc.wrId()).as("a's completions in posting order").isEqualTo(i);
            }
            for (int i = 0; i < 3; i++) {
                WorkCompletion wc = TwoNodes.awaitOne(n.sb.cq(), "b's receive " + i);
                assertThat(wc.status()).as("%s", wc).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(wc.wrId()).as("b's receives in posting order").isEqualTo(i);
                assertThat(n.sb.region().segment().get(ValueLayout.JAVA_INT_UNALIGNED, (long) i * TwoNodes.SIZE))
                        .as("b's message %d", i).isEqualTo(new int[] {1001, 1003, 1004}[i]);
            }

            List<FailoverEvent> events = TwoNodes.eventsUntil(wa, FailoverEvent.Migrated.class);
            List<FailoverEvent> mine = events.stream().filter(e -> qpOf(e) == qa.qpNumber()).toList();
            assertThat(sum(mine, FailoverEvent.Moved::sendsReposted)).as("Sends posted again: %s", mine).isEqualTo(3);
            assertThat(sum(mine, FailoverEvent.Moved::writesReposted)).as("Writes posted again: %s", mine).isEqualTo(2);
            assertThat(mine).filteredOn(FailoverEvent.Holding.class::isInstance).as("one move began: %s", mine).hasSize(1);
            assertThat(mine).filteredOn(FailoverEvent.Migrated.class::isInstance).singleElement()
                    .satisfies(e -> {
                        FailoverEvent.Migrated m = (FailoverEvent.Migrated) e;
                        assertThat(m.toAdapter()).as("the Sends run on the adapter with a link").isEqualTo(1 - dead);
                        assertThat(m.pauseNanos()).as("the pause, from the first evidence").isPositive()
                                .isLessThan(TwoNodes.WAIT.toNanos());
                    });
            assertThat(qa.sendAdapter()).isEqualTo(1 - dead);
        }
    }

    /** Whichever evidence of an adapter's fatal error comes first (its event, a QP's error), the move names the adapter's failure. */
    @Test
    void aMoveAfterAnAdaptersFatalErrorNamesItWhicheverEvidenceCameFirst() throws Exception {
        try (TwoNodes n = new TwoNodes(2, Topology.SWITCHED)) {
            FailoverQueuePair qa = n.sa.failover();
            FailoverWatch wa = n.a.watch();
            int dead = qa.sendAdapter();
            n.stream(100, 50, () -> ((AdapterControl) n.a.adapters().get(dead)).injectFatalError("test: a's adapter"));
            List<FailoverEvent> mine = TwoNodes.eventsUntil(wa, FailoverEvent.Migrated.class).stream()
                    .filter(e -> qpOf(e) == qa.qpNumber()).toList();
            assertThat(mine).filteredOn(FailoverEvent.Holding.class::isInstance).singleElement().satisfies(e -> {
                FailoverEvent.Holding h = (FailoverEvent.Holding) e;
                assertThat(h.fromAdapter()).isEqualTo(dead);
                assertThat(FailoverCause.of(h.cause())).as("cause %s", h.cause()).isEqualTo(FailoverCause.ADAPTER_FATAL);
                assertThat(h.cause()).contains("adapter " + dead + " failed").contains("test: a's adapter");
            });
        }
    }

    /**
     * A MIGRATED that names the path the Sends already take, over the QP they went out on (the peer wrote its
     * record again: a write of it was refused and went again over another path), moves nothing: what the peer
     * holds completes; nothing is posted again, the path is not failed, no Holding or Migrated is told.
     */
    @Test
    void aMigratedNamingThePathTheSendsAlreadyTakeMovesNothing() throws Exception {
        try (TwoNodes n = new TwoNodes(2, Topology.SWITCHED)) {
            n.stream(40, 40, () -> { });
            FailoverQueuePair qa = n.sa.failover();
            FailoverQueuePair qb = n.sb.failover();
            Path sends = qa.paths.sendPath();
            QueuePair wire = sends.qp;
            assertThat(qb.paths.receivePath().id).as("b receives where a sends").isEqualTo(sends.id);

            FailoverWatch wa = n.a.watch();
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
            assertThat(sum(told, FailoverEvent.Moved::sendsReposted) + sum(told, FailoverEvent.Moved::writesReposted))
                    .as("requests posted again").isZero();
            assertThat(qa.paths.sendPath()).as("a's send path").isSameAs(sends);
            assertThat(sends.up).as("the path is not failed").isTrue();
            assertThat(sends.qp).as("on the QP the requests went out on").isSameAs(wire);

            n.stream(40, 40, () -> { });
            assertThat(qb.receiving.duplicates()).as("messages b received twice").isZero();
            assertThat(TwoNodes.events(wa)).as("the stream after it moved nothing")
                    .noneMatch(e -> e instanceof FailoverEvent.Holding || e instanceof FailoverEvent.PathDown);
        }
    }

    private static int qpOf(FailoverEvent e) {
        return switch (e) {
            case FailoverEvent.Holding h -> h.qpNumber();
            case FailoverEvent.Moved m -> m.qpNumber();
            case FailoverEvent.Migrated m -> m.qpNumber();
            default -> -1;
        };
    }

    private static int sum(List<FailoverEvent> events, ToIntFunction<FailoverEvent.Moved> f) {
        return events.stream().filter(FailoverEvent.Moved.class::isInstance).mapToInt(e -> f.applyAsInt((FailoverEvent.Moved) e)).sum();
    }
}

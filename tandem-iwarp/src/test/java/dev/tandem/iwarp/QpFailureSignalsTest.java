package dev.tandem.iwarp;

import dev.tandem.ras.ErrorEntry;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasReader;
import dev.tandem.ras.TraceComponent;
import dev.tandem.ras.TraceLevel;
import dev.tandem.ras.TraceRecord;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.SharedReceiveQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a QP's move to ERROR tells besides its state and flushed work: the async events, in the order
 * rdma_cm gives them for iWARP (the error event first, then DISCONNECTED for every end of a connection,
 * none for a QP being closed, then LAST_WQE_REACHED for a QP on a shared receive queue), the adapter's error
 * log (failures with an error event; not the consumer's own ending, not an orderly close by the peer),
 * the QP trace, and the resource registry's line for the QP.
 */
@Timeout(60)
class QpFailureSignalsTest {
    /** How long a test watches for an event that must not come. */
    private static final Duration QUIET = Duration.ofMillis(200);

    /** The events of {@code device} about {@code qp} up to and including its DISCONNECTED (bounded). */
    private static List<AsyncEventType> eventsUntilDisconnected(RdmaDevice device, QueuePair qp) {
        return eventsUntil(device, qp, AsyncEventType.DISCONNECTED);
    }

    /** The events of {@code device} about {@code qp} up to and including one of type {@code last} (bounded). */
    private static List<AsyncEventType> eventsUntil(RdmaDevice device, QueuePair qp, AsyncEventType last) {
        List<AsyncEventType> seen = new ArrayList<>();
        while (!seen.contains(last)) {
            AsyncEvent e = device.pollAsyncEvent(LoopbackPair.WAIT);
            assertThat(e).as("the next event of " + device.name() + " after " + seen + " within " + LoopbackPair.WAIT).isNotNull();
            if (e.resource() == qp && e.type() != AsyncEventType.COMMUNICATION_ESTABLISHED) {
                seen.add(e.type());
            }
        }
        return seen;
    }

    /** The events of {@code device} about {@code qp} within {@link #QUIET} (other than COMMUNICATION_ESTABLISHED). */
    private static List<AsyncEventType> eventsWithinQuiet(RdmaDevice device, QueuePair qp) {
        List<AsyncEventType> seen = new ArrayList<>();
        long end = System.nanoTime() + QUIET.toNanos();
        long left;
        while ((left = end - System.nanoTime()) > 0) {
            AsyncEvent e = device.pollAsyncEvent(Duration.ofNanos(left));
            if (e != null && e.resource() == qp && e.type() != AsyncEventType.COMMUNICATION_ESTABLISHED) {
                seen.add(e.type());
            }
        }
        return seen;
    }

    /** How often the adapter's error log counted causes starting with {@code prefix} (the adapter's name first). */
    private static long logged(RdmaDevice device, String prefix) {
        try (RasReader reader = RasReader.open(ProcessRas.current().path())) {
            return reader.errors().stream().filter(e -> e.cause().startsWith(device.name() + ": " + prefix)).mapToLong(ErrorEntry::count).sum();
        }
    }

    @Test
    void aResetConnectionRaisesTheErrorEventThenDisconnectedAndIsLoggedOnBothSides() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            p.a.resetConnections();

            assertThat(eventsUntilDisconnected(p.a, p.qpA)).containsExactly(AsyncEventType.QP_FATAL, AsyncEventType.DISCONNECTED);
            assertThat(eventsUntilDisconnected(p.b, p.qpB)).containsExactly(AsyncEventType.QP_FATAL, AsyncEventType.DISCONNECTED);
            assertThat(logged(p.a, "connection lost: ")).as("A's error log").isEqualTo(1);
            assertThat(logged(p.b, "connection lost: ")).as("B's error log").isEqualTo(1);
        }
    }

    @Test
    void anOrderlyDisconnectRaisesOneDisconnectedOnEachSideAndLogsNoError() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            p.qpA.disconnect();

            assertThat(eventsUntilDisconnected(p.a, p.qpA)).as("the consumer's side").containsExactly(AsyncEventType.DISCONNECTED);
            assertThat(eventsUntilDisconnected(p.b, p.qpB)).as("the peer's side").containsExactly(AsyncEventType.DISCONNECTED);
            assertThat(eventsWithinQuiet(p.a, p.qpA)).as("A: no second event").isEmpty();
            assertThat(eventsWithinQuiet(p.b, p.qpB)).as("B: no second event").isEmpty();
            assertThat(logged(p.a, "QP ")).as("the consumer's own ending is no error").isZero();
            assertThat(logged(p.b, "peer closed")).as("an orderly close by the peer is no error").isZero();
        }
    }

    @Test
    void aQpBeingClosedRaisesNothingWhileItsPeerSeesTheConnectionEnd() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            p.qpA.close();

            assertThat(eventsUntilDisconnected(p.b, p.qpB)).containsExactly(AsyncEventType.DISCONNECTED);
            assertThat(eventsWithinQuiet(p.a, p.qpA)).as("events of the closed QP").isEmpty();
        }
    }

    @Test
    void aQpOnASharedReceiveQueueSaysItLeftItWhenItFails() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096);
             SharedReceiveQueue srq = p.pdB.createSharedReceiveQueue(4, 1)) {
            QueuePair client = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA));
            QueuePair server = p.pdB.createQueuePair(QueuePairConfig.of(p.cqB).withSrq(srq));
            p.connect(client, server);

            server.modify(QpState.ERROR);

            assertThat(eventsUntil(p.b, server, AsyncEventType.LAST_WQE_REACHED))
                    .as("the connection's end, then the QP's leaving its SRQ").containsExactly(AsyncEventType.DISCONNECTED, AsyncEventType.LAST_WQE_REACHED);
            assertThat(eventsWithinQuiet(p.b, p.qpB)).as("the pair's own QP on B").isEmpty();
            client.close();
            server.close();
        }
    }

    @Test
    void theMoveToErrorIsTracedAtLevelRareWithTheStateLeftAndTheCause() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            TraceComponent qp = ProcessRas.current().trace().component("verbs.qp");
            int level = qp.level();
            qp.setLevel(TraceLevel.RARE);
            try {
                long after = ProcessRas.current().trace().records().stream().mapToLong(TraceRecord::sequence).max().orElse(-1);
                p.qpA.modify(QpState.ERROR);

                assertThat(ProcessRas.current().trace().records())
                        .filteredOn(t -> t.sequence() > after && t.component().equals("verbs.qp") && t.event().equals("to-error")
                                && t.threadId() == Thread.currentThread().threadId())
                        .singleElement()
                        .satisfies(t -> {
                            assertThat(t.a()).as("the QP").isEqualTo(p.qpA.qpNumber());
                            assertThat(t.b()).as("the state it left").isEqualTo(QpState.RTS.ordinal());
                            assertThat(t.text()).isEqualTo("consumer moved QP " + p.qpA.qpNumber() + " to ERROR");
                        });
            } finally {
                qp.setLevel(level);
            }
        }
    }

    @Test
    void theResourceRegistryShowsTheQpInErrorAndWhy() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            p.qpA.modify(QpState.ERROR);

            try (RasReader reader = RasReader.open(ProcessRas.current().path())) {
                assertThat(reader.resources()).as("what tandem stat lists of the failed QP")
                        .filteredOn(r -> r.name().contains(p.a.name()) && r.detail().startsWith("ERROR: "))
                        .extracting(dev.tandem.ras.ResourceEntry::detail)
                        .containsExactly("ERROR: consumer moved QP " + p.qpA.qpNumber() + " to ERROR");
            }
        }
    }
}

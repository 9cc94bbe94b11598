package dev.tandem.failover;

import dev.tandem.failover.check.CheckedStream;
import dev.tandem.failover.check.StreamShape;
import dev.tandem.failover.check.Verdict;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.LinkControl;
import dev.tandem.verbs.QpFailure;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault matrix, in-process on loopback addresses: for both topologies, every kind of fault at
 * every named point of a connection's life. Three adapters per node, so that a second fault during
 * a fail-over (at its REPORT, at its re-post) still leaves a path. While a path remains the shipped
 * checked stream ({@link CheckedStream}: sequence numbers and CRC32C on every message and written block)
 * proves nothing was lost, duplicated, reordered or corrupted and the application saw no error; when the
 * peer dies, the application gets the ordinary verbs behaviour (its QP in ERROR, its work flushed)
 * within a bound, never a hang.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FaultMatrixTest {
    private static final int MESSAGES = 300;
    /** Every message a Send of 256 bytes after a Write of a 256-byte block, both with CRC32C; 16 in flight. */
    private static final StreamShape SHAPE = new StreamShape(16, 256, 16, 256, 1);
    private TwoNodes nodes;

    /** A fault of one kind on the path {@code k} (this side's adapter index) of a's connection. */
    enum Kind {
        LOCAL_FATAL, REMOTE_FATAL, LINK_DOWN, SWITCH_DOWN;

        void on(TwoNodes n, Path p) {
            int k = p.local;
            int peer = p.remote;
            switch (this) {
                case LOCAL_FATAL -> ((AdapterControl) n.a.adapters().get(k)).injectFatalError("matrix: a's adapter " + k);
                case REMOTE_FATAL -> ((AdapterControl) n.b.adapters().get(peer)).injectFatalError("matrix: b's adapter " + peer);
                case LINK_DOWN -> ((LinkControl) n.b.adapters().get(peer)).linkDown(); // a finds the silent link by heartbeat
                case SWITCH_DOWN -> { // the fabric of the path: both ends lose their link
                    ((LinkControl) n.a.adapters().get(k)).linkDown();
                    ((LinkControl) n.b.adapters().get(peer)).linkDown();
                }
            }
        }
    }

    static Stream<Arguments> matrix() {
        List<Arguments> all = new ArrayList<>();
        for (Topology t : Topology.values()) {
            for (Kind kind : Kind.values()) {
                if (kind == Kind.SWITCH_DOWN && t == Topology.SWITCHLESS) {
                    continue; // no switch: a cable, which LINK_DOWN pulls
                }
                for (FaultPoint point : FaultPoint.values()) {
                    if (point == FaultPoint.DURING_HEARTBEAT) {
                        continue; // reached once a heartbeat, after this stream has ended: HeartbeatTest drives it
                    }
                    all.add(Arguments.of(t, kind, point));
                }
            }
        }
        return all.stream();
    }

    @AfterEach
    void close() {
        if (nodes != null) {
            nodes.close();
        }
    }

    @ParameterizedTest(name = "{0}: {1} at {2}")
    @MethodSource("matrix")
    void nothingIsLostDuplicatedOrReorderedWhileAPathRemains(Topology topology, Kind kind, FaultPoint point) throws Exception {
        nodes = TwoNodes.withCheckedStream(3, topology, SHAPE);
        FailoverWatch wa = nodes.a.watch();
        FailoverWatch wb = nodes.b.watch();
        FailoverQueuePair qa = nodes.sa.failover();
        Runnable arm = switch (point) {
            case BEFORE_POST, DURING_PROOF -> () -> nodes.a.faults.arm(point, () -> kind.on(nodes, qa.paths.sendPath()));
            case DURING_HEARTBEAT -> throw new IllegalArgumentException("the matrix leaves out " + point + " (HeartbeatTest drives it)");
            case AFTER_PLACEMENT -> () -> {
                // b's adapter dies right after it placed a message and before b saw its completion
                nodes.b.faults.arm(point, () -> kind.on(nodes, qa.paths.sendPath()));
            };
            case DURING_REPORT, DURING_REPOST -> () -> {
                // a first fault starts a fail-over; the fault under test hits the path it moves to
                nodes.a.faults.arm(point, () -> kind.on(nodes, point == FaultPoint.DURING_REPORT && qa.mail().lastReportVia != null
                        ? qa.mail().lastReportVia : qa.paths.sendPath()));
                ((AdapterControl) nodes.a.adapters().get(qa.sendAdapter())).injectFatalError("matrix: first fault");
            };
        };
        CheckedStream stream = nodes.checked;
        // halfway, with the stream's window in flight, the fault is armed (or made)
        stream.sendUpTo(MESSAGES);
        long deadline = System.nanoTime() + TwoNodes.WAIT.toNanos();
        while (stream.sent() < MESSAGES / 2) {
            assertThat(System.nanoTime()).as("the first half of the stream: %s", stream.verdict()).isLessThan(deadline);
            stream.step();
        }
        arm.run();
        Verdict v = stream.run(MESSAGES, TwoNodes.WAIT, Duration.ofMillis(100), null);
        List<FailoverEvent> ea = new ArrayList<>(TwoNodes.events(wa));
        assertThat(v.clean()).as("%s%nnode a: %s%nnode b: %s", v, ea, TwoNodes.events(wb)).isTrue();
        assertThat(v.messagesReceived()).isEqualTo(MESSAGES);
        assertThat(v.blocksVerified()).isEqualTo(MESSAGES);
        // a's move is told once both its directions settled: it may follow the stream's last completion by a moment
        long deadline2 = System.nanoTime() + TwoNodes.WAIT.toNanos();
        while (ea.stream().noneMatch(e -> e instanceof FailoverEvent.Migrated) && System.nanoTime() < deadline2) {
            FailoverEvent e = wa.poll(Duration.ofMillis(50));
            if (e != null) {
                ea.add(e);
            }
        }
        assertThat(ea).as("node a failed over; a's QP %s", qa).anyMatch(e -> e instanceof FailoverEvent.Migrated);
        assertThat(ea).noneMatch(e -> e instanceof FailoverEvent.NoPathLeft);
    }

    @ParameterizedTest(name = "{0}: the peer dies")
    @EnumSource(Topology.class)
    void whenThePeerDiesTheApplicationGetsTheOrdinaryVerbsBehaviourNotAHang(Topology topology) throws Exception {
        nodes = new TwoNodes(3, topology);
        nodes.stream(50, 50, () -> { });
        FailoverWatch wa = nodes.a.watch();
        for (var adapter : nodes.b.adapters()) {
            ((AdapterControl) adapter).injectFatalError("matrix: the peer process is gone");
        }
        // what a posts now completes, flushed, once no path is left
        nodes.sa.qp().postSend(new WorkRequest.Send(9000, new Sge(nodes.sa.region(), 0, TwoNodes.SIZE), WrFlags.SIGNALED));
        WorkCompletion[] wcs = WorkCompletion.array(64);
        long deadline = System.nanoTime() + TwoNodes.WAIT.toNanos();
        boolean flushed = false;
        List<FailoverEvent> seen = new ArrayList<>();
        while (!flushed) {
            if (System.nanoTime() > deadline) {
                seen.addAll(TwoNodes.events(wa));
                throw new AssertionError("the Send posted after the peer died did not complete within " + TwoNodes.WAIT
                        + "; node a: " + seen + "; QP " + nodes.sa.qp());
            }
            int n = nodes.sa.cq().poll(wcs);
            for (int i = 0; i < n; i++) {
                if (wcs[i].wrId() == 9000) {
                    assertThat(wcs[i].status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
                    flushed = true;
                }
            }
        }
        assertThat(nodes.sa.qp().state()).isEqualTo(QpState.ERROR);
        assertThat(nodes.sa.qp().failure()).as("why a's QP ended").hasValueSatisfying(f -> {
            assertThat(f.kind()).isEqualTo(QpFailure.Kind.TRANSPORT);
            assertThat(f.detail()).startsWith("no path left");
        });
        seen.addAll(TwoNodes.events(wa));
        assertThat(seen).anyMatch(e -> e instanceof FailoverEvent.NoPathLeft);
    }
}

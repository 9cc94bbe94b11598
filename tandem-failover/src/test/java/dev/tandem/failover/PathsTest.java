package dev.tandem.failover;

import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Path ids both sides agree on ({@code c * 8 + s}), which end of a path is this side's by its role,
 * the paths a topology gives a connection, and the bookkeeping of a connection's paths.
 */
class PathsTest {

    @Test
    void aPathIdNamesTheConnectingAndTheAcceptingSidesAdapters() {
        assertThat(Paths.MAX).isEqualTo(8);
        List<Integer> ids = new ArrayList<>();
        for (int c = 0; c < Paths.MAX; c++) {
            for (int s = 0; s < Paths.MAX; s++) {
                int id = Paths.id(c, s);
                assertThat(id).as("id of %d to %d", c, s).isEqualTo(c * 8 + s);
                assertThat(Paths.connectingEnd(id)).as("connecting end of %d", id).isEqualTo(c);
                assertThat(Paths.acceptingEnd(id)).as("accepting end of %d", id).isEqualTo(s);
                ids.add(id);
            }
        }
        assertThat(ids).as("every pair its own id, 0..63").doesNotHaveDuplicates().allMatch(i -> i >= 0 && i < 64);
    }

    @Test
    void eachSideFindsItsOwnEndByItsRole() {
        Paths connecting = new Paths();
        connecting.role(true);
        Paths accepting = new Paths();
        accepting.role(false);
        assertThat(connecting.connecting()).isTrue();
        assertThat(accepting.connecting()).isFalse();
        for (int mine = 0; mine < Paths.MAX; mine++) {
            for (int peer = 0; peer < Paths.MAX; peer++) {
                int id = connecting.idOf(mine, peer);
                assertThat(accepting.idOf(peer, mine)).as("both sides name the path %d-%d alike", mine, peer).isEqualTo(id);
                assertThat(connecting.localEnd(id)).isEqualTo(mine);
                assertThat(connecting.remoteEnd(id)).isEqualTo(peer);
                assertThat(accepting.localEnd(id)).isEqualTo(peer);
                assertThat(accepting.remoteEnd(id)).isEqualTo(mine);
            }
        }
        assertThat(connecting.describe(Paths.id(2, 5))).isEqualTo("path 21 (adapter 2 to the peer's adapter 5)");
        assertThat(accepting.describe(Paths.id(2, 5))).isEqualTo("path 21 (adapter 5 to the peer's adapter 2)");
        assertThat(accepting.describe(Paths.NONE)).isEqualTo("none");
        assertThat(accepting.describe(0)).isEqualTo("path 0 (adapter 0 to the peer's adapter 0)");
    }

    @Test
    void aSwitchedConnectionHasEveryPairASwitchlessOneEachCable() {
        assertThat(Paths.expected(Topology.SWITCHED, 2, 3)).as("switched 2 x 3, connecting adapter first")
                .containsExactly(Paths.id(0, 0), Paths.id(0, 1), Paths.id(0, 2), Paths.id(1, 0), Paths.id(1, 1), Paths.id(1, 2));
        assertThat(Paths.expected(Topology.SWITCHLESS, 2, 3)).as("switchless: adapter k to adapter k")
                .containsExactly(Paths.id(0, 0), Paths.id(1, 1));
        assertThat(Paths.expected(Topology.SWITCHLESS, 4, 3)).containsExactly(Paths.id(0, 0), Paths.id(1, 1), Paths.id(2, 2));
        for (int c = 1; c <= Paths.MAX; c++) {
            for (int s = 1; s <= Paths.MAX; s++) {
                assertThat(Paths.expected(Topology.SWITCHED, c, s)).as("switched %d x %d", c, s).hasSize(c * s).doesNotHaveDuplicates();
                assertThat(Paths.expected(Topology.SWITCHLESS, c, s)).as("switchless %d x %d", c, s).hasSize(Math.min(c, s))
                        .allMatch(id -> Paths.connectingEnd(id) == Paths.acceptingEnd(id));
            }
        }
        assertThat(Paths.expected(Topology.SWITCHED, 0, 3)).isEmpty();
    }

    @Test
    void pathsAreMadeOnceAndFoundByIdAdapterAndQp() {
        Paths paths = new Paths();
        paths.role(false); // accepting: this side's end is the low 3 bits
        assertThat(paths.get(Paths.NONE)).isNull();
        assertThat(paths.get(0)).as("not set up").isNull();
        assertThat(paths.get(64)).as("no such id").isNull();
        assertThat(paths.sendPath()).isNull();
        assertThat(paths.receivePath()).isNull();

        Path p0 = paths.ensure(0);
        Path p9 = paths.ensure(Paths.id(1, 1));
        Path p63 = paths.ensure(63);
        Path p8 = paths.ensure(Paths.id(1, 0));
        assertThat(paths.ensure(0)).as("made once").isSameAs(p0);
        assertThat(paths.get(0)).isSameAs(p0);
        assertThat(paths.get(63)).isSameAs(p63);
        assertThat(p9.local).as("accepting side's end of path 9").isEqualTo(1);
        assertThat(p8.local).isZero();
        assertThat(p8.remote).isEqualTo(1);
        assertThat(p8.id).isEqualTo(8);
        assertThat(paths.all()).as("by id").containsExactly(p0, p8, p9, p63);
        assertThat(paths.on(0)).containsExactly(p0, p8);
        assertThat(paths.on(7)).containsExactly(p63);
        assertThat(paths.on(3)).isEmpty();

        assertThat(paths.live()).as("none set up yet").isZero();
        p8.up = true;
        p63.up = true;
        assertThat(paths.live()).isEqualTo(2);

        QueuePair q5 = Fakes.recordingQp(5, new ArrayList<>());
        QueuePair q6 = Fakes.recordingQp(6, new ArrayList<>());
        p8.qp = q5;
        p63.qp = q6;
        assertThat(paths.byQp(0, 5)).isSameAs(p8);
        assertThat(paths.byQp(7, 6)).isSameAs(p63);
        assertThat(paths.byQp(7, 5)).as("QP 5 is adapter 0's").isNull();
        assertThat(paths.byQp(0, 6)).isNull();

        paths.send = 8;
        paths.receive = 63;
        assertThat(paths.sendPath()).isSameAs(p8);
        assertThat(paths.receivePath()).isSameAs(p63);

        paths.clear();
        assertThat(paths.all()).isEmpty();
        assertThat(paths.send).isEqualTo(Paths.NONE);
        assertThat(paths.receive).isEqualTo(Paths.NONE);
        assertThat(paths.sendPath()).isNull();
        assertThat(paths.live()).isZero();
    }

    @Test
    void theFirstPathIsRegisteredUnderItsIdOnceThePeersAdapterIsKnown() {
        Paths paths = new Paths();
        paths.role(true);
        Path first = new Path(Paths.NONE, 1, -1);
        paths.register(first, Paths.id(1, 2), 2);
        assertThat(first.id).isEqualTo(10);
        assertThat(first.remote).isEqualTo(2);
        assertThat(paths.get(10)).isSameAs(first);
        assertThat(paths.all()).as("every path made, the first too").containsExactly(first);
        assertThat(paths.ensure(10)).isSameAs(first);
        assertThat(first.toString()).isEqualTo("path 10 (adapter 1 to the peer's adapter 2)");
    }

    @Test
    void aPathHoldsOnlyItsCurrentQpAndAFreshSetUpForgetsTheLastOne() {
        Path p = new Path(3, 0, 3);
        QueuePair q = Fakes.recordingQp(1, new ArrayList<>());
        QueuePair old = Fakes.recordingQp(2, new ArrayList<>());
        assertThat(p.holds(null)).as("no QP yet").isFalse();
        assertThat(p.holds(q)).isFalse();
        p.qp = q;
        assertThat(p.holds(q)).isTrue();
        assertThat(p.holds(old)).as("an earlier QP").isFalse();
        assertThat(p.holds(null)).isFalse();

        p.closedSince = 5;
        p.closedQp = old;
        p.closedCause = "closed";
        p.downCause = "down";
        p.heartbeatSent.set(9);
        p.freshSetUp();
        assertThat(p.closedSince).isZero();
        assertThat(p.closedQp).isNull();
        assertThat(p.closedCause).isNull();
        assertThat(p.downCause).isNull();
        assertThat(p.heartbeatSent.get()).isZero();
    }

    @Test
    void recordsGoOnlyOverAPathThatIsUpAndWhoseQpRuns() {
        AtomicReference<QpState> state = new AtomicReference<>(QpState.RTS);
        Path p = new Path(3, 0, 3);
        assertThat(p.runs()).as("no QP yet").isFalse();
        p.qp = Fakes.qpIn(1, state::get);
        assertThat(p.runs()).as("set up, not up yet").isFalse();
        p.up = true;
        assertThat(p.runs()).isTrue();
        for (QpState s : List.of(QpState.ERROR, QpState.SQD, QpState.RTR, QpState.RESET)) {
            state.set(s);
            assertThat(p.runs()).as("its QP in %s", s).isFalse();
        }
        state.set(QpState.RTS);
        p.up = false;
        assertThat(p.runs()).as("failed (its QP may not know yet)").isFalse();
    }

    /**
     * A peer's BYE ends the connection only once its paths said what they have to say: a QP that runs may
     * still get its end (the peer's Terminate, sent before the BYE over another path), and one that ended
     * may not have completed its work yet (its adapter reports the end after the last completion).
     */
    @Test
    void aPathIsEndingWhileItsQpRunsOrItsEndIsNotReportedYet() {
        AtomicReference<QpState> state = new AtomicReference<>(QpState.RTS);
        Path p = new Path(3, 0, 3);
        assertThat(p.ending()).as("no QP").isFalse();
        QueuePair q = Fakes.qpIn(1, state::get);
        p.qp = q;
        p.up = true;
        assertThat(p.ending()).as("its QP runs: its end may be on its way").isTrue();
        state.set(QpState.ERROR);
        assertThat(p.ending()).as("ended, the adapter has not reported it: completions may be coming").isTrue();
        p.endReported = Fakes.qpIn(2, () -> QpState.ERROR);
        assertThat(p.ending()).as("the end reported is an earlier QP's").isTrue();
        p.endReported = q;
        assertThat(p.ending()).as("ended and reported: every completion of it is out").isFalse();
        state.set(QpState.RTS);
        assertThat(p.ending()).as("runs (a report of an end does not stop a running QP's own end)").isTrue();
        p.up = false;
        assertThat(p.ending()).as("a failed path: its work moved, the layer gives it its outcome").isFalse();
    }
}

package dev.tandem.failover;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When a proof goes: a batch of Sends and Writes, at most two proofs in flight, the next at once only
 * while the peer acknowledges nothing, and what a move, a lost path or a reset leave to prove.
 */
class ProofScheduleTest {
    private final ProofSchedule s = new ProofSchedule();

    @Test
    void theFirstPostOfABatchIsToldAndTheBatchIsFullAfterEveryMany() {
        assertThat(s.posted()).as("the first of a batch").isTrue();
        assertThat(s.batchFull(3)).isFalse();
        assertThat(s.posted()).isFalse();
        assertThat(s.batchFull(3)).as("2 of 3").isFalse();
        assertThat(s.posted()).isFalse();
        assertThat(s.batchFull(3)).as("3 of 3").isTrue();
        s.proofPosted(2);
        assertThat(s.batchFull(1)).as("a proof starts the next batch").isFalse();
        assertThat(s.posted()).as("the first after a proof").isTrue();
        s.batchDone();
        assertThat(s.batchFull(1)).as("acknowledged: nothing waits").isFalse();
        assertThat(s.posted()).isTrue();
    }

    @Test
    void aProofMayGoForWhatNoProofCoversWithAtMostTwoInFlight() {
        assertThat(s.mayProve(-1)).as("nothing posted").isFalse();
        assertThat(s.mayProve(0)).isTrue();
        s.proofPosted(4);
        assertThat(s.inFlight()).isTrue();
        assertThat(s.uncovered(4)).isFalse();
        assertThat(s.mayProve(4)).as("covered up to 4").isFalse();
        assertThat(s.mayProve(5)).isTrue();
        s.proofPosted(5);
        assertThat(s.mayProve(9)).as("two in flight").isFalse();
        assertThat(s.uncovered(9)).isTrue();
        s.proofDone(true);
        assertThat(s.mayProve(9)).as("one completed").isTrue();
        assertThat(s.inFlight()).isTrue();
        s.proofDone(false);
        assertThat(s.inFlight()).isFalse();
        s.proofDone(false);
        s.proofDone(true);
        s.proofPosted(9);
        assertThat(s.inFlight()).as("completions of lost proofs do not count below zero").isTrue();
        s.settlePosted();
        s.proofDone(true);
        assertThat(s.inFlight()).as("the settling proof counts too").isTrue();
    }

    @Test
    void theNextProofFollowsAtOnceOnlyWhileThePeerAcknowledgesNothing() {
        s.proofPosted(1);
        assertThat(s.proofDone(true)).as("a one-way stream").isTrue();
        s.proofPosted(2);
        assertThat(s.proofDone(false)).as("a failed proof").isFalse();
        s.proofPosted(3);
        s.acked(1);
        assertThat(s.proofDone(true)).as("the peer's Sends acknowledge ours: they prove").isFalse();
        s.proofPosted(4);
        assertThat(s.proofDone(true)).as("no acknowledgement since that proof").isTrue();
    }

    @Test
    void acknowledgementsMoveOnlyForwardAcrossTheWrapAndAreTakenOnce() {
        assertThat(s.ackMoved()).isFalse();
        s.acked(5);
        assertThat(s.ackMoved()).isTrue();
        assertThat(s.takeAck()).isEqualTo(5);
        assertThat(s.ackMoved()).as("taken").isFalse();
        s.acked(3);
        s.acked(0);
        assertThat(s.ackMoved()).as("an earlier id, or none, is not news").isFalse();
        ProofSchedule w = new ProofSchedule();
        w.acked(-2);
        w.acked(-1);
        assertThat(w.takeAck()).isEqualTo(-1);
        w.acked(1);
        assertThat(w.takeAck()).as("after the wrap").isEqualTo(1);
        w.acked(-1);
        assertThat(w.ackMoved()).as("before the wrap is behind").isFalse();
    }

    @Test
    void aMoveToANewPathLeavesTheRepostedToProveAndAnInPlaceMoveChangesNothing() {
        s.proofPosted(3);
        s.proofPosted(7);
        s.moved(5, 2, true);
        assertThat(s.mayProve(7)).as("in place: covered still").isFalse();
        assertThat(s.mayProve(9)).as("in place: two in flight still").isFalse();
        s.moved(5, 2, false);
        assertThat(s.inFlight()).as("the proofs went with the old path").isFalse();
        assertThat(s.mayProve(5)).as("held up to 5").isFalse();
        assertThat(s.mayProve(6)).isTrue();
        assertThat(s.batchFull(2)).as("the 2 reposted wait").isTrue();
        assertThat(s.batchFull(3)).isFalse();
    }

    @Test
    void aLostPathLeavesWhatWasNotReleasedToProve() {
        s.proofPosted(9);
        s.lost(4);
        assertThat(s.inFlight()).isFalse();
        assertThat(s.mayProve(3)).as("released before 4").isFalse();
        assertThat(s.mayProve(4)).isTrue();
    }

    @Test
    void aResetForgetsEverything() {
        s.acked(7);
        assertThat(s.takeAck()).isEqualTo(7);
        s.proofPosted(5);
        s.posted();
        s.reset(10);
        assertThat(s.inFlight()).isFalse();
        assertThat(s.ackMoved()).as("no acknowledgement since the reset").isFalse();
        assertThat(s.proofDone(true)).as("the acknowledgement a proof saw before the reset is forgotten").isTrue();
        assertThat(s.mayProve(9)).as("what came before the reset").isFalse();
        assertThat(s.mayProve(10)).isTrue();
        assertThat(s.posted()).as("a new batch").isTrue();
        s.acked(1);
        assertThat(s.takeAck()).as("ids start again").isEqualTo(1);
    }

    @Test
    void theOldestIsDueOnceItIsAsOldAsTheBound() {
        assertThat(ProofSchedule.due(1_000, 1_999, 1_000)).isFalse();
        assertThat(ProofSchedule.due(1_000, 2_000, 1_000)).isTrue();
        assertThat(ProofSchedule.due(-5, 10, 15)).isTrue();
    }
}

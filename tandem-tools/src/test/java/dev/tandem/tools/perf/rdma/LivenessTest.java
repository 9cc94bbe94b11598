package dev.tandem.tools.perf.rdma;

import dev.tandem.tools.perf.PerfException;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The liveness judgement on its own, with the time given: when to probe, what counts as life, what fails and how it says so. */
class LivenessTest {
    private static final long MS = 1_000_000;
    private static final Patience PATIENCE = new Patience(Duration.ofSeconds(30), Duration.ofSeconds(1));

    private static Liveness waitingSince(long start) {
        Liveness l = new Liveness(PATIENCE, "server waiting for a completion");
        l.begin(start);
        return l;
    }

    @Test
    void probesOnlyAfterASecondOfQuietAndOneAtATime() {
        Liveness l = waitingSince(0);
        assertThat(l.probeDue(999 * MS)).isFalse();
        assertThat(l.probeDue(1000 * MS)).isTrue();
        l.probePosted(1000 * MS);
        assertThat(l.probeDue(5000 * MS)).as("a probe is in flight").isFalse();
        l.probeAnswered(1001 * MS, 7);
        assertThat(l.probeDue(1500 * MS)).isFalse();
        assertThat(l.probeDue(2001 * MS)).as("one probe per second of silence").isTrue();
    }

    @Test
    void aPeerWhoseProgressWordMovesStaysAliveBeyondTheLimit() {
        Liveness l = waitingSince(0);
        long word = 100;
        for (long t = 1000; t <= 120_000; t += 1000) {
            assertThat(l.probeDue(t * MS)).isTrue();
            l.probePosted(t * MS);
            l.probeAnswered(t * MS, word++);
            l.check(t * MS);
        }
    }

    @Test
    void aCompletionIsLife() {
        Liveness l = waitingSince(0);
        l.life(29_000 * MS);
        l.check(58_000 * MS);
        assertThatThrownBy(() -> l.check(59_001 * MS)).isInstanceOf(PerfException.class);
    }

    @Test
    void aPeerThatAnswersWithoutProgressingIsNamedSo() {
        Liveness l = waitingSince(0);
        for (long t = 1000; t <= 30_000; t += 1000) {
            l.probePosted(t * MS);
            l.probeAnswered(t * MS, 42);
            l.check(t * MS);
        }
        assertThatThrownBy(() -> l.check(30_001 * MS)).isInstanceOf(PerfException.class)
                .hasMessage("server waiting for a completion: the peer showed no progress for 30001 ms; it answers probes "
                        + "(the link and its adapter are alive) but its progress word stayed at 42: the peer application stopped progressing");
    }

    @Test
    void aPeerThatDoesNotAnswerIsNamedSo() {
        Liveness l = waitingSince(0);
        l.probePosted(1000 * MS);
        l.check(30_000 * MS);
        assertThatThrownBy(() -> l.check(31_000 * MS)).isInstanceOf(PerfException.class)
                .hasMessage("server waiting for a completion: no completion for 31 s and no answer to a probe (an 8-byte RDMA Read "
                        + "of the peer's progress word, posted 30 s ago): the peer's adapter or the link stopped");
    }

    @Test
    void answersBeforeTheLastLifeDoNotMakeAStuckPeerLookAnswering() {
        Liveness l = waitingSince(0);
        l.probePosted(1000 * MS);
        l.probeAnswered(1000 * MS, 1);
        l.probePosted(2000 * MS);
        l.probeAnswered(2000 * MS, 2);      // changed: life at 2 s
        l.probePosted(3000 * MS);           // never answered
        assertThatThrownBy(() -> l.check(32_001 * MS)).hasMessageContaining("no answer to a probe");
    }

    @Test
    void theWordSeenInAnEarlierWaitIsTheBaselineOfTheNext() {
        Liveness l = waitingSince(0);
        l.probePosted(1000 * MS);
        l.probeAnswered(1000 * MS, 5);
        l.begin(2000 * MS);
        l.probePosted(3000 * MS);
        l.probeAnswered(3000 * MS, 6);      // moved since the last wait: life at 3 s
        l.check(33_000 * MS);
        assertThatThrownBy(() -> l.check(33_001 * MS)).hasMessageContaining("no completion for");
    }

    @Test
    void patienceRejectsAProbeIntervalNotShorterThanTheLimit() {
        assertThatThrownBy(() -> new Patience(Duration.ofSeconds(1), Duration.ofSeconds(1))).hasMessageContaining("must be shorter");
        assertThatThrownBy(() -> new Patience(Duration.ZERO, Duration.ofSeconds(1))).hasMessageContaining("positive");
        assertThat(Patience.describe(30_000 * MS)).isEqualTo("30 s");
        assertThat(Patience.describe(250 * MS)).isEqualTo("250 ms");
    }
}

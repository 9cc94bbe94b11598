package dev.tandem.failover;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Session numbers: never 0, never two open QPs of a device with the same one, and a closed QP's number may come again. */
class SessionsTest {

    @Test
    void numbersTakenAreNonZeroAndDistinct() {
        Sessions sessions = new Sessions();
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            int n = sessions.take();
            assertThat(n).as("take %d", i).isNotZero();
            assertThat(seen.add(n)).as("take %d gave %d, held already", i, n).isTrue();
        }
        assertThat(sessions.held()).isEqualTo(20_000);
        for (int n : seen) {
            sessions.giveBack(n);
        }
        assertThat(sessions.held()).isZero();
    }

    @Test
    void giveBackForgetsOnlyThatNumber() {
        Sessions sessions = new Sessions();
        int a = sessions.take();
        int b = sessions.take();
        sessions.giveBack(a);
        assertThat(sessions.held()).isEqualTo(1);
        sessions.giveBack(a);
        sessions.giveBack(b + 1 == 0 ? 2 : b + 1);
        assertThat(sessions.held()).as("numbers not held change nothing").isEqualTo(1);
    }

    /**
     * With the random source scripted (the draws below): 0 is never handed out, a number held is drawn
     * again until a free one comes, and a number given back may be handed out again.
     */
    @Test
    void zeroAndHeldNumbersAreSkippedAndAGivenBackNumberComesAgain() {
        ArrayDeque<Integer> draws = new ArrayDeque<>(List.of(0, 7, 0, 7, 7, -9, 7, 7));
        Sessions sessions = new Sessions(draws::removeFirst);
        assertThat(sessions.take()).as("0 is skipped").isEqualTo(7);
        assertThat(sessions.take()).as("0 and the held 7 are skipped").isEqualTo(-9);
        sessions.giveBack(7);
        assertThat(sessions.take()).as("7 was given back: free again").isEqualTo(7);
        assertThat(draws).as("every draw used, none wasted").containsExactly(7);
        assertThat(sessions.held()).isEqualTo(2);
    }
}

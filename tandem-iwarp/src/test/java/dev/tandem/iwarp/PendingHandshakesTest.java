package dev.tandem.iwarp;

import dev.tandem.iwarp.PendingHandshakes.Closed;
import dev.tandem.iwarp.PendingHandshakes.Reason;
import dev.tandem.verbs.InvalidArgumentException;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which pending handshake a listener closes, and when: deadlines, the per-source bound, the per-listener bound. */
class PendingHandshakesTest {
    private static final long SECOND = 1_000_000_000L;
    private static final InetAddress A = ip("10.0.0.1");
    private static final InetAddress B = ip("10.0.0.2");
    private static final InetAddress C = ip("10.0.0.3");

    private static InetAddress ip(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static PendingHandshakes<String> pending(int perListener, int perSource) {
        return new PendingHandshakes<>(new HandshakeLimits(Duration.ofSeconds(5), perListener, perSource));
    }

    @Test
    void handshakesExpireInArrivalOrderAtTheirDeadline() {
        PendingHandshakes<String> p = pending(10, 10);
        assertThat(p.nanosToNextDeadline(0)).as("nothing pending").isEqualTo(-1);
        assertThat(p.admit("a1", A, 0)).isEmpty();
        assertThat(p.admit("b1", B, SECOND)).isEmpty();
        assertThat(p.admit("a2", A, 2 * SECOND)).isEmpty();
        assertThat(p.nanosToNextDeadline(SECOND)).as("a1 is due 5 s after it came").isEqualTo(4 * SECOND);

        assertThat(p.expire(5 * SECOND - 1)).as("one nanosecond before a1's deadline").isEmpty();
        assertThat(p.expire(6 * SECOND)).containsExactly(new Closed<>("a1", A, Reason.TIMED_OUT), new Closed<>("b1", B, Reason.TIMED_OUT));
        assertThat(p.size()).isEqualTo(1);
        assertThat(p.fromSource(A)).isEqualTo(1);
        assertThat(p.fromSource(B)).isZero();
        assertThat(p.nanosToNextDeadline(8 * SECOND)).as("a2's deadline passed").isZero();
    }

    @Test
    void aSourceAtItsBoundLosesItsOwnOldestHandshake() {
        PendingHandshakes<String> p = pending(10, 2);
        p.admit("a1", A, 0);
        p.admit("b1", B, 1);
        p.admit("a2", A, 2);
        List<Closed<String>> closed = p.admit("a3", A, 3);
        assertThat(closed).containsExactly(new Closed<>("a1", A, Reason.SOURCE_FULL));
        assertThat(p.fromSource(A)).isEqualTo(2);
        assertThat(p.fromSource(B)).as("another source keeps its handshake").isEqualTo(1);
        assertThat(p.size()).isEqualTo(3);
    }

    @Test
    void aFullListenerClosesTheOldestHandshakeOfTheBusiestSource() {
        PendingHandshakes<String> p = pending(5, 5);
        p.admit("b1", B, 0);     // the oldest of all, but B holds only one
        p.admit("a1", A, 1);
        p.admit("a2", A, 2);
        p.admit("a3", A, 3);
        p.admit("c1", C, 4);
        List<Closed<String>> closed = p.admit("c2", C, 5);
        assertThat(closed).containsExactly(new Closed<>("a1", A, Reason.LISTENER_FULL));
        assertThat(p.fromSource(B)).as("the oldest handshake survives: its source holds the fewest").isEqualTo(1);
        assertThat(p.fromSource(A)).isEqualTo(2);
        assertThat(p.fromSource(C)).isEqualTo(2);
        assertThat(p.size()).isEqualTo(5);
    }

    @Test
    void amongEquallyBusySourcesTheLongestWaitingHandshakeGoes() {
        // both orders of arrival, so that whichever source the bookkeeping looks at first, the older one loses
        for (boolean aFirst : new boolean[] {true, false}) {
            InetAddress older = aFirst ? A : B;
            InetAddress younger = aFirst ? B : A;
            PendingHandshakes<String> p = pending(4, 4);
            p.admit("o1", older, 0);
            p.admit("y1", younger, 1);
            p.admit("y2", younger, 2);
            p.admit("o2", older, 3);
            assertThat(p.admit("c1", C, 4)).as("older source %s", older).containsExactly(new Closed<>("o1", older, Reason.LISTENER_FULL));
            assertThat(p.admit("c2", C, 5)).as("now the younger source is the busiest")
                    .containsExactly(new Closed<>("y1", younger, Reason.LISTENER_FULL));
        }
    }

    @Test
    void removedHandshakesFreeTheirSlotsAndNeverExpire() {
        PendingHandshakes<String> p = pending(2, 1);
        p.admit("a1", A, 0);
        assertThat(p.remove("a1")).isTrue();
        assertThat(p.remove("a1")).as("removing twice").isFalse();
        assertThat(p.admit("a2", A, 1)).as("A's slot is free again").isEmpty();
        p.admit("b1", B, 2);
        assertThat(p.admit("c1", C, 3)).hasSize(1);
        assertThat(p.expire(100 * SECOND)).extracting(Closed::handshake).containsExactlyInAnyOrder("b1", "c1");
        assertThat(p.size()).isZero();
    }

    @Test
    void clearHandsBackEverythingStillPending() {
        PendingHandshakes<String> p = pending(4, 4);
        p.admit("a1", A, 0);
        p.admit("b1", B, 1);
        assertThat(p.clear()).containsExactly("a1", "b1");
        assertThat(p.size()).isZero();
        assertThat(p.fromSource(A)).isZero();
        assertThat(p.nanosToNextDeadline(2)).isEqualTo(-1);
    }

    @Test
    void aHandshakeIsAdmittedOnce() {
        PendingHandshakes<String> p = pending(4, 4);
        p.admit("a1", A, 0);
        assertThatThrownBy(() -> p.admit("a1", A, 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pending already");
    }

    @Test
    void limitsAreValidatedWithTheRangeThatWouldBeRight() {
        assertThatThrownBy(() -> new HandshakeLimits(Duration.ZERO, 4, 4)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("must be positive");
        assertThatThrownBy(() -> new HandshakeLimits(null, 4, 4)).isInstanceOf(InvalidArgumentException.class);
        assertThatThrownBy(() -> new HandshakeLimits(Duration.ofSeconds(1), 0, 1)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("maxPending 0 must be at least 1");
        assertThatThrownBy(() -> new HandshakeLimits(Duration.ofSeconds(1), 4, 5)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("must be 1..4");
        assertThatThrownBy(() -> new HandshakeLimits(Duration.ofSeconds(1), 4, 0)).isInstanceOf(InvalidArgumentException.class);
        assertThat(new HandshakeLimits(Duration.ofSeconds(1), 4, 4).maxPendingPerSource()).isEqualTo(4);
        assertThat(new HandshakeLimits(Duration.ofNanos(1), 1, 1).maxPending()).as("the smallest limits").isEqualTo(1);
        assertThat(HandshakeLimits.DEFAULT.withTimeout(Duration.ofSeconds(2)).withMaxPending(8, 2))
                .isEqualTo(new HandshakeLimits(Duration.ofSeconds(2), 8, 2));
        assertThatThrownBy(() -> IwarpConfig.of("127.0.0.1").withHandshakeLimits(null)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("HandshakeLimits.DEFAULT");
    }
}

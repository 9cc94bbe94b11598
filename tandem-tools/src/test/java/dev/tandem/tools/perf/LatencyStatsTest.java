package dev.tandem.tools.perf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class LatencyStatsTest {
    /** 1..100 microseconds, shuffled, in nanoseconds. */
    private static long[] oneToHundredMicros() {
        long[] s = new long[100];
        for (int i = 0; i < 100; i++) {
            s[i] = ((i * 37) % 100 + 1) * 1000L;
        }
        return s;
    }

    @Test
    void figuresOfOneToHundred() {
        LatencyStats l = LatencyStats.of(2, oneToHundredMicros(), 100, 1);
        assertThat(l.bytes()).isEqualTo(2);
        assertThat(l.iterations()).isEqualTo(100);
        assertThat(l.minUs()).isEqualTo(1.0);
        assertThat(l.maxUs()).isEqualTo(100.0);
        assertThat(l.typicalUs()).isEqualTo(50.5);             // mean of the middle two
        assertThat(l.avgUs()).isEqualTo(50.5);
        assertThat(l.stdevUs()).isCloseTo(Math.sqrt((100.0 * 100 - 1) / 12), within(1e-9)); // population stdev of 1..n
        assertThat(l.p99Us()).isEqualTo(99.0);                 // rank ceil(0.99 * 100) = 99
        assertThat(l.p999Us()).isEqualTo(100.0);               // rank ceil(0.999 * 100) = 100
        assertThat(l.headline()).isEqualTo(l.typicalUs());
    }

    @Test
    void roundTripsAreHalved() {
        LatencyStats full = LatencyStats.of(2, oneToHundredMicros(), 100, 1);
        LatencyStats half = LatencyStats.of(2, oneToHundredMicros(), 100, 2);
        assertThat(half.minUs()).isEqualTo(full.minUs() / 2);
        assertThat(half.typicalUs()).isEqualTo(full.typicalUs() / 2);
        assertThat(half.stdevUs()).isCloseTo(full.stdevUs() / 2, within(1e-9));
        assertThat(half.p999Us()).isEqualTo(full.p999Us() / 2);
    }

    @Test
    void oddCountTakesTheMiddleSampleAndOnlyTheFirstCountSamplesCount() {
        long[] s = {9000, 1000, 5000, 777_000, 888_000};
        LatencyStats l = LatencyStats.of(8, s, 3, 1);
        assertThat(l.typicalUs()).isEqualTo(5.0);
        assertThat(l.maxUs()).isEqualTo(9.0);
        assertThat(l.avgUs()).isEqualTo(5.0);
        assertThat(l.stdevUs()).isCloseTo(Math.sqrt((16.0 + 0 + 16) / 3), within(1e-9));
    }

    @Test
    void percentilesOfAThousandSamplesAreNearestRank() {
        long[] s = new long[1000];
        for (int i = 0; i < s.length; i++) {
            s[i] = (s.length - i) * 1000L;      // 1000 .. 1 microseconds, descending
        }
        LatencyStats l = LatencyStats.of(2, s, s.length, 1);
        assertThat(l.p99Us()).isEqualTo(990.0);
        assertThat(l.p999Us()).isEqualTo(999.0);
        assertThat(l.typicalUs()).isEqualTo(500.5);
    }

    @Test
    void oneSample() {
        LatencyStats l = LatencyStats.of(2, new long[]{4200}, 1, 2);
        assertThat(l.minUs()).isEqualTo(2.1);
        assertThat(l.maxUs()).isEqualTo(2.1);
        assertThat(l.p999Us()).isEqualTo(2.1);
        assertThat(l.stdevUs()).isZero();
    }

    @Test
    void rejectsNoSamples() {
        assertThatThrownBy(() -> LatencyStats.of(2, new long[4], 0, 1)).hasMessageContaining("need 1..4 samples, got 0");
        assertThatThrownBy(() -> LatencyStats.of(2, new long[4], 5, 1)).hasMessageContaining("got 5");
    }
}

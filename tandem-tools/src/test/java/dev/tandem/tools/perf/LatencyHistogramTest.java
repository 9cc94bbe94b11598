package dev.tandem.tools.perf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** Duration mode's latency figures against the exact ones of iteration mode, on the same samples. */
class LatencyHistogramTest {
    private static LatencyHistogram histogramOf(long[] samples) {
        LatencyHistogram h = new LatencyHistogram();
        for (long v : samples) {
            h.record(v);
        }
        return h;
    }

    /** Each figure the histogram gives is the exact one, or within the stated relative error for the ranked ones. */
    private static void assertMatches(long[] samples, int divisor) {
        LatencyStats exact = LatencyStats.of(2, samples, samples.length, divisor);
        LatencyStats approx = histogramOf(samples).stats(2, divisor);
        assertThat(approx.iterations()).isEqualTo(exact.iterations());
        assertThat(approx.minUs()).isEqualTo(exact.minUs());
        assertThat(approx.maxUs()).isEqualTo(exact.maxUs());
        assertThat(approx.avgUs()).isCloseTo(exact.avgUs(), within(exact.avgUs() * 1e-12));
        assertThat(approx.stdevUs()).isCloseTo(exact.stdevUs(), within(Math.max(exact.stdevUs() * 1e-9, 1e-12)));
        double error = LatencyHistogram.RELATIVE_ERROR;
        assertThat(approx.typicalUs()).isCloseTo(exact.typicalUs(), within(exact.typicalUs() * error));
        assertThat(approx.p99Us()).isCloseTo(exact.p99Us(), within(exact.p99Us() * error));
        assertThat(approx.p999Us()).isCloseTo(exact.p999Us(), within(exact.p999Us() * error));
    }

    @Test
    void theStatedErrorIsUnderWhatTheReportsSay() {
        assertThat(LatencyHistogram.RELATIVE_ERROR).isLessThanOrEqualTo(0.004);
        assertThat(LatencyHistogram.RELATIVE_ERROR_TEXT).isEqualTo("0.4%");
    }

    @Test
    void smallValuesAreExact() {
        long[] s = {5, 1, 127, 64, 3, 90, 90, 12};
        LatencyStats exact = LatencyStats.of(2, s, s.length, 1);
        assertThat(histogramOf(s).stats(2, 1)).isEqualTo(exact);
    }

    @Test
    void oneToHundredMicrosecondsShuffled() {
        long[] s = new long[100];
        for (int i = 0; i < 100; i++) {
            s[i] = ((i * 37) % 100 + 1) * 1000L;
        }
        assertMatches(s, 1);
        assertMatches(s, 2);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 7, 42, 2026})
    void aLongTailedRunOfLatencies(long seed) {
        // mostly 5..15 us, some 100 us, a few 5 ms stalls: the shape a loaded 2-core machine gives
        SplittableRandom r = new SplittableRandom(seed);
        long[] s = new long[50_001];
        for (int i = 0; i < s.length; i++) {
            double p = r.nextDouble();
            s[i] = p < 0.98 ? r.nextLong(5_000, 15_000) : p < 0.999 ? r.nextLong(50_000, 150_000) : r.nextLong(1_000_000, 9_000_000);
        }
        assertMatches(s, 2);
        assertMatches(java.util.Arrays.copyOf(s, 50_000), 2);   // an even count: median of the middle two
    }

    @Test
    void everyValueLiesWithinTheErrorOfItsBucketsMiddle() {
        SplittableRandom r = new SplittableRandom(3);
        for (int i = 0; i < 200_000; i++) {
            long v = r.nextLong(1, Long.MAX_VALUE >>> r.nextInt(0, 62));
            double middle = LatencyHistogram.middle(LatencyHistogram.index(v));
            assertThat(Math.abs(middle - v)).as("value %d, bucket middle %f", v, middle).isLessThanOrEqualTo(v * LatencyHistogram.RELATIVE_ERROR);
        }
        assertThat(LatencyHistogram.index(Long.MAX_VALUE)).isEqualTo(LatencyHistogram.BUCKETS - 1);
    }

    @Test
    void nothingRecordedHasNoFigures() {
        assertThatThrownBy(() -> new LatencyHistogram().stats(2, 1)).hasMessageContaining("no samples");
    }

    @Test
    void negativeTimesCountAsZero() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(-5);
        h.record(1000);
        assertThat(h.stats(2, 1).minUs()).isZero();
        assertThat(h.count()).isEqualTo(2);
    }
}

package dev.tandem.tools.perf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class BandwidthStatsTest {
    @Test
    void steadyMicrosecondPerOperation() {
        int n = 1000;
        long[] posted = new long[n];
        long[] completed = new long[n];
        for (int i = 0; i < n; i++) {
            posted[i] = 5_000_000 + i * 1000L;
            completed[i] = 5_000_000 + (i + 1) * 1000L;
        }
        BandwidthStats b = BandwidthStats.of(1 << 20, posted, completed, n);
        // 1 MiB per microsecond = 10^6 MB/sec with MB = 2^20; 1 operation per microsecond = 1 Mpps
        assertThat(b.avgMBps()).isCloseTo(1e6, within(1e-3));
        assertThat(b.peakMBps()).isCloseTo(1e6, within(1e-3));
        assertThat(b.msgRateMpps()).isCloseTo(1.0, within(1e-9));
        assertThat(b.iterations()).isEqualTo(n);
        assertThat(b.headline()).isEqualTo(b.avgMBps());
    }

    @Test
    void peakIsTheBestRunOfConsecutiveOperations() {
        // all posted at 0; completed at 10, 11, 12, 40 us. Best window: ops 0..2 in 12 us, 4 us each.
        long[] posted = {0, 0, 0, 0};
        long[] completed = {10_000, 11_000, 12_000, 40_000};
        BandwidthStats b = BandwidthStats.of(1024, posted, completed, 4);
        double mbPerUs = 1024 / BandwidthStats.MB * 1e6;
        assertThat(b.avgMBps()).isCloseTo(mbPerUs / 10, within(1e-9));   // 4 ops in 40 us
        assertThat(b.peakMBps()).isCloseTo(mbPerUs / 4, within(1e-9));
        assertThat(b.msgRateMpps()).isCloseTo(0.1, within(1e-12));
    }

    @Test
    void longRunsUseAGridAndPeakIsNeverBelowAverage() {
        int n = 20_000;
        long[] posted = new long[n];
        long[] completed = new long[n];
        for (int i = 0; i < n; i++) {
            posted[i] = i * 100L;
            completed[i] = i * 100L + (i % 7 == 0 ? 5000 : 300);
        }
        BandwidthStats b = BandwidthStats.of(4096, posted, completed, n);
        assertThat(b.peakMBps()).isGreaterThanOrEqualTo(b.avgMBps());
        assertThat(b.avgMBps()).isPositive();
    }

    @Test
    void aWindowHasAverageAndRateButNoPeak() {
        // 1000 operations of 1 MiB from the first post at 5 ms to the last completion at 1005 ms
        BandwidthStats b = BandwidthStats.window(1 << 20, 1000, 5_000_000, 1_005_000_000);
        assertThat(b.avgMBps()).isCloseTo(1000.0, within(1e-9));
        assertThat(b.msgRateMpps()).isCloseTo(0.001, within(1e-12));
        assertThat(b.iterations()).isEqualTo(1000);
        assertThat(b.peakMBps()).isNaN();
        assertThat(b.hasPeak()).isFalse();
        assertThatThrownBy(() -> BandwidthStats.window(1, 0, 0, 1)).hasMessageContaining("at least 1 operation");
    }

    @Test
    void rejectsMoreOperationsThanRecorded() {
        assertThatThrownBy(() -> BandwidthStats.of(1, new long[3], new long[2], 3)).hasMessageContaining("need 1..2 operations, got 3");
    }
}

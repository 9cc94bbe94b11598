package dev.tandem.tools.perf;

import org.junit.jupiter.api.Test;

import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/** The expected strings are what perftest's own printf formats (REPORT_FMT, REPORT_FMT_LAT) produce. */
class PerfFormatTest {
    @Test
    void bandwidthRowAsPerftestPrintsIt() {
        BandwidthStats b = new BandwidthStats(65536, 5000, 2761.56, 2761.12, 0.044178);
        assertThat(PerfFormat.row(b)).isEqualTo(" 65536      5000             2761.56            2761.12\t\t   0.044178");
        assertThat(PerfFormat.row(new BandwidthStats(8388608, 32, 12345.678, 9.999, 0.0001234)))
                .isEqualTo(" 8388608    32               12345.68            10.00  \t\t   0.000123");
    }

    @Test
    void aBandwidthRowWithoutPeakSaysSoInItsColumn() {
        BandwidthStats b = BandwidthStats.window(65536, 123456, 0, 2_000_000_000L);
        assertThat(b.hasPeak()).isFalse();
        assertThat(PerfFormat.row(b)).isEqualTo(" 65536      123456           n/a                3858.00\t\t   0.061728");
    }

    @Test
    void latencyRowAsPerftestPrintsIt() {
        LatencyStats l = new LatencyStats(2, 1000, 0.87, 5.21, 0.9, 0.92, 0.1, 1.23, 5.21);
        assertThat(PerfFormat.row(l)).isEqualTo(
                " 2       1000          0.87           5.21         0.90     \t       0.92        \t0.10   \t\t1.23    \t\t5.21   ");
    }

    @Test
    void headersAndSeparatorArePerftests() {
        assertThat(PerfFormat.header(PerfTest.Kind.BANDWIDTH))
                .isEqualTo(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]");
        assertThat(PerfFormat.header(PerfTest.Kind.LATENCY)).isEqualTo(" #bytes #iterations    t_min[usec]    t_max[usec]  "
                + "t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ");
        assertThat(PerfFormat.RESULT_LINE).hasSize(87).matches("-+");
    }

    @Test
    void ratioLines() {
        assertThat(PerfFormat.ratio(PerfTest.Kind.BANDWIDTH, Baseline.TCP, 0.9261)).isEqualTo("ratio vs tcp: bw 0.93x");
        assertThat(PerfFormat.ratio(PerfTest.Kind.LATENCY, Baseline.TCP, 1.2149)).isEqualTo("ratio vs tcp: t_typical 1.21x");
        assertThat(PerfFormat.ratioOf(new LatencyStats(2, 5, 1, 9, 3.0, 4, 1, 8, 9), new LatencyStats(2, 5, 1, 9, 2.0, 4, 1, 8, 9)))
                .isEqualTo(1.5);
    }

    @Test
    void decimalPointWhateverTheDefaultLocale() {
        Locale saved = Locale.getDefault();
        Locale.setDefault(Locale.GERMANY);
        try {
            assertThat(PerfFormat.row(new BandwidthStats(2, 5, 1.5, 1.25, 0.5))).contains("1.50").contains("0.500000");
            assertThat(PerfFormat.ratio(PerfTest.Kind.BANDWIDTH, Baseline.TCP, 0.5)).endsWith("0.50x");
        } finally {
            Locale.setDefault(saved);
        }
    }
}

package dev.tandem.tools.perf;

import java.util.Locale;

/** perftest's text layout: its separator line, column headers and row formats, byte for byte. */
public final class PerfFormat {
    public static final String RESULT_LINE = "---------------------------------------------------------------------------------------";
    public static final String BW_HEADER = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    public static final String LAT_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
    private static final String BW_ROW = " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f";
    /** Duration mode measures no peak: the column says so rather than show a number. */
    private static final String BW_ROW_NO_PEAK = " %-7d    %-10d       %-7s            %-7.2f\t\t   %-7.6f";
    /** What the BW peak column shows when there is no peak. */
    public static final String NO_PEAK = "n/a";
    private static final String LAT_ROW = " %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f";

    private PerfFormat() {
    }

    public static String header(PerfTest.Kind kind) {
        return kind == PerfTest.Kind.BANDWIDTH ? BW_HEADER : LAT_HEADER;
    }

    public static String row(Figures f) {
        return switch (f) {
            case BandwidthStats b when b.hasPeak() ->
                    String.format(Locale.ROOT, BW_ROW, b.bytes(), b.iterations(), b.peakMBps(), b.avgMBps(), b.msgRateMpps());
            case BandwidthStats b -> String.format(Locale.ROOT, BW_ROW_NO_PEAK, b.bytes(), b.iterations(), NO_PEAK, b.avgMBps(), b.msgRateMpps());
            case LatencyStats l -> String.format(Locale.ROOT, LAT_ROW, l.bytes(), l.iterations(), l.minUs(), l.maxUs(), l.typicalUs(),
                    l.avgUs(), l.stdevUs(), l.p99Us(), l.p999Us());
        };
    }

    /**
     * {@code ratio vs tcp: bw 0.93x} for bandwidth (Tandem average / the baseline's: above 1 is faster),
     * {@code ratio vs iwarp: t_typical 1.21x} for latency (Tandem / the baseline: above 1 is slower).
     */
    public static String ratio(PerfTest.Kind kind, Baseline baseline, double ratio) {
        return String.format(Locale.ROOT, "ratio vs %s: %s %.2fx", baseline.cliName(), kind == PerfTest.Kind.BANDWIDTH ? "bw" : "t_typical", ratio);
    }

    /** Tandem's headline figure over the baseline's. */
    public static double ratioOf(Figures tandem, Figures baseline) {
        return tandem.headline() / baseline.headline();
    }
}

package dev.tandem.tools.perf;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The five perftest-style tests, named as on the command line ({@code write_bw} is perftest's {@code ib_write_bw}). */
public enum PerfTest {
    WRITE_BW("write_bw", Kind.BANDWIDTH, "RDMA_Write BW Test"),
    WRITE_LAT("write_lat", Kind.LATENCY, "RDMA_Write Latency Test"),
    SEND_BW("send_bw", Kind.BANDWIDTH, "Send BW Test"),
    SEND_LAT("send_lat", Kind.LATENCY, "Send Latency Test"),
    READ_LAT("read_lat", Kind.LATENCY, "RDMA_Read Latency Test");

    /** What a test reports: perftest's BW columns or its latency columns. */
    public enum Kind { BANDWIDTH, LATENCY }

    /** perftest's DEF_SIZE_BW. */
    public static final int DEFAULT_SIZE_BW = 65536;
    /** perftest's DEF_SIZE_LAT. */
    public static final int DEFAULT_SIZE_LAT = 2;
    /** perftest's DEF_ITERS_WB (write bandwidth). */
    public static final int DEFAULT_ITERS_WRITE_BW = 5000;
    /** perftest's DEF_ITERS. */
    public static final int DEFAULT_ITERS = 1000;

    private final String cliName;
    private final Kind kind;
    private final String title;

    PerfTest(String cliName, Kind kind, String title) {
        this.cliName = cliName;
        this.kind = kind;
        this.title = title;
    }

    public String cliName() {
        return cliName;
    }

    public Kind kind() {
        return kind;
    }

    /** The title perftest prints above its table. */
    public String title() {
        return title;
    }

    public boolean isBandwidth() {
        return kind == Kind.BANDWIDTH;
    }

    public int defaultSize() {
        return isBandwidth() ? DEFAULT_SIZE_BW : DEFAULT_SIZE_LAT;
    }

    public int defaultIterations() {
        return this == WRITE_BW ? DEFAULT_ITERS_WRITE_BW : DEFAULT_ITERS;
    }

    /**
     * Latency figures of a ping-pong test are half a round trip (perftest's rtt factor 2); a Read is
     * timed whole.
     */
    public int latencyDivisor() {
        return this == READ_LAT ? 1 : 2;
    }

    /** The test called {@code name} on the command line. */
    public static PerfTest fromCliName(String name) {
        for (PerfTest t : values()) {
            if (t.cliName.equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown test '" + name + "': choose one of " + names());
    }

    /** Every test name, comma separated. */
    public static String names() {
        return Arrays.stream(values()).map(PerfTest::cliName).collect(Collectors.joining(", "));
    }

    @Override
    public String toString() {
        return cliName;
    }
}

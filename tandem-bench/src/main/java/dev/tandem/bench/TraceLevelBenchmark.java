package dev.tandem.bench;

import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.Trace;
import dev.tandem.ras.TraceLevel;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * What hot-path tracing costs: send_lat and write_bw (as in {@link RasCostBenchmark}) with the trace
 * components {@code iwarp.rx} and {@code iwarp.tx} at level 0 (off) and at level 8 (hot internals:
 * every FPDU sent and received, every placement and every sealed FPDU is recorded in the trace ring).
 * A trial at level 8 fails unless the ring holds such records at its end; one at level 0 fails if it
 * holds any, so the comparison is what it claims.
 * <p>Run (from the repository root):
 * <pre>
 * ./mvnw -pl tandem-bench -am package -DskipTests
 * java -cp "tandem-bench/target/tandem-bench-0.1.0-SNAPSHOT.jar:tandem-bench/target/lib/*" \
 *      org.openjdk.jmh.Main TraceLevelBenchmark -rf json -rff trace-level.json
 * java -cp "tandem-bench/target/tandem-bench-0.1.0-SNAPSHOT.jar:tandem-bench/target/lib/*" \
 *      dev.tandem.bench.RatioReport trace-level.json
 * </pre>
 * {@link RatioReport} pairs {@code traceLevel=8} with {@code traceLevel=0} and prints the ratio of the
 * medians (8 / 0) and the cost of tracing at level 8 (latency added, or throughput lost).
 */
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(3)
public class TraceLevelBenchmark {
    static final String[] HOT_COMPONENTS = {"iwarp.rx", "iwarp.tx"};

    /** Sets the hot components' level in the process's RAS file (open once the link's adapters are). */
    static void setLevel(int level) {
        Trace trace = ProcessRas.current().trace();
        for (String c : HOT_COMPONENTS) {
            trace.setLevel(c, level);
        }
    }

    /** Checks that level 8 recorded hot-path events, and level 0 none. */
    static void checkRecorded(int level) {
        long hot = ProcessRas.current().trace().records().stream()
                .filter(r -> r.level() >= TraceLevel.HOT_ENTRY_EXIT && (r.event().equals("rx-place") || r.event().equals("tx-seal")))
                .count();
        if ((level >= TraceLevel.HOT_INTERNALS) != (hot > 0)) {
            throw new IllegalStateException("trace level " + level + " but " + hot + " hot-path placement/seal records in the ring");
        }
    }

    /** Send ping-pong at a trace level. */
    @State(Scope.Benchmark)
    public static class PingPong {
        @Param({"0", "8"})
        public int traceLevel;
        SendPingPong pingPong;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            pingPong = new SendPingPong(true);
            setLevel(traceLevel);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            try {
                checkRecorded(traceLevel);
            } finally {
                pingPong.close();
            }
        }
    }

    /** 64 KiB RDMA Write stream at a trace level. */
    @State(Scope.Benchmark)
    public static class Writes {
        @Param({"0", "8"})
        public int traceLevel;
        WriteStream stream;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            stream = new WriteStream(true, 64 * 1024);
            setLevel(traceLevel);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            try {
                stream.drain(Duration.ofSeconds(10));
                checkRecorded(traceLevel);
            } finally {
                stream.close();
            }
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public int sendLat(PingPong s) {
        return s.pingPong.roundTrip();
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public int writeBw(Writes s) {
        return s.stream.writeOne();
    }
}

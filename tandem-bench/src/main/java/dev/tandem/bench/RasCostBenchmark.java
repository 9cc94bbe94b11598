package dev.tandem.bench;

import dev.tandem.ras.RasSwitch;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.util.concurrent.TimeUnit;

/**
 * What RAS (counters and trace checks) costs on the data path: send_lat and write_bw over loopback
 * (adapters 127.0.1.1 and 127.0.1.2, CRC on), each with RAS as shipped ({@code *RasOn}) and in a JVM
 * started with the measurement switch {@code -Dtandem.ras=off} ({@code *RasOff}, see
 * {@link RasSwitch}).
 * <ul>
 *   <li>{@code sendLat*}: round trip of an 8-byte Send and its echo, µs/op (half of it is perftest's
 *       send_lat);</li>
 *   <li>{@code writeBw*}: 64 KiB RDMA Writes streamed, one in {@value WriteStream#SIGNAL_EVERY}
 *       signalled, {@value WriteStream#WINDOW} in flight; ops/s, so MiB/s = ops/s / 16.</li>
 * </ul>
 * Run (from the repository root):
 * <pre>
 * ./mvnw -pl tandem-bench -am package -DskipTests
 * java -cp "tandem-bench/target/tandem-bench-0.1.0-SNAPSHOT.jar:tandem-bench/target/lib/*" \
 *      org.openjdk.jmh.Main RasCostBenchmark -rf json -rff ras-cost.json
 * java -cp "tandem-bench/target/tandem-bench-0.1.0-SNAPSHOT.jar:tandem-bench/target/lib/*" \
 *      dev.tandem.bench.RatioReport ras-cost.json
 * </pre>
 * {@link RatioReport} prints, per pair, the ratio of the medians (on / off) and the cost: for
 * send_lat the latency added by RAS ({@code on/off - 1}), for write_bw the throughput lost
 * ({@code off/on - 1}); +2% means RAS makes the operation 2% more expensive. The variants run in
 * separate forks, one after the other, on a noisy 2-core machine: compare several runs (more forks,
 * {@code -f 5}) before trusting a difference of a few percent.
 */
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(3)
public class RasCostBenchmark {
    static final String RAS_OFF = "-D" + RasSwitch.PROPERTY + "=off";

    /** Fails the trial when the fork's RAS switch is not what the benchmark's name says. */
    static void checkSwitch(BenchmarkParams params) {
        boolean wantOn = !params.getBenchmark().endsWith("RasOff");
        if (RasSwitch.ON != wantOn) {
            throw new IllegalStateException(params.getBenchmark() + " runs with RasSwitch.ON = " + RasSwitch.ON
                    + "; JVM arguments " + params.getJvmArgs());
        }
    }

    /** An 8-byte Send ping-pong with an echo thread on side B. */
    @State(Scope.Benchmark)
    public static class PingPong {
        SendPingPong pingPong;

        @Setup(Level.Trial)
        public void setUp(BenchmarkParams params) throws Exception {
            checkSwitch(params);
            pingPong = new SendPingPong(true);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pingPong.close();
        }
    }

    /** A stream of 64 KiB RDMA Writes from A to B. */
    @State(Scope.Benchmark)
    public static class Writes {
        WriteStream stream;

        @Setup(Level.Trial)
        public void setUp(BenchmarkParams params) throws Exception {
            checkSwitch(params);
            stream = new WriteStream(true, 64 * 1024);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            stream.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public int sendLatRasOn(PingPong s) {
        return s.pingPong.roundTrip();
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @Fork(value = 3, jvmArgsAppend = RAS_OFF)
    public int sendLatRasOff(PingPong s) {
        return s.pingPong.roundTrip();
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public int writeBwRasOn(Writes s) {
        return s.stream.writeOne();
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @Fork(value = 3, jvmArgsAppend = RAS_OFF)
    public int writeBwRasOff(Writes s) {
        return s.stream.writeOne();
    }
}

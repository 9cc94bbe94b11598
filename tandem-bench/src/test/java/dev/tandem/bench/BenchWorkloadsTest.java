package dev.tandem.bench;

import dev.tandem.ras.CounterSnapshot;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.TraceLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The benchmarks' workloads move real data, stop their threads, and level 8 really traces. */
class BenchWorkloadsTest {

    @Test
    @Timeout(60)
    void pingPongRoundTripsAndStopsItsEchoThread() {
        SendPingPong p;
        try (SendPingPong pp = new SendPingPong(true)) {
            p = pp;
            for (int i = 0; i < 200; i++) {
                assertThat(pp.roundTrip()).isPositive();
            }
            assertThat(pp.echoAlive()).isTrue();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        assertThat(p.echoAlive()).as("bench-echo stopped by close").isFalse();
    }

    @Test
    @Timeout(60)
    void writeStreamKeepsItsWindowAndPlacesEveryByte() throws Exception {
        try (WriteStream s = new WriteStream(true, 64 * 1024)) {
            for (int i = 0; i < 4 * WriteStream.WINDOW; i++) {
                s.writeOne();
            }
            s.drain(Duration.ofSeconds(10));
            String label = s.link.b.name() + " mr " + String.format("0x%08x", s.link.mrB.rkey()) + " bytes placed";
            long expected = s.posted() * 64 * 1024;
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            long placed;
            while ((placed = placed(label)) < expected) {
                assertThat(System.nanoTime() - deadline).as("B placed %d of %d bytes within 10 s", placed, expected).isNegative();
                Thread.onSpinWait();
            }
            assertThat(placed).as("every byte of every write placed, no more").isEqualTo(expected);
        }
    }

    private static long placed(String label) {
        return ProcessRas.current().counters().snapshot().stream().filter(c -> c.label().equals(label))
                .mapToLong(CounterSnapshot::value).findFirst().orElseThrow(() -> new AssertionError("no counter " + label));
    }

    @Test
    @Timeout(60)
    void level8RecordsHotPathEventsThatTheTraceBenchmarkChecks() {
        try (SendPingPong pp = new SendPingPong(true)) {
            TraceLevelBenchmark.setLevel(TraceLevel.HOT_INTERNALS);
            try {
                for (int i = 0; i < 10; i++) {
                    pp.roundTrip();
                }
                TraceLevelBenchmark.checkRecorded(TraceLevel.HOT_INTERNALS);
                assertThatThrownBy(() -> TraceLevelBenchmark.checkRecorded(TraceLevel.OFF))
                        .hasMessageContaining("trace level 0 but");
            } finally {
                TraceLevelBenchmark.setLevel(TraceLevel.ERROR);
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}

package dev.tandem.tools.perf.tcp;

import dev.tandem.tools.perf.BandwidthStats;
import dev.tandem.tools.perf.LatencyStats;
import dev.tandem.tools.perf.Phase;
import dev.tandem.tools.perf.PerfTest;
import dev.tandem.tools.perf.SideResult;
import dev.tandem.tools.perf.WaitMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The TCP baseline on its own: both sides over loopback, each test, each waiting mode. */
class TcpPatternTest {
    @ParameterizedTest(name = "{0} {1} {2} bytes")
    @CsvSource({
            "WRITE_BW, POLL, 65536", "SEND_BW, EVENT, 1000",
            "WRITE_LAT, POLL, 2", "SEND_LAT, EVENT, 4096", "READ_LAT, POLL, 70000", "READ_LAT, EVENT, 2"})
    void bothSidesRunThePattern(PerfTest test, WaitMode wait, int size) throws Exception {
        Phase phase = new Phase(size, 40, 10);
        int buffer = Math.max(size, 64);
        InetAddress local = InetAddress.getLoopbackAddress();
        AtomicReference<Object> served = new AtomicReference<>();
        try (TcpBaselineServer server = TcpBaselineServer.open(local)) {
            Thread serving = Thread.ofPlatform().name("tcp-pattern-test-server").start(() -> {
                try (TcpLink link = server.accept(wait, buffer)) {
                    served.set(new TcpPattern(test, link).server(phase));
                } catch (Throwable t) {
                    served.set(t);
                }
            });
            SideResult client;
            try (TcpLink link = TcpLink.connect(local, new InetSocketAddress(local, server.port()), wait, buffer)) {
                client = new TcpPattern(test, link).client(phase);
            }
            assertThat(serving.join(Duration.ofSeconds(30))).as("server thread finished").isTrue();
            assertThat(served.get()).isInstanceOf(SideResult.class);
            assertThat(((SideResult) served.get()).figures()).isNull();

            if (test.isBandwidth()) {
                BandwidthStats b = (BandwidthStats) client.figures();
                assertThat(b.iterations()).isEqualTo(40);
                assertThat(b.bytes()).isEqualTo(size);
                assertThat(b.avgMBps()).isPositive().isLessThanOrEqualTo(b.peakMBps());
            } else {
                LatencyStats l = (LatencyStats) client.figures();
                assertThat(l.iterations()).isEqualTo(40);
                assertThat(l.minUs()).isPositive().isLessThanOrEqualTo(l.typicalUs());
                assertThat(l.typicalUs()).isLessThanOrEqualTo(l.maxUs());
            }
        }
    }
}

package dev.tandem.tools.perf;

import dev.tandem.tools.Adapters;
import dev.tandem.tools.perf.rdma.Patience;
import dev.tandem.tools.perf.rdma.RdmaEndpoint;
import dev.tandem.verbs.RdmaDevice;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** A waiting side judges its peer by the connection and its progress, not by its own completions. */
class PerfLivenessTest {
    /** Short enough for a test, long enough for a loaded 2-core machine to answer a probe. */
    static final Patience SHORT = new Patience(Duration.ofMillis(1500), Duration.ofMillis(100));

    /**
     * The targets of one-sided operations see no completion for the whole phase; the phase lasts
     * twice the (short) stall limit and succeeds, because the probes find the client progressing.
     */
    @ParameterizedTest
    @CsvSource({"WRITE_BW, POLL", "READ_LAT, POLL", "WRITE_BW, EVENT", "READ_LAT, EVENT"})
    void aQuietServerPhaseLongerThanTheStallLimitSucceeds(PerfTest test, WaitMode wait) {
        int seconds = (int) SHORT.stallLimit().multipliedBy(2).toSeconds();
        PerfSettings s = new PerfSettings(test, test.defaultSize(), 1000, seconds, 16, false, false, wait, PerfDevice.IWARP, Baseline.NONE, 10,
                Role.LOOPBACK, null, null, 0);
        MeasuredRun run = PerfLoopback.run(s, Adapters::open, PerfProgress.NONE, SHORT);
        assertThat(run.results()).singleElement().satisfies(r -> assertThat(r.tandem().iterations()).isPositive());
    }

    /**
     * A client that connects with a valid hello and then does nothing: its adapter answers the
     * server's probes, its application never advances. The server says so, within a bound.
     */
    @ParameterizedTest
    @EnumSource(value = WaitMode.class)
    void aPeerThatStopsProgressingIsReportedWhileItsConnectionStaysUp(WaitMode wait) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (RdmaDevice serverDevice = Adapters.open("127.0.4.2", false);
             RdmaDevice clientDevice = Adapters.open("127.0.4.1", false);
             PerfServer server = PerfServer.listen(serverDevice, new InetSocketAddress("127.0.4.2", 0), false, SHORT)) {
            Thread serving = Thread.ofPlatform().name("perf-liveness-server").start(() -> {
                try {
                    server.serveOne(Duration.ofSeconds(30));
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            int area = RdmaEndpoint.areaFor(4096);
            try (RdmaEndpoint silent = RdmaEndpoint.create(clientDevice, area, 8, 8, wait, "silent client", Patience.DEFAULT)) {
                Hello.Client hello = new Hello.Client(PerfTest.WRITE_BW, wait, Baseline.NONE, false, false, 4096, 1000, 0, 16,
                        silent.rkey(), area, PerfSettings.NO_DURATION);
                silent.qp().connect(server.address(), hello.encode(), Duration.ofSeconds(10));
                assertThat(serving.join(Duration.ofSeconds(60))).as("the server gave up on the silent client").isTrue();
            }
        }
        assertThat(failure.get()).isInstanceOf(PerfException.class)
                .hasMessageStartingWith("server waiting for a completion: the peer showed no progress for ")
                .hasMessageContaining("it answers probes (the link and its adapter are alive) but its progress word stayed at 0: "
                        + "the peer application stopped progressing");
    }
}

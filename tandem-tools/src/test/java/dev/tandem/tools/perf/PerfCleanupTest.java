package dev.tandem.tools.perf;

import dev.tandem.tools.Adapters;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventSubscription;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionChannel;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.PortState;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.ResourceLeakException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * tandem perf closes what it opens on every path, and reports the failure that caused a run to end.
 * The tests run in strict leak mode: an adapter closed under an open resource throws
 * {@link ResourceLeakException}, so a leak would show up as the failure (or attached to it).
 */
class PerfCleanupTest {
    private static PerfSettings loopback(PerfTest test, boolean baseline) {
        return loopback(test, baseline ? Baseline.TCP : Baseline.NONE);
    }

    /** A loopback run with {@code baseline}: an iWARP baseline runs under fail-over devices (it is what they are compared with). */
    private static PerfSettings loopback(PerfTest test, Baseline baseline) {
        return new PerfSettings(test, test.defaultSize(), 200, PerfSettings.NO_DURATION, 16, false, true, WaitMode.POLL,
                baseline == Baseline.IWARP ? PerfDevice.FAILOVER : PerfDevice.IWARP, baseline, 10, Role.LOOPBACK, null, null, 0);
    }

    /** Every throwable in the chain: causes and suppressed ones, recursively. */
    private static List<Throwable> everything(Throwable t) {
        List<Throwable> all = new ArrayList<>();
        collect(t, all);
        return all;
    }

    private static void collect(Throwable t, List<Throwable> into) {
        if (t == null || into.contains(t)) {
            return;
        }
        into.add(t);
        collect(t.getCause(), into);
        for (Throwable s : t.getSuppressed()) {
            collect(s, into);
        }
    }

    private static void assertNoLeakIn(Throwable failure) {
        assertThat(everything(failure)).as("no leak is reported with %s", failure).noneMatch(ResourceLeakException.class::isInstance);
    }

    @AfterEach
    void theServerThreadIsGone() {
        // PerfLoopback joins its server thread before it returns or throws: nothing to wait for here
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals(PerfLoopback.SERVER_THREAD) && t.isAlive());
    }

    @Test
    void aNormalRunClosesEverything() {
        MeasuredRun run = PerfLoopback.run(loopback(PerfTest.WRITE_BW, true), Adapters::open, PerfProgress.NONE);
        assertThat(run.results()).hasSize(1);
    }

    @ParameterizedTest(name = "baseline {0}")
    @EnumSource(Baseline.class)
    void aClientFailureIsTheFailureReportedAndNothingLeaks(Baseline baseline) {
        IllegalStateException givesUp = new IllegalStateException("test: the client gives up after connecting");
        PerfProgress failing = new PerfProgress() {
            @Override
            public void connected(String local, String remote, boolean crc) {
                throw givesUp;
            }

            @Override
            public void result(SizeResult result) {
            }
        };
        // with a baseline the server waits for the baseline's connection the client never makes: stopping it must end that wait
        AdapterOpener opener = baseline == Baseline.IWARP ? (ip, crc) -> Adapters.openFailover(ip, crc, "") : Adapters::open;
        Throwable thrown = catchThrowable(() -> PerfLoopback.run(loopback(PerfTest.SEND_LAT, baseline), opener, Adapters::open, failing));
        assertThat(thrown).isSameAs(givesUp);
        assertNoLeakIn(thrown);
    }

    /**
     * The client stops after connecting and keeps its connection: the server gives up on it (short
     * patience), closes its side, and that failure, not the client's "connection went down", is
     * the one reported.
     */
    @Test
    void aServerFailureIsTheFailureReportedAndNothingLeaks() {
        AtomicReference<RdmaDevice> clientDevice = new AtomicReference<>();
        AdapterOpener recording = (ip, crc) -> {
            RdmaDevice d = Adapters.open(ip, crc);
            if (ip.equals(PerfLoopback.CLIENT_IP)) {
                clientDevice.set(d);
            }
            return d;
        };
        PerfProgress stalls = new PerfProgress() {
            @Override
            public void connected(String local, String remote, boolean crc) {
                awaitConnectionLoss(clientDevice.get(), Duration.ofSeconds(60));
            }

            @Override
            public void result(SizeResult result) {
            }
        };
        Throwable thrown = catchThrowable(() -> PerfLoopback.run(loopback(PerfTest.WRITE_BW, false), recording, stalls, PerfLivenessTest.SHORT));
        assertThat(thrown).isInstanceOf(PerfException.class)
                .hasMessageStartingWith("the server side failed: server waiting for a completion: the peer showed no progress")
                .hasMessageEndingWith("the peer application stopped progressing");
        assertThat(thrown.getSuppressed()).singleElement().isInstanceOf(ConnectionLostException.class);
        assertNoLeakIn(thrown);
    }

    private static void awaitConnectionLoss(RdmaDevice device, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() < deadline) {
            AsyncEvent e = device.pollAsyncEvent(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            if (e != null && (e.type() == AsyncEventType.DISCONNECTED || e.type() == AsyncEventType.QP_FATAL)) {
                return;
            }
        }
        throw new AssertionError("the server did not close the connection within " + bound.toSeconds() + " s");
    }

    /** A server that cannot serve the run refuses it with the reason, which the client reports. */
    @Test
    void aRunTheServerCannotServeIsRefusedWithTheReason() {
        AdapterOpener smallServer = (ip, crc) -> {
            RdmaDevice d = Adapters.open(ip, crc);
            return ip.equals(PerfLoopback.SERVER_IP) ? new SmallQueues(d, 64) : d;
        };
        PerfSettings s = new PerfSettings(PerfTest.WRITE_BW, 4096, 200, PerfSettings.NO_DURATION, 100, false, true, WaitMode.POLL,
                PerfDevice.IWARP, Baseline.NONE, 10, Role.LOOPBACK, null, null, 0);
        assertThatThrownBy(() -> PerfLoopback.run(s, smallServer, PerfProgress.NONE))
                .isInstanceOf(PerfException.class)
                .hasMessageStartingWith("the server at 127.0.1.2:")
                .hasMessageContaining("refused the run: tandem perf server: this run needs a send queue of 109 and a receive queue of 4 "
                        + "slots, but adapter")
                .satisfies(PerfCleanupTest::assertNoLeakIn);
    }

    /** An adapter that claims smaller queues than it has, so that a server runs out of them. */
    private record SmallQueues(RdmaDevice d, int maxDepth) implements RdmaDevice {
        @Override
        public String name() {
            return d.name();
        }

        @Override
        public DeviceAttributes attributes() {
            DeviceAttributes a = d.attributes();
            return new DeviceAttributes(a.maxQueuePairs(), maxDepth, a.maxSge(), a.maxCqDepth(), a.maxMemoryRegions(),
                    a.maxMessageSize(), a.maxInlineData(), a.maxIrd(), a.maxOrd(), a.maxPrivateData(), a.maxCompletionQueues(),
                    a.maxSharedReceiveQueues(), a.maxProtectionDomains());
        }

        @Override
        public PortState portState() {
            return d.portState();
        }

        @Override
        public ProtectionDomain allocateProtectionDomain() {
            return d.allocateProtectionDomain();
        }

        @Override
        public CompletionQueue createCompletionQueue(int depth) {
            return d.createCompletionQueue(depth);
        }

        @Override
        public CompletionQueue createCompletionQueue(int depth, CompletionChannel channel) {
            return d.createCompletionQueue(depth, channel);
        }

        @Override
        public Listener listen(InetSocketAddress address, int backlog) {
            return d.listen(address, backlog);
        }

        @Override
        public AsyncEvent pollAsyncEvent(Duration timeout) {
            return d.pollAsyncEvent(timeout);
        }

        @Override
        public AsyncEventSubscription subscribeAsyncEvents() {
            return d.subscribeAsyncEvents();
        }

        @Override
        public boolean isClosed() {
            return d.isClosed();
        }

        @Override
        public void close() {
            d.close();
        }
    }
}

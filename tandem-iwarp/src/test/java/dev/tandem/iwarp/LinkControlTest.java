package dev.tandem.iwarp;

import dev.tandem.ras.CounterSnapshot;
import dev.tandem.ras.ErrorEntry;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasReader;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.ConnectionTimeoutException;
import dev.tandem.verbs.LinkControl;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.PortState;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResetReport;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Link faults injected on an adapter ({@link LinkControl}): a downed link is a black hole (nothing moves,
 * nothing is flushed, the peer hears nothing), traffic resumes intact once it is up, connects to and from
 * a downed adapter time out, and a reset of its connections fails both sides' QPs as a reset from the
 * network does, while the adapter goes on serving.
 */
@Timeout(60)
class LinkControlTest {
    /** How long a test watches for something that must not happen while the link is down. */
    private static final Duration QUIET = Duration.ofMillis(300);
    private static final int SIZE = 1 << 16;

    // ---------------------------------------------------------------- helpers

    /** What a CQ delivered within {@code window} (polled at least once): a copy of each completion. */
    private static List<WorkCompletion> pollFor(CompletionQueue cq, Duration window) {
        List<WorkCompletion> seen = new ArrayList<>();
        WorkCompletion[] wc = WorkCompletion.array(8);
        long deadline = System.nanoTime() + window.toNanos();
        do {
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                seen.add(new WorkCompletion().copyFrom(wc[i]));
            }
            if (n == 0) {
                Thread.onSpinWait();
            }
        } while (System.nanoTime() - deadline < 0);
        return seen;
    }

    private static void assertSuccess(WorkCompletion wc, long wrId) {
        assertThat(wc.wrId()).as(wc.toString()).isEqualTo(wrId);
        assertThat(wc.status()).as(wc.toString()).isEqualTo(CompletionStatus.SUCCESS);
    }

    /** The next async event of {@code device} of {@code type} within the pair's wait; the events skipped on the way are added to {@code skipped}. */
    private static AsyncEvent awaitEvent(RdmaDevice device, AsyncEventType type, List<AsyncEventType> skipped) {
        long deadline = System.nanoTime() + LoopbackPair.WAIT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            AsyncEvent e = device.pollAsyncEvent(Duration.ofMillis(100));
            if (e == null) {
                continue;
            }
            if (e.type() == type) {
                return e;
            }
            skipped.add(e.type());
        }
        throw new AssertionError("no " + type + " event on " + device.name() + " within " + LoopbackPair.WAIT + " (saw " + skipped + ")");
    }

    private static AsyncEvent awaitEvent(RdmaDevice device, AsyncEventType type) {
        return awaitEvent(device, type, new ArrayList<>());
    }

    private static void fill(MemoryRegion mr, long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            mr.segment().set(ValueLayout.JAVA_BYTE, offset + i, (byte) (i * 31 + seed));
        }
    }

    private static void assertSameBytes(MemoryRegion a, long aOffset, MemoryRegion b, long bOffset, int length, String what) {
        assertThat(a.segment().asSlice(aOffset, length).mismatch(b.segment().asSlice(bOffset, length))).as(what).isEqualTo(-1L);
    }

    private static boolean allZero(MemoryRegion mr, long offset, int length) {
        for (int i = 0; i < length; i++) {
            if (mr.segment().get(ValueLayout.JAVA_BYTE, offset + i) != 0) {
                return false;
            }
        }
        return true;
    }

    private static Map<String, Long> counters() {
        try (RasReader reader = RasReader.open(ProcessRas.current().path())) {
            return reader.counters().stream().collect(Collectors.toMap(CounterSnapshot::label, CounterSnapshot::value, Long::sum));
        }
    }

    private static long counter(String label) {
        Long v = counters().get(label);
        if (v == null) {
            throw new AssertionError("no counter '" + label + "'");
        }
        return v;
    }

    private static List<ErrorEntry> errors() {
        try (RasReader reader = RasReader.open(ProcessRas.current().path())) {
            return reader.errors();
        }
    }

    /** A Send from A to B gets through on a pair of connected QPs of the two adapters. */
    private static void proveUsable(IwarpDevice a, IwarpDevice b) throws Exception {
        try (LoopbackPair fresh = new LoopbackPair(a, b, 4096, false)) {
            fresh.qpB.postReceive(new ReceiveRequest(1, new Sge(fresh.mrB, 0, 64)));
            fresh.qpA.postSend(new WorkRequest.Send(2, new Sge(fresh.mrA, 0, 64), WrFlags.SIGNALED));
            assertSuccess(LoopbackPair.awaitOne(fresh.cqA), 2);
            assertSuccess(LoopbackPair.awaitOne(fresh.cqB), 1);
        }
    }

    // ---------------------------------------------------------------- a downed link is a black hole

    @ParameterizedTest(name = "link down on the {0}")
    @ValueSource(strings = {"sender", "receiver"})
    void aSendWaitsForTheLinkAndArrivesIntactOnceItIsUp(String side) throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, SIZE)) {
            IwarpDevice downed = side.equals("sender") ? p.a : p.b;
            fill(p.mrA, 0, 5000, 7);
            downed.linkDown();
            p.qpB.postReceive(new ReceiveRequest(1, new Sge(p.mrB, 0, 8192)));
            p.qpA.postSend(new WorkRequest.Send(2, new Sge(p.mrA, 0, 5000), WrFlags.SIGNALED));

            assertThat(pollFor(p.cqB, QUIET)).as("the receiver's completions while the " + side + "'s link is down").isEmpty();
            List<WorkCompletion> sender = pollFor(p.cqA, Duration.ZERO);
            if (side.equals("sender")) {
                assertThat(sender).as("a downed sender sends nothing, so nothing completes").isEmpty();
            }
            assertThat(allZero(p.mrB, 0, 5000)).as("nothing placed in the receive buffer while the link is down").isTrue();
            assertThat(p.qpA.state()).as("the sender's QP: the black hole flushes nothing").isEqualTo(QpState.RTS);
            assertThat(p.qpB.state()).as("the receiver's QP: its peer tells it nothing").isEqualTo(QpState.RTS);

            downed.linkUp();
            if (sender.isEmpty()) {
                sender.add(LoopbackPair.awaitOne(p.cqA));
            }
            assertSuccess(sender.getFirst(), 2);
            WorkCompletion received = LoopbackPair.awaitOne(p.cqB);
            assertSuccess(received, 1);
            assertThat(received.byteLength()).isEqualTo(5000);
            assertSameBytes(p.mrA, 0, p.mrB, 0, 5000, "the Send's bytes at the receiver");
        }
    }

    @ParameterizedTest(name = "link down on the {0}")
    @ValueSource(strings = {"requester", "responder"})
    void anRdmaWriteAndReadInFlightCompleteOnceTheLinkIsUp(String side) throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, SIZE)) {
            IwarpDevice downed = side.equals("requester") ? p.a : p.b;
            fill(p.mrA, 0, 3000, 11);
            fill(p.mrB, 0, 3000, 23);
            downed.linkDown();
            p.qpA.postSend(new WorkRequest.RdmaWrite(3, new Sge(p.mrA, 0, 3000), 16384, p.mrB.rkey(), WrFlags.SIGNALED));
            p.qpA.postSend(new WorkRequest.RdmaRead(4, new Sge(p.mrA, 32768, 3000), 0, p.mrB.rkey(), WrFlags.SIGNALED));

            List<WorkCompletion> early = pollFor(p.cqA, QUIET);
            // a Write completes when its bytes are handed to TCP: a downed responder cannot stop that
            assertThat(early).as("completions while the " + side + "'s link is down").allSatisfy(wc -> assertSuccess(wc, 3));
            if (side.equals("requester")) {
                assertThat(early).as("a downed requester sends nothing").isEmpty();
            }
            assertThat(allZero(p.mrB, 16384, 3000)).as("the Write is not placed while the link is down").isTrue();
            assertThat(allZero(p.mrA, 32768, 3000)).as("no Read Response is placed while the link is down").isTrue();

            downed.linkUp();
            List<WorkCompletion> done = new ArrayList<>(early);
            while (done.size() < 2) {
                done.add(LoopbackPair.awaitOne(p.cqA));
            }
            assertSuccess(done.get(0), 3);
            assertSuccess(done.get(1), 4);
            assertSameBytes(p.mrA, 0, p.mrB, 16384, 3000, "the Write's bytes at the responder");
            assertSameBytes(p.mrB, 0, p.mrA, 32768, 3000, "the Read's bytes at the requester");
        }
    }

    @Test
    void portStateAndEventsFollowEachTransitionOnce() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            IwarpDevice a = p.a;
            assertThat(a).isInstanceOf(LinkControl.class);
            long downsBefore = counter(a.name() + " link down");
            assertThat(a.isLinkUp()).isTrue();
            a.linkUp();   // up already: nothing happens

            a.linkDown();
            a.linkDown();   // down already: no second event
            assertThat(a.isLinkUp()).isFalse();
            assertThat(a.portState()).isEqualTo(PortState.DOWN);
            assertThat(p.b.portState()).as("the peer's port").isEqualTo(PortState.ACTIVE);
            List<AsyncEventType> skipped = new ArrayList<>();
            AsyncEvent down = awaitEvent(a, AsyncEventType.PORT_ERROR, skipped);
            assertThat(down.resource()).isSameAs(a);
            assertThat(down.detail()).isEqualTo("link of adapter " + a.name() + " down (injected)");
            assertThat(skipped).as("events before the first PORT_ERROR").doesNotContain(AsyncEventType.PORT_ACTIVE);

            a.linkUp();
            a.linkUp();
            assertThat(a.isLinkUp()).isTrue();
            assertThat(a.portState()).isEqualTo(PortState.ACTIVE);
            AsyncEvent up = awaitEvent(a, AsyncEventType.PORT_ACTIVE, skipped);
            assertThat(up.detail()).isEqualTo("link of adapter " + a.name() + " up (injected)");
            assertThat(skipped).as("events between the PORT_ERROR and the PORT_ACTIVE").doesNotContain(AsyncEventType.PORT_ERROR);

            a.linkDown();
            assertThat(awaitEvent(a, AsyncEventType.PORT_ERROR, skipped)).isNotNull();
            assertThat(skipped).as("a second linkUp raised no second PORT_ACTIVE").doesNotContain(AsyncEventType.PORT_ACTIVE);
            a.linkUp();
            awaitEvent(a, AsyncEventType.PORT_ACTIVE);

            assertThat(counter(a.name() + " link down")).as("link down transitions").isEqualTo(downsBefore + 2);
            assertThat(counter(a.name() + " link up")).as("link up transitions").isEqualTo(2);
            assertThat(errors()).anySatisfy(e -> {
                assertThat(e.cause()).isEqualTo(a.name() + ": link down (injected): no byte moves on the adapter's connections until link up");
                assertThat(e.count()).isEqualTo(2);
            });
        }
    }

    @Test
    void linkControlOfAClosedAdapterSaysItIsClosed() {
        IwarpDevice a = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
        a.close();

        assertThatThrownBy(a::linkDown).isInstanceOf(ResourceClosedException.class).hasMessage("linkDown: adapter " + a.name() + " is closed");
        assertThatThrownBy(a::linkUp).isInstanceOf(ResourceClosedException.class).hasMessage("linkUp: adapter " + a.name() + " is closed");
        assertThatThrownBy(a::resetConnections).isInstanceOf(ResourceClosedException.class)
                .hasMessage("resetConnections: adapter " + a.name() + " is closed");
    }

    @Test
    void eachTransitionAndResetIsTracedAtLevelRareWithWhatItDid() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            dev.tandem.ras.TraceComponent cm = ProcessRas.current().trace().component("iwarp.cm");
            int level = cm.level();
            cm.setLevel(dev.tandem.ras.TraceLevel.RARE);
            try {
                long after = ProcessRas.current().trace().records().stream().mapToLong(dev.tandem.ras.TraceRecord::sequence).max().orElse(-1);
                p.a.linkDown();
                p.qpA.disconnect();   // its close waits for the link: one parked close
                p.a.linkUp();
                LoopbackPair.awaitState(p.qpB, QpState.ERROR, "QP B once A's parked close went out");
                assertThat(p.a.resetConnections()).as("connections left to reset").isZero();

                long me = Thread.currentThread().threadId();
                List<dev.tandem.ras.TraceRecord> mine = ProcessRas.current().trace().records().stream()
                        .filter(t -> t.sequence() > after && t.threadId() == me && t.component().equals("iwarp.cm"))
                        .filter(t -> List.of("link-dn", "link-up", "conn-rst").contains(t.event()))
                        .toList();
                assertThat(mine).extracting(dev.tandem.ras.TraceRecord::event).containsExactly("link-dn", "link-up", "conn-rst");
                assertThat(mine).extracting(dev.tandem.ras.TraceRecord::text).containsExactly("link down", "link up", "connections reset");
                assertThat(mine.get(1).a()).as("closes the link held back, traced at link up").isEqualTo(1);
                assertThat(mine.get(2).a()).as("connections reset").isZero();
            } finally {
                cm.setLevel(level);
            }
        }
    }

    @Test
    void theEngineDoesNotSpinOnBytesWaitingBehindADownedLink() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, SIZE)) {
            fill(p.mrA, 0, 4096, 3);
            p.qpB.postReceive(new ReceiveRequest(1, new Sge(p.mrB, 0, 4096)));
            p.b.linkDown();
            p.qpA.postSend(new WorkRequest.Send(2, new Sge(p.mrA, 0, 4096), WrFlags.SIGNALED));
            // the Send's bytes are in TCP, waiting in B's socket: readable all the time B's link is down
            assertSuccess(LoopbackPair.awaitOne(p.cqA), 2);

            // nothing polls B's CQ now, so B's engine alone serves it; a 1 ms wait per idle cycle allows
            // about 300 cycles, one that spins on the readable socket runs tens of thousands
            String cycles = p.b.engineThreadName() + " cycles";
            long before = counter(cycles);
            long end = System.nanoTime() + QUIET.toNanos();
            while (System.nanoTime() - end < 0) {
                LockSupport.parkNanos(end - System.nanoTime());
            }
            long ran = counter(cycles) - before;
            assertThat(ran).as("duty cycles of B's engine in %d ms with its link down and bytes waiting", QUIET.toMillis())
                    .isLessThan(3000);
            assertThat(p.b.isEngineRunning()).as("B's engine thread").isTrue();

            p.b.linkUp();
            assertSuccess(LoopbackPair.awaitOne(p.cqB), 1);
            assertSameBytes(p.mrA, 0, p.mrB, 0, 4096, "the Send's bytes at B");
        }
    }

    // ---------------------------------------------------------------- connects and listeners

    @Test
    void aConnectFromADownedAdapterTimesOutAndSucceedsOnceTheLinkIsUp() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            QueuePair client = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA));
            QueuePair server = p.pdB.createQueuePair(QueuePairConfig.of(p.cqB));
            try (Listener l = p.b.listen(new InetSocketAddress("127.0.1.2", 0), 4)) {
                CompletableFuture<ConnectionRequest> request = CompletableFuture.supplyAsync(() -> l.accept(Duration.ofSeconds(20)));
                long timeoutsBefore = counter(p.a.name() + " connect timeouts");
                p.a.linkDown();
                long start = System.nanoTime();
                assertThatThrownBy(() -> client.connect(l.localAddress(), new byte[0], QUIET))
                        .isInstanceOf(ConnectionTimeoutException.class)
                        .hasMessage("no complete TCP connect from " + l.localAddress() + " within " + QUIET.toMillis() + " ms");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the connect waited for the link until its timeout")
                        .isGreaterThanOrEqualTo(QUIET);
                assertThat(counter(p.a.name() + " connect timeouts")).isEqualTo(timeoutsBefore + 1);
                assertThat(request).as("the listener heard nothing from a downed adapter").isNotDone();
                assertThat(client.state()).as("a connect that timed out leaves the QP as it was").isEqualTo(QpState.INIT);

                p.a.linkUp();
                CompletableFuture<Void> accepted = request.thenAccept(r -> r.accept(server, new byte[0]));
                client.connect(l.localAddress(), new byte[0], LoopbackPair.WAIT);
                accepted.get(5, TimeUnit.SECONDS);
            }
            server.postReceive(new ReceiveRequest(7, new Sge(p.mrB, 0, 64)));
            client.postSend(new WorkRequest.Send(8, new Sge(p.mrA, 0, 64), WrFlags.SIGNALED));
            assertSuccess(LoopbackPair.awaitOne(p.cqA), 8);
            assertSuccess(LoopbackPair.awaitOne(p.cqB), 7);
            client.close();
            server.close();
        }
    }

    @Test
    void aConnectWaitingForTheLinkGoesOnAsSoonAsTheLinkIsUp() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            QueuePair client = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA));
            QueuePair server = p.pdB.createQueuePair(QueuePairConfig.of(p.cqB));
            try (Listener l = p.b.listen(new InetSocketAddress("127.0.1.2", 0), 4)) {
                p.a.linkDown();
                CompletableFuture<byte[]> connected = new CompletableFuture<>();
                Thread connector = Thread.ofPlatform().daemon().name("test-connect-" + p.a.name()).start(() -> {
                    try {
                        connected.complete(client.connect(l.localAddress(), new byte[] {4}, Duration.ofSeconds(30)));
                    } catch (RuntimeException e) {
                        connected.completeExceptionally(e);
                    }
                });
                try {
                    long deadline = System.nanoTime() + LoopbackPair.WAIT.toNanos();
                    while (connector.getState() != Thread.State.TIMED_WAITING) {
                        assertThat(System.nanoTime() - deadline).as("the connect waits for the link within " + LoopbackPair.WAIT).isNegative();
                        Thread.onSpinWait();
                    }

                    p.a.linkUp();

                    l.accept(LoopbackPair.WAIT).accept(server, new byte[] {5});
                    assertThat(connected.get(LoopbackPair.WAIT.toMillis(), TimeUnit.MILLISECONDS))
                            .as("the connect went on once the link was up, long before its 30 s timeout").containsExactly(5);
                } finally {
                    connector.join(TimeUnit.SECONDS.toMillis(35));
                    assertThat(connector.isAlive()).as(connector.getName() + " ended").isFalse();
                }
            }
            client.close();
            server.close();
        }
    }

    @Test
    void aConnectWaitingForTheLinkEndsAtOnceWhenItsAdapterCloses() throws Exception {
        IwarpDevice a = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
        try (IwarpDevice b = IwarpDevice.open(IwarpConfig.of("127.0.1.2"));
             Listener l = b.listen(new InetSocketAddress("127.0.1.2", 0), 4)) {
            dev.tandem.verbs.ProtectionDomain pd = a.allocateProtectionDomain();
            CompletionQueue cq = a.createCompletionQueue(4);
            QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq));
            a.linkDown();
            FatalErrorResetTest.Connector connector = FatalErrorResetTest.Connector.start(qp, l);
            try {
                connector.awaitWaiting();
                qp.close();
                cq.close();
                pd.close();

                a.close();

                assertThat(connector.outcome()).as("the connect waiting for the link ends with its adapter, not at its timeout")
                        .isInstanceOf(ResourceClosedException.class).hasMessage("adapter " + a.name() + " is closed");
            } finally {
                connector.stop();
                a.close();
            }
        }
    }

    @Test
    void aCloseParkedByADownedLinkIsResetOnceByResetConnections() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            p.a.linkDown();
            p.qpA.disconnect();   // its close (a FIN) waits for the link

            assertThat(p.a.resetConnections()).as("the parked close, aborted").isEqualTo(1);
            assertThat(p.a.resetConnections()).as("nothing left to reset").isZero();

            LoopbackPair.awaitState(p.qpB, QpState.ERROR, "QP B, whose connection A reset while its link was down");
            assertThat(p.qpB.failure()).hasValueSatisfying(f -> assertThat(f.kind()).as("B's failure " + f)
                    .isEqualTo(dev.tandem.verbs.QpFailure.Kind.TRANSPORT));
            p.a.linkUp();
        }
    }

    @Test
    void aConnectToADownedAdaptersListenerTimesOutAndSucceedsOnceTheLinkIsUp() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            QueuePair client = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA));
            QueuePair server = p.pdB.createQueuePair(QueuePairConfig.of(p.cqB));
            try (Listener l = p.b.listen(new InetSocketAddress("127.0.1.2", 0), 4)) {
                CompletableFuture<ConnectionRequest> request = CompletableFuture.supplyAsync(() -> l.accept(Duration.ofSeconds(20)));
                long closedByPeerBefore = counter(p.b.name() + " handshakes closed by peer");
                p.b.linkDown();
                assertThatThrownBy(() -> client.connect(l.localAddress(), new byte[0], QUIET))
                        .isInstanceOf(ConnectionTimeoutException.class)
                        .hasMessage("no complete MPA Reply from " + l.localAddress() + " within " + QUIET.toMillis() + " ms");
                assertThat(request).as("a downed listener hands on no request").isNotDone();

                p.b.linkUp();
                // the Request of the connect that gave up is in B's backlog: it must not reach the application
                CompletableFuture<Void> accepted = request.thenAccept(r -> r.accept(server, new byte[0]));
                client.connect(l.localAddress(), new byte[0], LoopbackPair.WAIT);
                accepted.get(5, TimeUnit.SECONDS);
                assertThat(request.get().remoteAddress()).as("the request accepted is the connect after link up")
                        .isEqualTo(client.localAddress());
                assertThat(counter(p.b.name() + " handshakes closed by peer")).as("the request of the connect that gave up, dropped")
                        .isEqualTo(closedByPeerBefore + 1);
            }
            server.postReceive(new ReceiveRequest(7, new Sge(p.mrB, 0, 64)));
            client.postSend(new WorkRequest.Send(8, new Sge(p.mrA, 0, 64), WrFlags.SIGNALED));
            assertSuccess(LoopbackPair.awaitOne(p.cqA), 8);
            assertSuccess(LoopbackPair.awaitOne(p.cqB), 7);
            client.close();
            server.close();
        }
    }

    @Test
    void aRequestAcceptedWhileTheLinkIsDownFailsAndItsInitiatorHearsNothing() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            QueuePair client = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA));
            QueuePair server = p.pdB.createQueuePair(QueuePairConfig.of(p.cqB));
            try (Listener l = p.b.listen(new InetSocketAddress("127.0.1.2", 0), 4)) {
                CompletableFuture<byte[]> connecting = CompletableFuture.supplyAsync(
                        () -> client.connect(l.localAddress(), new byte[0], Duration.ofMillis(500)));
                ConnectionRequest request = l.accept(LoopbackPair.WAIT);
                p.b.linkDown();
                assertThatThrownBy(() -> request.accept(server, new byte[0]))
                        .isInstanceOf(ConnectionException.class)
                        .hasMessageContaining("the link of adapter " + p.b.name() + " is down, so no MPA Reply can go out");
                assertThat(server.state()).as("the QP the accept failed onto").isEqualTo(QpState.INIT);
                assertThatThrownBy(() -> connecting.get(5, TimeUnit.SECONDS))
                        .as("the initiator hears nothing, not even the close: it times out")
                        .hasCauseInstanceOf(ConnectionTimeoutException.class);
                p.b.linkUp();
            }
            client.close();
            server.close();
        }
    }

    // ---------------------------------------------------------------- connection reset

    @Test
    void resetConnectionsFailsBothSidesFlushesTheirWorkAndTheAdapterServesOn() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            QueuePair c2 = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA));
            QueuePair s2 = p.pdB.createQueuePair(QueuePairConfig.of(p.cqB));
            p.connect(c2, s2);
            long resetBefore = counter(p.a.name() + " connections reset");
            p.qpA.postReceive(new ReceiveRequest(10, new Sge(p.mrA, 0, 64)));
            p.qpA.postReceive(new ReceiveRequest(11, new Sge(p.mrA, 64, 64)));
            p.qpB.postReceive(new ReceiveRequest(20, new Sge(p.mrB, 0, 64)));

            assertThat(p.a.resetConnections()).as("connections reset").isEqualTo(2);

            assertThat(p.qpA.state()).isEqualTo(QpState.ERROR);
            assertThat(c2.state()).isEqualTo(QpState.ERROR);
            LoopbackPair.awaitState(p.qpB, QpState.ERROR, "the peer's QP after the reset");
            LoopbackPair.awaitState(s2, QpState.ERROR, "the peer's second QP after the reset");
            WorkCompletion a1 = LoopbackPair.awaitOne(p.cqA);
            WorkCompletion a2 = LoopbackPair.awaitOne(p.cqA);
            assertThat(List.of(a1.wrId(), a2.wrId())).containsExactly(10L, 11L);
            assertThat(List.of(a1.status(), a2.status())).containsOnly(CompletionStatus.WR_FLUSH_ERR);
            WorkCompletion b1 = LoopbackPair.awaitOne(p.cqB);
            assertThat(b1.wrId()).isEqualTo(20);
            assertThat(b1.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);

            AsyncEvent local = awaitEvent(p.a, AsyncEventType.QP_FATAL);
            assertThat(local.detail()).isEqualTo("connection lost: connection reset (injected)");
            AsyncEvent peer = awaitEvent(p.b, AsyncEventType.QP_FATAL);
            assertThat(peer.detail()).as("the peer sees a reset, not an orderly close").containsIgnoringCase("reset");
            assertThat(p.a.isEngineRunning()).isTrue();
            assertThat(p.b.isEngineRunning()).isTrue();
            assertThat(counter(p.a.name() + " connections reset")).isEqualTo(resetBefore + 2);
            assertThat(errors()).anySatisfy(e -> {
                assertThat(e.cause()).isEqualTo(p.a.name() + ": connections reset (injected): # TCP connection(s) aborted with RST");
                assertThat(e.text()).startsWith("connections reset (injected): 2 TCP connection(s) aborted with RST");
            });

            proveUsable(p.a, p.b);
            c2.close();
            s2.close();
        }
    }

    @Test
    void resetConnectionsWhileTheLinkIsDownFlushesQueuedWorkAndLeavesTheLinkDown() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            p.a.linkDown();
            p.qpB.postReceive(new ReceiveRequest(20, new Sge(p.mrB, 0, 64)));
            p.qpA.postSend(new WorkRequest.Send(5, new Sge(p.mrA, 0, 64), WrFlags.SIGNALED));

            assertThat(p.a.resetConnections()).isEqualTo(1);

            WorkCompletion flushed = LoopbackPair.awaitOne(p.cqA);
            assertThat(flushed.wrId()).isEqualTo(5);
            assertThat(flushed.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
            LoopbackPair.awaitState(p.qpB, QpState.ERROR, "the peer's QP: the reset reaches it whatever A's link");
            WorkCompletion peer = LoopbackPair.awaitOne(p.cqB);
            assertThat(peer.wrId()).isEqualTo(20);
            assertThat(peer.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
            assertThat(p.a.isLinkUp()).as("a reset leaves the link down").isFalse();

            p.a.linkUp();
            proveUsable(p.a, p.b);
        }
    }

    // ---------------------------------------------------------------- the life cycle with a downed link

    @Test
    void aFatalErrorAndResetWorkWhileTheLinkIsDownAndThePeerLearnsOnlyOnceItIsUp() throws Exception {
        try (IwarpDevice a = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
             IwarpDevice b = IwarpDevice.open(IwarpConfig.of("127.0.1.2"))) {
            LoopbackPair p = new LoopbackPair(a, b, 4096, false);
            a.linkDown();
            p.qpA.postReceive(new ReceiveRequest(1, new Sge(p.mrA, 0, 64)));
            a.injectFatalError("test: PCI error");
            assertThat(a.portState()).as("a failed adapter is FATAL, whatever its link").isEqualTo(PortState.FATAL);
            WorkCompletion flushed = LoopbackPair.awaitOne(p.cqA);
            assertThat(flushed.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
            assertThat(p.qpA.state()).isEqualTo(QpState.ERROR);

            p.closeSideA();
            ResetReport report = a.reset(Duration.ofSeconds(1));
            assertThat(report.rogueResources()).isEmpty();
            assertThat(a.isLinkUp()).as("a reset leaves the link as it was").isFalse();
            assertThat(a.portState()).isEqualTo(PortState.DOWN);
            assertThat(p.qpB.state()).as("the peer heard nothing of A's closed QP through the downed link").isEqualTo(QpState.RTS);

            a.linkUp();
            assertThat(a.portState()).isEqualTo(PortState.ACTIVE);
            LoopbackPair.awaitState(p.qpB, QpState.ERROR, "the peer's QP once A's close went out");
            assertThat(LoopbackPair.awaitFailureEvent(b, "the peer sees its connection end").resource()).isSameAs(p.qpB);
            p.close();
            proveUsable(a, b);
        }
    }

    @Test
    void closingAnAdapterWithItsLinkDownEndsItsConnectionsItsListenerAndItsEngine() throws Exception {
        IwarpDevice a = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
        try (IwarpDevice b = IwarpDevice.open(IwarpConfig.of("127.0.1.2"))) {
            LoopbackPair p = new LoopbackPair(a, b, 4096, false);
            Listener l = a.listen(new InetSocketAddress("127.0.1.1", 0), 4);
            a.linkDown();
            p.qpA.postSend(new WorkRequest.Send(1, new Sge(p.mrA, 0, 64), WrFlags.SIGNALED));
            p.qpB.postReceive(new ReceiveRequest(2, new Sge(p.mrB, 0, 64)));
            l.close();
            p.closeSideA();
            a.close();
            assertThat(a.isEngineRunning()).as("A's engine thread after A closed").isFalse();
            assertThatThrownBy(a::linkUp).isInstanceOf(ResourceClosedException.class).hasMessageContaining("is closed");

            LoopbackPair.awaitState(p.qpB, QpState.ERROR, "the peer's QP once A closed");
            WorkCompletion flushed = LoopbackPair.awaitOne(p.cqB);
            assertThat(flushed.wrId()).as("the Send never left A").isEqualTo(2);
            assertThat(flushed.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
            p.close();
        } finally {
            a.close();
        }
    }
}

package dev.tandem.failover;

import dev.tandem.failover.check.CheckedStream;
import dev.tandem.failover.check.StreamShape;
import dev.tandem.failover.check.Verdict;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.LinkControl;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * In a switched fabric every adapter of a node reaches every adapter of its peer: a connection has a path
 * for each pair (cross paths), so it survives any fault that leaves one adapter on each side, and a fault
 * on one side does not move the other side off an adapter that works.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CrossPathsTest {
    private final Opened opened = new Opened();

    @AfterEach
    void close() {
        opened.close();
    }

    private <T extends AutoCloseable> T keep(T c) {
        return opened.keep(c);
    }

    /** a's connection to b, carrying a checked stream (b's receives posted before it connects). */
    private record Pair(FailoverDevice a, FailoverDevice b, FailoverQueuePair qa, FailoverQueuePair qb, CheckedStream stream) {
    }

    private Pair pair(String options) throws Exception {
        FailoverDevice a = keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.1+127.0.2.1?node=a" + options));
        FailoverDevice b = keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.2+127.0.2.2?node=b" + options));
        ProtectionDomain pdA = keep(a.allocateProtectionDomain());
        ProtectionDomain pdB = keep(b.allocateProtectionDomain());
        CompletionQueue cqA = keep(a.createCompletionQueue(128));
        CompletionQueue cqB = keep(b.createCompletionQueue(128));
        FailoverQueuePair qa = (FailoverQueuePair) keep(pdA.createQueuePair(QueuePairConfig.of(cqA).withDepths(32, 8)));
        FailoverQueuePair qb = (FailoverQueuePair) keep(pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(8, 32)));
        CheckedStream stream = keep(CheckedStream.between(qa, qb, StreamShape.sendsAndWrites(512)));
        Opened.connect(qa, b, "127.0.1.2", qb);
        return new Pair(a, b, qa, qb, stream);
    }

    @Test
    void aFatalErrorOfAsAdapterAndOfBsOtherAdapterTogetherLeaveTheConnectionOnTheCrossPath() throws Exception {
        Pair p = pair("");
        FailoverWatch wa = p.a().watch();
        FailoverWatch wb = p.b().watch();
        assertThat(p.stream().run(300, Opened.WAIT, Duration.ofMillis(100), null).clean()).isTrue();
        int aDies = p.a().adapterOf(p.qa());
        int bDies = 1 - aDies; // the adapter of b that a's other adapter was not cabled to before cross paths
        Thread other = Thread.ofPlatform().name("test-fatal-b").start(() ->
                ((AdapterControl) p.b().adapters().get(bDies)).injectFatalError("test: b's adapter " + bDies));
        ((AdapterControl) p.a().adapters().get(aDies)).injectFatalError("test: a's adapter " + aDies);
        other.join(Opened.WAIT.toMillis());

        Verdict v = p.stream().run(1000, Opened.WAIT, Duration.ofMillis(100), null);
        List<FailoverEvent> ea = TwoNodes.events(wa);
        List<FailoverEvent> eb = TwoNodes.events(wb);
        assertThat(v.clean()).as("%s%nnode a: %s%nnode b: %s", v, ea, eb).isTrue();
        assertThat(v.messagesReceived()).isEqualTo(1000);
        assertThat(ea).noneMatch(e -> e instanceof FailoverEvent.NoPathLeft);
        assertThat(eb).noneMatch(e -> e instanceof FailoverEvent.NoPathLeft);
        assertThat(p.a().adapterOf(p.qa())).as("a sends from the adapter it kept").isEqualTo(1 - aDies);
        assertThat(p.b().receiveAdapterOf(p.qb())).as("b receives on the adapter it kept").isEqualTo(1 - bDies);
    }

    @Test
    void aFaultOfTheReceiversAdapterDoesNotMoveTheSenderOffItsOwnHealthyAdapter() throws Exception {
        Pair p = pair("");
        assertThat(p.stream().run(300, Opened.WAIT, Duration.ofMillis(100), null).clean()).isTrue();
        int aSends = p.a().adapterOf(p.qa());
        int bReceives = p.b().receiveAdapterOf(p.qb());
        ((AdapterControl) p.b().adapters().get(bReceives)).injectFatalError("test: b's adapter where a's Sends arrive");
        Verdict v = p.stream().run(1000, Opened.WAIT, Duration.ofMillis(100), null);
        assertThat(v.clean()).as("%s", v).isTrue();
        assertThat(p.b().receiveAdapterOf(p.qb())).as("b's receives left its failed adapter").isNotEqualTo(bReceives);
        assertThat(p.a().adapterOf(p.qa())).as("a still sends from its own adapter, over the cross path").isEqualTo(aSends);
    }

    /**
     * A link blip shorter than the peer's detection, on either side: the side whose adapter blipped loses its
     * paths there (its adapter told it), the other keeps them up until that side's REPORT; all are set up
     * again, and then they stay up (a backup is not lost again and again), whichever side connected.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "blip on node {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"a", "b"})
    void afterABlipShorterThanThePeersDetectionThePathsComeBackAndStayUp(String node) throws Exception {
        Pair p = pair("");
        assertThat(p.stream().run(200, Opened.WAIT, Duration.ofMillis(100), null).clean()).isTrue();
        int full = p.a().livePaths(p.qa());
        FailoverDevice blipped = node.equals("a") ? p.a() : p.b();
        int adapter = node.equals("a") ? p.a().adapterOf(p.qa()) : p.b().adapterOf(p.qb()); // the adapter carrying its Sends
        LinkControl link = (LinkControl) blipped.adapters().get(adapter);
        link.linkDown();
        awaitLive(p, live -> live < full, "the paths on the blipped adapter to be lost", Opened.WAIT);
        link.linkUp(); // well within the peer's detection (150 ms)
        awaitLive(p, live -> live == full, "the paths set up again", Duration.ofSeconds(5));

        FailoverWatch wa = p.a().watch();
        FailoverWatch wb = p.b().watch();
        // a second of traffic: no path is lost again (before, a backup could be set up and lost every 200 to 400 ms)
        long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        int messages = 200;
        while (System.nanoTime() < until) {
            assertThat(p.stream().run(messages += 100, Opened.WAIT, Duration.ofMillis(100), null).clean()).isTrue();
        }
        List<FailoverEvent> ea = TwoNodes.events(wa);
        List<FailoverEvent> eb = TwoNodes.events(wb);
        assertThat(ea).as("node a after the heal").noneMatch(e -> e instanceof FailoverEvent.BackupLost || e instanceof FailoverEvent.Holding);
        assertThat(eb).as("node b after the heal").noneMatch(e -> e instanceof FailoverEvent.BackupLost || e instanceof FailoverEvent.Holding);
        assertThat(p.a().livePaths(p.qa())).isEqualTo(full);
        assertThat(p.b().livePaths(p.qb())).isEqualTo(full);
    }

    private static void awaitLive(Pair p, java.util.function.IntPredicate wanted, String what, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!wanted.test(p.a().livePaths(p.qa())) || !wanted.test(p.b().livePaths(p.qb()))) {
            assertThat(System.nanoTime()).as("%s: a has %d, b has %d live paths", what, p.a().livePaths(p.qa()), p.b().livePaths(p.qb()))
                    .isLessThan(deadline);
            p.stream().step();
        }
    }
}

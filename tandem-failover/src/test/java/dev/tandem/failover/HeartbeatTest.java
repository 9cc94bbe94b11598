package dev.tandem.failover;

import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.LinkControl;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevices;
import dev.tandem.verbs.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The heartbeat finds a silent path once its probe stays unanswered for the detection time, but not
 * when the monitor itself ran late (this process stalled): then the probe gets a fresh window; nor when
 * the answer was taken (by any poller) before the probe's post returned to the monitor. The
 * heartbeat here is slow (5 s), so the test drives each round itself with the clock it chooses.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HeartbeatTest {
    private final Opened opened = new Opened();

    /** Lets a monitor the test keeps busy go again (before the devices close). */
    private Runnable releaseMonitor = () -> { };

    @AfterEach
    void close() {
        releaseMonitor.run();
        opened.close();
    }

    private <T extends AutoCloseable> T keep(T c) {
        return opened.keep(c);
    }

    /** b's device, once {@link #connected()} made it. */
    private FailoverDevice peer;

    /** a's QP, connected to b's over two paths; both devices' heartbeats slow (5 s), so the test drives the rounds. */
    private FailoverQueuePair connected() throws Exception {
        FailoverDevice a = keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.1+127.0.2.1?node=a&heartbeatMs=5000&misses=2"));
        FailoverDevice b = keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.2+127.0.2.2?node=b&heartbeatMs=5000&misses=2"));
        peer = b;
        ProtectionDomain pdA = keep(a.allocateProtectionDomain());
        ProtectionDomain pdB = keep(b.allocateProtectionDomain());
        CompletionQueue cqA = keep(a.createCompletionQueue(64));
        CompletionQueue cqB = keep(b.createCompletionQueue(64));
        FailoverQueuePair qa = (FailoverQueuePair) keep(pdA.createQueuePair(QueuePairConfig.of(cqA).withDepths(8, 8)));
        FailoverQueuePair qb = (FailoverQueuePair) keep(pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(8, 8)));
        Opened.connect(qa, b, "127.0.1.2", qb);
        return qa;
    }

    @Test
    void aProbeOverdueAfterTheMonitorRanLateGetsAFreshWindowAndOneOverdueOtherwiseFailsThePath() throws Exception {
        FailoverQueuePair qa = connected();
        FailoverDevice a = qa.device;
        FailoverDevice b = peer;
        Path carrying = qa.paths.sendPath();
        int peerEnd = 1 - carrying.remote; // the peer's adapter no carrying path ends at: both paths there are backups
        List<Path> silent = qa.paths.all().stream().filter(p -> p.remote == peerEnd).toList();
        assertThat(silent).hasSize(2).noneMatch(qa::carries);
        // a's monitor is busy: b's REPORT of the paths it lost is not read, so only a's heartbeat can find them
        releaseMonitor = holdMonitor(a);
        ((LinkControl) b.adapters().get(peerEnd)).linkDown(); // the backups there go silent: no answer comes back
        FailoverWatch wa = a.watch();
        long detection = a.config().detection().toNanos();

        long t0 = System.nanoTime();
        qa.heartbeats().beat(t0, false); // sends the probes
        assertThat(silent).as("the silent paths' probes are out").allMatch(p -> p.heartbeatSent.get() == t0);
        qa.heartbeats().beat(t0 + 2 * detection, true);
        assertThat(qa.livePaths()).as("paths after a round whose monitor ran late").isEqualTo(4);
        assertThat(silent).as("the overdue probes' fresh window").allMatch(p -> p.heartbeatSent.get() == t0 + 2 * detection);

        List<Path> working = qa.paths.all().stream().filter(p -> p.remote != peerEnd).toList();
        long deadline = System.nanoTime() + Opened.WAIT.toNanos();
        while (working.stream().anyMatch(p -> p.heartbeatSent.get() != 0)) { // the working paths' probes are answered (the clock here only jumps)
            assertThat(System.nanoTime()).as("the answers to the working paths' probes").isLessThan(deadline);
            qa.sendCq.adapterEvent(); // the application's poll takes it (the monitor, which sweeps idle CQs, is busy)
            Thread.onSpinWait();
        }
        qa.heartbeats().beat(t0 + 2 * detection + detection + 1, false);
        List<FailoverEvent> seen = TwoNodes.events(wa);
        assertThat(qa.livePaths()).as("paths after the probes stayed unanswered a whole detection time: %s", seen).isEqualTo(2);
        assertThat(seen.stream().filter(e -> e instanceof FailoverEvent.BackupLost lost && lost.cause().startsWith("silent link")).count())
                .as("backups lost to the silent link: %s", seen).isEqualTo(2);
    }

    /** Keeps {@code d}'s monitor thread busy until the returned action runs (bounded): it then reads no mailbox and runs no heartbeat. */
    private static Runnable holdMonitor(FailoverDevice d) throws InterruptedException {
        java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        d.monitor().submit(() -> {
            busy.countDown();
            try {
                done.await(Opened.WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(busy.await(Opened.WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)).as("the monitor took the task").isTrue();
        return done::countDown;
    }

    /**
     * Another thread's poll may take a probe's answer before the post returns to the monitor (in the lab,
     * after a fail-over, it did about one run in two): that answer counts, and the path stays live. When the
     * monitor stamped the probe only after posting it, the stamp outlived its answer, and the next rounds
     * took the healthy path for a silent link.
     */
    @Test
    void aProbeAnsweredBeforeItsPostReturnedIsAnsweredAndItsPathStaysLive() throws Exception {
        FailoverQueuePair qa = connected();
        FailoverWatch wa = qa.device.watch();
        long detection = qa.device.config().detection().toNanos();
        Path first = qa.paths.all().getFirst(); // the round probes the paths in order: the point is reached on the first
        boolean[] taken = new boolean[1];
        qa.device.faults.arm(FaultPoint.DURING_HEARTBEAT, () -> taken[0] = takeAnswer(qa, first));

        long t0 = System.nanoTime();
        qa.heartbeats().beat(t0, false);
        assertThat(taken[0]).as("the probe's answer, taken by a poll while the probe was posted").isTrue();

        long deadline = System.nanoTime() + Opened.WAIT.toNanos();
        while (qa.paths.all().stream().anyMatch(p -> p != first && p.heartbeatSent.get() != 0)) { // the others are answered the ordinary way
            assertThat(System.nanoTime()).as("the answers to the other paths' probes").isLessThan(deadline);
            qa.sendCq.adapterEvent();
            Thread.onSpinWait();
        }
        long later = t0 + detection + 1;
        qa.heartbeats().beat(later, false); // a detection time later: no probe is unanswered, so each path gets a new one
        List<FailoverEvent> seen = TwoNodes.events(wa);
        assertThat(seen).as("events after every probe was answered").noneMatch(e -> e instanceof FailoverEvent.PathDown);
        assertThat(qa.livePaths()).as("live paths after every probe was answered: %s", seen).isEqualTo(4);
        assertThat(first.heartbeatSent.get()).as("%s's next probe", first).isIn(0L, later);
    }

    /**
     * What the application's poller does while the monitor posts: takes the completions of path {@code p}'s
     * adapter into the connections (bounded wait), until the heartbeat's answer is among them; true once it was.
     */
    private static boolean takeAnswer(FailoverQueuePair qa, Path p) {
        WorkCompletion[] out = WorkCompletion.array(8);
        boolean[] answered = new boolean[1];
        long deadline = System.nanoTime() + Opened.WAIT.toNanos();
        while (!answered[0] && System.nanoTime() < deadline) {
            qa.sendCq.locked(() -> {
                int n = qa.sendCq.under(p.local).poll(out, 0, out.length);
                for (int i = 0; i < n; i++) {
                    answered[0] |= out[i].wrId() == (FailoverQueuePair.HEARTBEAT | p.id);
                    FailoverDevice.Route route = qa.device.routeOf(p.local, out[i].qpNumber());
                    if (route != null) {
                        route.qp().completions().take(route.path(), out[i], qa.sendCq);
                    }
                }
            });
            Thread.onSpinWait();
        }
        return answered[0];
    }
}

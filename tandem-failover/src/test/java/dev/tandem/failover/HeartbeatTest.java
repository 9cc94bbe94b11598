package dev.tandem.failover;

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
 * The heartbeat finds a silent path once its probe stays unanswered for the detection time, but not
 * when the monitor itself ran late (this process stalled): then the probe gets a fresh window. The
 * heartbeat here is slow (5 s), so the test drives each round itself with the clock it chooses.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HeartbeatTest {
    private final Opened opened = new Opened();

    @AfterEach
    void close() {
        opened.close();
    }

    private <T extends AutoCloseable> T keep(T c) {
        return opened.keep(c);
    }

    @Test
    void aProbeOverdueAfterTheMonitorRanLateGetsAFreshWindowAndOneOverdueOtherwiseFailsThePath() throws Exception {
        FailoverDevice a = keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.1+127.0.2.1?node=a&heartbeatMs=5000&misses=2"));
        FailoverDevice b = keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.2+127.0.2.2?node=b&heartbeatMs=5000&misses=2"));
        ProtectionDomain pdA = keep(a.allocateProtectionDomain());
        ProtectionDomain pdB = keep(b.allocateProtectionDomain());
        CompletionQueue cqA = keep(a.createCompletionQueue(64));
        CompletionQueue cqB = keep(b.createCompletionQueue(64));
        FailoverQueuePair qa = (FailoverQueuePair) keep(pdA.createQueuePair(QueuePairConfig.of(cqA).withDepths(8, 8)));
        FailoverQueuePair qb = (FailoverQueuePair) keep(pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(8, 8)));
        Opened.connect(qa, b, "127.0.1.2", qb);
        int backup = 1 - qa.sendPath();
        int peerEnd = qa.peerAdapterOf(backup);
        ((LinkControl) b.adapters().get(peerEnd)).linkDown(); // the backup path goes silent: no answer comes back
        FailoverWatch wa = a.watch();
        long detection = a.config().detection().toNanos();

        long t0 = System.nanoTime();
        qa.moves().heartbeat(t0, false); // sends the probes
        assertThat(qa.heartbeatSent[backup]).as("the backup's probe is out").isEqualTo(t0);
        qa.moves().heartbeat(t0 + 2 * detection, true);
        assertThat(qa.livePaths()).as("paths after a round whose monitor ran late").isEqualTo(2);
        assertThat(qa.heartbeatSent[backup]).as("the overdue probe's fresh window").isEqualTo(t0 + 2 * detection);

        int primary = qa.sendPath();
        long deadline = System.nanoTime() + Opened.WAIT.toNanos();
        while (qa.heartbeatSent[primary] != 0) { // the working path's probe is answered (the clock here only jumps)
            assertThat(System.nanoTime()).as("the answer to the primary path's probe").isLessThan(deadline);
            Thread.onSpinWait();
        }
        qa.moves().heartbeat(t0 + 2 * detection + detection + 1, false);
        List<FailoverEvent> seen = TwoNodes.events(wa);
        assertThat(qa.livePaths()).as("paths after the probe stayed unanswered a whole detection time: %s", seen).isEqualTo(1);
        assertThat(seen).anyMatch(e -> e instanceof FailoverEvent.BackupLost lost && lost.adapter() == backup
                && lost.cause().startsWith("silent link"));
    }
}

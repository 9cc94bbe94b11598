package dev.tandem.failover.check;

import dev.tandem.failover.FailoverDevice;
import dev.tandem.failover.FailoverEvent;
import dev.tandem.failover.FailoverWatch;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.CompletionStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The checked stream over real queue pairs: plain adapters and fail-over devices. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CheckedStreamTest {
    private static final Duration STALL = Duration.ofSeconds(10);
    private static final Duration EVERY = Duration.ofMillis(50);
    private static final String IWARP_A = "iwarp://127.0.1.1";
    private static final String IWARP_B = "iwarp://127.0.1.2";

    @Test
    void aCleanRunOverPlainAdaptersCountsEveryMessageBlockAndByte() throws Exception {
        try (StreamPair p = new StreamPair(IWARP_A, IWARP_B, "127.0.1.2", StreamShape.sendsAndWrites(512))) {
            List<Verdict> views = new ArrayList<>();
            Verdict v = p.stream.run(2000, STALL, EVERY, views::add);
            assertThat(v.clean()).as("%s", v).isTrue();
            assertThat(v.ending()).isEqualTo(Verdict.Ending.COMPLETE);
            assertThat(v.messagesSent()).isEqualTo(2000);
            assertThat(v.messagesReceived()).isEqualTo(2000);
            assertThat(v.blocksWritten()).isEqualTo(2000);
            assertThat(v.blocksVerified()).isEqualTo(2000);
            assertThat(v.bytesSent()).isEqualTo(2000L * 512 + 2000L * 512);
            assertThat(v.bytesReceived()).isEqualTo(v.bytesSent());
            assertThat(v.lost() + v.duplicated() + v.reordered() + v.checksumErrors() + v.errors()).isZero();
            assertThat(v.problems()).isEmpty();
            assertThat(views).allMatch(w -> w.ending() == Verdict.Ending.IN_PROGRESS);
        }
    }

    @Test
    void blocksEveryThirdMessageAndMessagesLargerThanBlocks() throws Exception {
        StreamShape shape = new StreamShape(16, 4096, 24, 256, 3);
        try (StreamPair p = new StreamPair(IWARP_A, IWARP_B, "127.0.1.2", shape)) {
            Verdict v = p.stream.run(1000, STALL, EVERY, null);
            assertThat(v.clean()).as("%s", v).isTrue();
            assertThat(v.blocksWritten()).isEqualTo(334).isEqualTo(v.blocksVerified());
            assertThat(v.bytesReceived()).isEqualTo(1000L * 4096 + 334L * 256);
        }
    }

    @Test
    void sendsOnly() throws Exception {
        try (StreamPair p = new StreamPair(IWARP_A, IWARP_B, "127.0.1.2", new StreamShape(8, 64, 0, 0, 0))) {
            Verdict v = p.stream.run(3000, STALL, EVERY, null);
            assertThat(v.clean()).as("%s", v).isTrue();
            assertThat(v.blocksWritten()).isZero();
            assertThat(v.bytesReceived()).isEqualTo(3000L * 64);
        }
    }

    @Test
    void aCleanRunOverTwoFailoverDevices() throws Exception {
        try (StreamPair p = new StreamPair("failover://127.0.1.1+127.0.2.1?node=a", "failover://127.0.1.2+127.0.2.2?node=b", "127.0.1.2",
                StreamShape.sendsAndWrites(1024))) {
            Verdict v = p.stream.run(1500, STALL, EVERY, null);
            assertThat(v.clean()).as("%s", v).isTrue();
            assertThat(v.messagesReceived()).isEqualTo(1500);
            assertThat(v.blocksVerified()).isEqualTo(1500);
            assertThat(v.bytesReceived()).isEqualTo(1500L * 2048);
        }
    }

    @Test
    void overFailoverDevicesAFatalErrorOnTheCarryingAdapterLeavesTheVerdictClean() throws Exception {
        try (StreamPair p = new StreamPair("failover://127.0.1.1+127.0.2.1?node=a", "failover://127.0.1.2+127.0.2.2?node=b", "127.0.1.2",
                StreamShape.sendsAndWrites(1024));
             FailoverWatch watch = ((FailoverDevice) p.a).watch()) {
            FailoverDevice a = (FailoverDevice) p.a;
            int carrying = a.adapterOf(p.qa);
            boolean[] injected = {false};
            Verdict v = p.stream.run(3000, STALL, Duration.ofMillis(1), w -> {
                if (!injected[0] && w.messagesSent() >= 1000) {
                    injected[0] = true;
                    ((AdapterControl) a.adapters().get(carrying)).injectFatalError("checked stream test");
                }
            });
            assertThat(injected[0]).isTrue();
            assertThat(v.clean()).as("%s", v).isTrue();
            assertThat(v.messagesReceived()).isEqualTo(3000);
            assertThat(v.blocksVerified()).isEqualTo(3000);
            assertThat(a.adapterOf(p.qa)).isNotEqualTo(carrying);
            List<FailoverEvent> seen = new ArrayList<>();
            FailoverEvent e;
            while ((e = watch.poll(Duration.ZERO)) != null) {
                seen.add(e);
            }
            assertThat(seen).anyMatch(x -> x instanceof FailoverEvent.Migrated);
        }
    }

    @Test
    void runUntilStoppedEndsCleanWithWhatWasSent() throws Exception {
        try (StreamPair p = new StreamPair(IWARP_A, IWARP_B, "127.0.1.2", StreamShape.sendsAndWrites(256))) {
            Verdict v = p.stream.runUntilStopped(STALL, Duration.ofMillis(1), w -> {
                if (w.messagesReceived() >= 500) {
                    p.stream.stop();
                }
            });
            assertThat(v.ending()).isEqualTo(Verdict.Ending.STOPPED);
            assertThat(v.clean()).as("%s", v).isTrue();
            assertThat(v.messagesSent()).isGreaterThanOrEqualTo(500).isEqualTo(v.messagesReceived());
        }
    }

    @Test
    void aFaultOnAPlainAdapterBreaksTheStreamAndEveryErrorIsCountedWithItsStatus() throws Exception {
        try (StreamPair p = new StreamPair(IWARP_A, IWARP_B, "127.0.1.2", StreamShape.sendsAndWrites(512))) {
            boolean[] injected = {false};
            Verdict v = p.stream.run(100_000, STALL, Duration.ofMillis(1), w -> {
                if (!injected[0] && w.messagesReceived() >= 300) {
                    injected[0] = true;
                    ((AdapterControl) p.a).injectFatalError("checked stream test");
                }
            });
            assertThat(injected[0]).isTrue();
            assertThat(v.ending()).as("%s", v).isEqualTo(Verdict.Ending.BROKEN);
            assertThat(v.clean()).isFalse();
            assertThat(v.errors()).isPositive();
            assertThat(v.errorsByStatus().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(v.errors());
            assertThat(v.errorsByStatus()).containsKey(CompletionStatus.WR_FLUSH_ERR);
            // a's work is flushed at once; b's only once b notices the connection is gone (it may not within the grace)
            assertThat(v.problems()).anyMatch(s -> s.startsWith("sender: a receive for credits completed WR_FLUSH_ERR"));
            assertThat(p.stream.broken()).isTrue();
            assertThat(v.messagesReceived()).isLessThan(100_000).isGreaterThanOrEqualTo(300);
            // what arrived is still checked: nothing that arrived was out of order or corrupt
            assertThat(v.duplicated() + v.reordered() + v.checksumErrors()).isZero();
        }
    }

    @Test
    void twoSidesSharingACompletionQueueAreRefused() {
        try (var d = dev.tandem.verbs.RdmaDevices.open(IWARP_A)) {
            var pd = d.allocateProtectionDomain();
            var cq = d.createCompletionQueue(256);
            var q1 = pd.createQueuePair(dev.tandem.verbs.QueuePairConfig.of(cq).withDepths(32, 32));
            var q2 = pd.createQueuePair(dev.tandem.verbs.QueuePairConfig.of(cq).withDepths(32, 32));
            assertThatThrownBy(() -> CheckedStream.between(q1, q2, StreamShape.sendsAndWrites(64)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("share a completion queue");
            q1.close();
            q2.close();
            cq.close();
            pd.close();
        }
    }

    @Test
    void aReceiverQueueSmallerThanTheWindowIsRefusedBeforeAnythingIsPosted() {
        try (var d = dev.tandem.verbs.RdmaDevices.open(IWARP_A)) {
            var pd = d.allocateProtectionDomain();
            var c1 = d.createCompletionQueue(256);
            var c2 = d.createCompletionQueue(256);
            var q1 = pd.createQueuePair(dev.tandem.verbs.QueuePairConfig.of(c1).withDepths(32, 32));
            var q2 = pd.createQueuePair(dev.tandem.verbs.QueuePairConfig.of(c2).withDepths(32, 8));
            assertThatThrownBy(() -> CheckedStream.between(q1, q2, StreamShape.sendsAndWrites(64)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("the receiver's QP takes 8 receives; the window is 32");
            q1.close();
            q2.close();
            c1.close();
            c2.close();
            pd.close();
        }
    }
}

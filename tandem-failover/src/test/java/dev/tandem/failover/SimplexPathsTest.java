package dev.tandem.failover;

import dev.tandem.failover.check.CheckedStream;
import dev.tandem.failover.check.StreamShape;
import dev.tandem.failover.check.Verdict;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.LinkControl;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Switchless: adapter k of a is cabled only to adapter k of b. A connection whose two ends receive on
 * different adapters runs as two simplex paths: each side sends over the cable that ends at the
 * peer's receive adapter, chosen when the connection is made from the receive adapter the peer's
 * hello names. When the cable of one direction is pulled, both directions move to the other cable.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SimplexPathsTest {
    private final Opened opened = new Opened();

    @AfterEach
    void close() {
        opened.close();
    }

    private <T extends AutoCloseable> T keep(T c) {
        return opened.keep(c);
    }

    /** Cable 1 carries a's Sends (and b's receives); cable 0 carries b's Sends (and a's receives). */
    @ParameterizedTest(name = "cable {0} pulled")
    @ValueSource(ints = {1, 0})
    void eachSideSendsOverTheCableToThePeersReceiveAdapterAndBothMoveWhenOneCableIsPulled(int cable) throws Exception {
        FailoverDevice a = keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.1+127.0.2.1?node=a&topology=switchless"));
        FailoverDevice b = keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.2+127.0.2.2?node=b&topology=switchless"));
        ProtectionDomain pdA = keep(a.allocateProtectionDomain());
        keep(b.allocateProtectionDomain()); // sessions take turns being primary: b's next one receives on adapter 1
        ProtectionDomain pdB = keep(b.allocateProtectionDomain());
        CompletionQueue cqA = keep(a.createCompletionQueue(128));
        CompletionQueue cqB = keep(b.createCompletionQueue(128));
        FailoverQueuePair qa = (FailoverQueuePair) keep(pdA.createQueuePair(QueuePairConfig.of(cqA).withDepths(32, 8)));
        FailoverQueuePair qb = (FailoverQueuePair) keep(pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(8, 32)));
        assertThat(qa.receiveAdapter()).as("a receives on its session's primary").isZero();
        assertThat(qb.receiveAdapter()).as("b receives on its session's primary").isEqualTo(1);
        CheckedStream stream = keep(CheckedStream.between(qa, qb, StreamShape.sendsAndWrites(512)));
        Opened.connect(qa, b, "127.0.1.2", qb);

        assertThat(qa.sendAdapter()).as("a sends over cable 1, to b's receive adapter").isEqualTo(1);
        assertThat(qa.paths.sendPath().remote).isEqualTo(1);
        assertThat(qb.sendAdapter()).as("b sends over cable 0, to a's receive adapter").isZero();
        assertThat(qb.paths.sendPath().remote).isZero();
        assertThat(qa.livePaths()).as("one path per cable").isEqualTo(2);

        Verdict first = stream.run(500, Opened.WAIT, Duration.ofMillis(100), null);
        assertThat(first.clean()).as("%s", first).isTrue();

        FailoverWatch wa = a.watch();
        FailoverWatch wb = b.watch();
        ((LinkControl) a.adapters().get(cable)).linkDown();
        int left = 1 - cable;
        Verdict v = stream.run(1500, Opened.WAIT, Duration.ofMillis(100), null);
        List<FailoverEvent> ea = TwoNodes.events(wa);
        List<FailoverEvent> eb = TwoNodes.events(wb);
        assertThat(v.clean()).as("%s%nnode a: %s%nnode b: %s", v, ea, eb).isTrue();
        assertThat(v.messagesReceived()).isEqualTo(1500);
        assertThat(ea).anyMatch(e -> e instanceof FailoverEvent.Migrated m && m.toAdapter() == left);
        assertThat(eb).anyMatch(e -> e instanceof FailoverEvent.Migrated m && m.toAdapter() == left);
        assertThat(List.of(qa.sendAdapter(), qa.receivePathAdapter(), qb.sendAdapter(), qb.receivePathAdapter()))
                .as("both directions of both sides on the cable left").containsOnly(left);
    }
}

package dev.tandem.iwarp;

import dev.tandem.provider.ResourceLimits;
import dev.tandem.ras.Counters;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasConfig;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ResourceLimitException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The limit an adapter meets besides its attributes: the process's RAS file holds at most
 * {@link RasConfig#counterLimit()} counters. A resource whose counters do not fit is refused with the
 * verbs' {@link ResourceLimitException} naming that limit, and leaves neither counters nor its slot behind.
 * (The conformance suite creates every maximum the attributes advertise.)
 */
class ResourceLimitsTest {

    @Test
    void aResourceWhoseCountersDoNotFitIsRefusedNamingTheCounterLimitAndLeavesNothingBehind(@TempDir Path dir) {
        assertThat(ProcessRas.current()).as("the process's RAS file, still held by an adapter of an earlier test").isNull();
        ProcessRas.configure(RasConfig.defaults().withDir(dir).withCounterCapacity(256).withCounterLimit(256).withDutyIntervalMs(0));
        try (IwarpDevice d = IwarpDevice.open(IwarpConfig.of("127.0.1.1"))) {
            Counters counters = ProcessRas.current().counters();
            List<CompletionQueue> cqs = new ArrayList<>();
            ResourceLimitException full = null;
            while (full == null) {
                int before = counters.allocatedCount();
                try {
                    cqs.add(d.createCompletionQueue(4));
                } catch (ResourceLimitException e) {
                    full = e;
                    assertThat(counters.allocatedCount()).as("counters left by the refused CQ").isEqualTo(before);
                }
            }
            assertThat(full.limit()).isEqualTo("RasConfig.counterLimit");
            assertThat(full.value()).isEqualTo(256);
            assertThat(full).hasMessageContaining("adapter " + d.name()).hasMessageContaining("cq " + (cqs.size() + 1))
                    .hasMessageContaining("all 256 counters");
            assertThat(d.limits().open(ResourceLimits.Kind.COMPLETION_QUEUE)).as("CQ slots taken").isEqualTo(cqs.size());

            ProtectionDomain pd = d.allocateProtectionDomain();
            cqs.removeLast().close(); // room for 3 counters; a QP has 9
            int before = counters.allocatedCount();
            assertThatThrownBy(() -> pd.createQueuePair(QueuePairConfig.of(cqs.getFirst()))).isInstanceOf(ResourceLimitException.class)
                    .hasMessageContaining("qp ");
            assertThat(counters.allocatedCount()).as("counters left by the refused QP").isEqualTo(before);
            assertThat(d.limits().open(ResourceLimits.Kind.QUEUE_PAIR)).as("QP slots taken").isZero();

            cqs.removeLast().close();
            cqs.removeLast().close(); // room for 9
            pd.createQueuePair(QueuePairConfig.of(cqs.getFirst())).close();
            pd.close();
            cqs.forEach(CompletionQueue::close);
            assertThat(d.limits().open(ResourceLimits.Kind.COMPLETION_QUEUE)).isZero();
        } finally {
            ProcessRas.configure(RasConfig.defaults());
        }
    }
}

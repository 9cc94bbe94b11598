package dev.tandem.iwarp;

import dev.tandem.provider.LeakMode;
import dev.tandem.provider.LiveResource;
import dev.tandem.ras.ErrorEntry;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasReader;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.ResourceLeakException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every resource records its owner; closing an adapter with resources open reports them as leaks. */
class LeakReportTest {

    @Test
    void everyResourceRecordsItsOwnerAndCallSite() {
        try (IwarpDevice d = IwarpDevice.open(IwarpConfig.of("127.0.1.1").withLeakMode(LeakMode.STRICT));
             Arena arena = Arena.ofConfined()) {
            ProtectionDomain pd = d.allocateProtectionDomain();
            CompletionQueue cq = d.createCompletionQueue(8);
            var mr = pd.registerMemory(arena.allocate(4096), dev.tandem.verbs.Access.LOCAL_WRITE);
            QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq));
            List<LiveResource> live = d.liveResources();
            assertThat(live).extracting(LiveResource::kind).containsExactlyInAnyOrder("PD", "CQ", "MR", "QP");
            assertThat(live).allSatisfy(r -> {
                assertThat(r.owner().thread()).isEqualTo(Thread.currentThread().getName());
                assertThat(r.owner().pid()).isEqualTo(ProcessHandle.current().pid());
                assertThat(r.owner().callSite()).startsWith(LeakReportTest.class.getName() + ".everyResourceRecordsItsOwnerAndCallSite(LeakReportTest.java:");
                assertThat(r.name()).startsWith(d.name() + " ");
            });
            assertThat(live).filteredOn(r -> r.kind().equals("QP")).singleElement()
                    .satisfies(r -> assertThat(r.name()).isEqualTo(d.name() + " qp " + qp.qpNumber()));
            qp.close();
            mr.close();
            assertThat(d.liveResources()).extracting(LiveResource::kind).containsExactlyInAnyOrder("PD", "CQ");
            pd.close();
            cq.close();
            assertThat(d.liveResources()).isEmpty();
        }
    }

    @Test
    void strictModeFailsTheCloseNamingEachLeakAfterClosingThemAll() throws Exception {
        IwarpDevice d = IwarpDevice.open(IwarpConfig.of("127.0.1.1").withLeakMode(LeakMode.STRICT));
        ProtectionDomain pd = d.allocateProtectionDomain();
        CompletionQueue cq = d.createCompletionQueue(8);
        QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq));
        Path ras = ProcessRas.current().path();

        assertThatThrownBy(d::close).isInstanceOf(ResourceLeakException.class)
                .hasMessageStartingWith("adapter " + d.name() + " closed with 3 resource(s) still open (now closed):")
                .hasMessageContaining("QP " + d.name() + " qp " + qp.qpNumber() + " created by thread '" + Thread.currentThread().getName() + "'")
                .hasMessageContaining("LeakReportTest.strictModeFailsTheCloseNamingEachLeakAfterClosingThemAll(LeakReportTest.java:")
                .hasMessageContaining("PD " + d.name() + " pd ")
                .hasMessageContaining("CQ " + d.name() + " cq ");
        assertThat(d.isClosed()).isTrue();
        assertThat(d.isEngineRunning()).as("the engine thread stopped all the same").isFalse();
        assertThatThrownBy(() -> pd.registerMemory(Arena.global().allocate(64), 0)).isInstanceOf(ResourceClosedException.class);
        assertThat(d.liveResources()).isEmpty();
        try (RasReader reader = RasReader.open(ras)) {
            List<ErrorEntry> errors = reader.errors();
            assertThat(errors).anySatisfy(e -> {
                assertThat(e.cause()).startsWith(d.name() + ": resource leak: QP created at " + LeakReportTest.class.getName());
                assertThat(e.text()).contains("qp " + qp.qpNumber());
            });
        }
    }

    @Test
    void reportModeClosesAndReportsWithoutFailing() {
        IwarpDevice d = IwarpDevice.open(IwarpConfig.of("127.0.1.1").withLeakMode(LeakMode.REPORT));
        CompletionQueue cq = d.createCompletionQueue(8);
        d.close();
        assertThat(d.isClosed()).isTrue();
        assertThatThrownBy(() -> cq.poll(dev.tandem.verbs.WorkCompletion.array(1))).isInstanceOf(ResourceClosedException.class);
    }

    @Test
    void theTestSuiteRunsInStrictMode() {
        assertThat(LeakMode.fromSystemProperty()).as("surefire sets -D" + LeakMode.PROPERTY + "=strict").isEqualTo(LeakMode.STRICT);
        assertThat(IwarpConfig.of("127.0.1.1").leakMode()).isEqualTo(LeakMode.STRICT);
    }
}

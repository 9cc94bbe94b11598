package dev.tandem.failover.conformance;

import dev.tandem.verbs.conformance.CompletionEventConformance;
import dev.tandem.verbs.conformance.ConformanceTopics;
import dev.tandem.verbs.conformance.ConnectionConformance;
import dev.tandem.verbs.conformance.DataTransferConformance;
import dev.tandem.verbs.conformance.DeviceConformance;
import dev.tandem.verbs.conformance.DeviceSeamConformance;
import dev.tandem.verbs.conformance.MemoryWindowConformance;
import dev.tandem.verbs.conformance.ProtectionConformance;
import dev.tandem.verbs.conformance.ProviderFixture;
import dev.tandem.verbs.conformance.QueuePairStateConformance;
import dev.tandem.verbs.conformance.SharedReceiveQueueConformance;
import dev.tandem.verbs.conformance.ValidationConformance;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The verbs conformance suite over fail-over devices on software iWARP with MPA CRC32C off: one line per topic. */
class FailoverNoCrcConformanceTest {
    static ProviderFixture failover() {
        return new FailoverFixture(false);
    }

    @Test
    void coversEveryTopic() {
        ConformanceTopics.assertCovered(getClass());
    }

    @Nested class Device extends DeviceConformance { @Override protected ProviderFixture fixture() { return failover(); } }
    @Nested class Connection extends ConnectionConformance { @Override protected ProviderFixture fixture() { return failover(); } }
    @Nested class DataTransfer extends DataTransferConformance { @Override protected ProviderFixture fixture() { return failover(); } }
    @Nested class CompletionEvents extends CompletionEventConformance { @Override protected ProviderFixture fixture() { return failover(); } }
    @Nested class Protection extends ProtectionConformance { @Override protected ProviderFixture fixture() { return failover(); } }
    @Nested class QueuePairStates extends QueuePairStateConformance { @Override protected ProviderFixture fixture() { return failover(); } }
    @Nested class SharedReceiveQueues extends SharedReceiveQueueConformance { @Override protected ProviderFixture fixture() { return failover(); } }
    @Nested class MemoryWindows extends MemoryWindowConformance { @Override protected ProviderFixture fixture() { return failover(); } }
    @Nested class Validation extends ValidationConformance { @Override protected ProviderFixture fixture() { return failover(); } }
    @Nested class DeviceSeams extends DeviceSeamConformance { @Override protected ProviderFixture fixture() { return failover(); } }
}

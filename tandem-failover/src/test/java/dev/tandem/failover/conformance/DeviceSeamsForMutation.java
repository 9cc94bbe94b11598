package dev.tandem.failover.conformance;

import dev.tandem.verbs.conformance.DeviceSeamConformance;
import dev.tandem.verbs.conformance.ProviderFixture;

/**
 * The device-seam topic of the conformance suite (CRC off) as a top-level class, for the mutation profile
 * only, as {@link CompletionEventsForMutation}: its completion-channel tests (one thread waiting on queues
 * of two adapters, arming) are what reach the first-level CQ's {@code requestNotification}. Its name keeps
 * it out of the build's test run, which runs the same tests nested in {@link FailoverNoCrcConformanceTest}.
 */
class DeviceSeamsForMutation extends DeviceSeamConformance {
    @Override
    protected ProviderFixture fixture() {
        return FailoverNoCrcConformanceTest.failover();
    }
}

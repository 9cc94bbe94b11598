package dev.tandem.failover.conformance;

import dev.tandem.verbs.conformance.CompletionEventConformance;
import dev.tandem.verbs.conformance.ProviderFixture;

/**
 * The completion-event topic of the conformance suite (CRC off) as a top-level class, for the mutation
 * profile only: PIT runs no {@code @Nested} class its test list names, and these are the tests that drive
 * the first-level CQ's completion channel (arming, solicited-only, waits and wake-ups). Its name keeps it
 * out of the build's test run, which runs the same tests nested in {@link FailoverNoCrcConformanceTest}.
 */
class CompletionEventsForMutation extends CompletionEventConformance {
    @Override
    protected ProviderFixture fixture() {
        return FailoverNoCrcConformanceTest.failover();
    }
}

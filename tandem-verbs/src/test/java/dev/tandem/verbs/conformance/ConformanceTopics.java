package dev.tandem.verbs.conformance;

import java.util.ArrayList;
import java.util.List;

/**
 * The topics of the conformance suite. A provider runs the suite with one set per
 * configuration: a top-level test class holding one {@code @Nested} subclass per topic (see
 * {@link ProviderFixture}), and a test that calls {@link #assertCovered} so that a topic added
 * here later makes every set that lacks it fail instead of being skipped silently.
 */
public final class ConformanceTopics {
    /** Every abstract topic class. */
    public static final List<Class<? extends ConformanceBase>> ALL = List.of(
            DeviceConformance.class,
            ConnectionConformance.class,
            DataTransferConformance.class,
            CompletionEventConformance.class,
            ProtectionConformance.class,
            QueuePairStateConformance.class,
            SharedReceiveQueueConformance.class,
            MemoryWindowConformance.class,
            ValidationConformance.class,
            DeviceSeamConformance.class);

    private ConformanceTopics() {
    }

    /** Fails unless {@code set} declares a nested subclass of every topic. */
    public static void assertCovered(Class<?> set) {
        List<String> missing = new ArrayList<>();
        for (Class<?> topic : ALL) {
            boolean found = false;
            for (Class<?> nested : set.getDeclaredClasses()) {
                found |= topic.isAssignableFrom(nested);
            }
            if (!found) {
                missing.add(topic.getSimpleName());
            }
        }
        if (!missing.isEmpty()) {
            throw new AssertionError(set.getName() + " runs no @Nested subclass of " + missing
                    + "; add one line per topic, e.g. @Nested class X extends " + missing.getFirst() + " {...}");
        }
    }
}

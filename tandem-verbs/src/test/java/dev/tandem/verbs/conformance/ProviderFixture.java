package dev.tandem.verbs.conformance;

import dev.tandem.verbs.DeviceOptions;
import dev.tandem.verbs.RdmaDevice;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * How the conformance suite gets adapters of one provider. The suite asks for a new fixture
 * before every test ({@link ConformanceBase#fixture()}) and closes it after.
 *
 * <p>A provider module joins the suite with one set per configuration: a top-level test class
 * (its name ending in {@code Test}) with one {@code @Nested} subclass per topic of
 * {@link ConformanceTopics#ALL}, each returning the provider's fixture, plus a test calling
 * {@link ConformanceTopics#assertCovered}:
 *
 * <pre>{@code
 * class IwarpCrcConformanceTest {
 *     @Test void coversEveryTopic() { ConformanceTopics.assertCovered(getClass()); }
 *     @Nested class Connection extends ConnectionConformance { protected ProviderFixture fixture() { return new IwarpFixture(true); } }
 *     @Nested class DataTransfer extends DataTransferConformance { protected ProviderFixture fixture() { return new IwarpFixture(true); } }
 *     ...
 * }
 * }</pre>
 *
 * The nested classes are declared by the provider (not inherited) so that every provider and
 * configuration has its own class names in test reports.
 *
 * <p>Adapter 0 is the active side (it connects), adapter 1 the passive side (it listens). The two
 * must be distinct adapters with distinct addresses, so that traffic really crosses from one to
 * the other.
 */
public interface ProviderFixture extends AutoCloseable {
    /** Shown in failure messages, e.g. {@code iwarp(crc=on)}. */
    String name();

    /** Opens adapter {@code adapter} (0 or 1). Called at most once per adapter and test. */
    default RdmaDevice open(int adapter) {
        return open(adapter, DeviceOptions.DEFAULT);
    }

    /**
     * Opens adapter {@code adapter} (0 or 1) with {@code options} (a caller's STag source, say), as
     * {@link dev.tandem.verbs.RdmaDevices#open(String, DeviceOptions)} would. Called at most once per
     * adapter and test.
     */
    RdmaDevice open(int adapter, DeviceOptions options);

    /** The address adapter {@code adapter} listens on (port 0 lets the adapter pick a port). */
    InetSocketAddress listenAddress(int adapter);

    /** Bound of every wait in the suite: a test fails if what it awaits has not happened by then. */
    default Duration timeout() {
        return Duration.ofSeconds(5);
    }

    /** Whether the provider implements the optional SQD state (drain and back to RTS). */
    default boolean supportsSqd() {
        return true;
    }

    /** Closes every adapter this fixture opened. */
    @Override
    void close();
}

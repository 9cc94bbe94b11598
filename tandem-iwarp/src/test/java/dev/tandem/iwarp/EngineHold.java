package dev.tandem.iwarp;

import dev.tandem.verbs.QueuePair;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * For tests outside this package that must order what the engine does against what an application
 * thread does: holds the adapter's duty cycle (no receiver reads while it is held), and tells whether
 * a QP's socket refused a write.
 */
public final class EngineHold implements AutoCloseable {
    private final IwTransport transport;

    private EngineHold(IwTransport transport) {
        this.transport = transport;
    }

    /** Holds {@code device}'s duty cycle until {@link #close()}; fails the test when the engine stays busy for a second. */
    public static EngineHold of(IwarpDevice device) {
        IwTransport t = device.transport();
        assertThat(t.holdProgress(1_000_000_000L)).as("the engine's duty cycle held within 1 s").isTrue();
        return new EngineHold(t);
    }

    /** Whether the socket of {@code qp} (an iWARP QP) refused a write. */
    public static boolean writeRefused(QueuePair qp) {
        Connection c = ((IwQueuePair) qp).connection();
        return c != null && c.writeFailure() != null;
    }

    @Override
    public void close() {
        transport.releaseProgress();
    }
}

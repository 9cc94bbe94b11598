package dev.tandem.iwarp;

import dev.tandem.verbs.QpState;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** The engine side of an adapter: which connections its duty cycle serves. */
class IwTransportTest {

    /** Waits (bounded by {@link LoopbackPair#WAIT}) until the duty cycle of {@code device} no longer serves {@code qp}. */
    private static void awaitNotServed(IwarpDevice device, IwQueuePair qp) {
        long deadline = System.nanoTime() + LoopbackPair.WAIT.toNanos();
        while (Arrays.asList(device.transport().active()).contains(qp)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(qp + " still served by the duty cycle of " + device + " after " + LoopbackPair.WAIT);
            }
            Thread.onSpinWait();
        }
    }

    /** A QP whose connection ended leaves the duty cycle at once, though its owner has not closed it yet. */
    @Test
    void aConnectionThatEndedLeavesTheDutyCycleBeforeItsQpCloses() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            IwQueuePair a = (IwQueuePair) p.qpA;
            IwQueuePair b = (IwQueuePair) p.qpB;
            assertThat(p.a.transport().active()).as("served while connected").contains(a);
            p.qpA.disconnect();
            LoopbackPair.awaitState(p.qpB, QpState.ERROR, "B after A disconnected");
            awaitNotServed(p.a, a);
            awaitNotServed(p.b, b);
            assertThat(a.isClosed()).as("A's QP is still open; only its connection ended").isFalse();
        }
    }
}

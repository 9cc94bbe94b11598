package dev.tandem.iwarp.conformance;

import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueueFullException;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.SharedReceiveQueue;
import dev.tandem.verbs.conformance.ConformanceBase;
import dev.tandem.verbs.conformance.EndpointSpec;
import dev.tandem.verbs.conformance.ProviderFixture;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The limits of a shared receive queue, at their edges: the adapter's largest depth and scatter
 * list are accepted and one more is refused, a queue holds exactly the buffers it was created for,
 * and its limit event can be armed anywhere from 1 to its depth. Written against the verbs, so
 * every provider should pass it; candidates for {@code SharedReceiveQueueConformance}.
 */
class IwarpSharedReceiveQueueLimitsTest extends ConformanceBase {
    @Override
    protected ProviderFixture fixture() {
        return new IwarpFixture(true);
    }

    private static void assertRefusedNaming(Runnable create, String what, long value) {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, create::run, what);
        assertTrue(e.getMessage().contains(String.valueOf(value)), what + ": the message names " + value + ": " + e.getMessage());
    }

    @Test
    void theDepthMayBeAnythingFromOneToTheAdaptersLargestQueue() {
        DeviceAttributes a = adapter(0).attributes();
        ProtectionDomain pd = closeAtEnd(adapter(0).allocateProtectionDomain());
        assertRefusedNaming(() -> pd.createSharedReceiveQueue(0, 1), "an SRQ of depth 0", 0);
        assertEquals(1, closeAtEnd(pd.createSharedReceiveQueue(1, 1)).maxWr(), "an SRQ of depth 1");
        int max = a.maxQueuePairDepth();
        assertTrue(max < Integer.MAX_VALUE, "maxQueuePairDepth " + max + " is a real limit");
        assertEquals(max, closeAtEnd(pd.createSharedReceiveQueue(max, 1)).maxWr(), "an SRQ of the largest depth");
        assertRefusedNaming(() -> pd.createSharedReceiveQueue(max + 1, 1), "an SRQ deeper than maxQueuePairDepth", max + 1);
    }

    @Test
    void theScatterListMayBeAnythingFromOneToTheAdaptersLargest() {
        DeviceAttributes a = adapter(0).attributes();
        ProtectionDomain pd = closeAtEnd(adapter(0).allocateProtectionDomain());
        assertRefusedNaming(() -> pd.createSharedReceiveQueue(4, 0), "an SRQ with maxSge 0", 0);
        assertEquals(1, closeAtEnd(pd.createSharedReceiveQueue(4, 1)).maxSge());
        int max = a.maxSge();
        assertTrue(max < Integer.MAX_VALUE, "maxSge " + max + " is a real limit");
        assertEquals(max, closeAtEnd(pd.createSharedReceiveQueue(4, max)).maxSge(), "an SRQ with the largest scatter list");
        assertRefusedNaming(() -> pd.createSharedReceiveQueue(4, max + 1), "an SRQ with more SGEs than maxSge", max + 1);
    }

    @Test
    void aQueueHoldsExactlyItsDepthEvenWhenThatIsNoPowerOfTwo() {
        ProtectionDomain pd = closeAtEnd(adapter(0).allocateProtectionDomain());
        MemoryRegion region = register(pd, 4096, EndpointSpec.FULL_ACCESS);
        SharedReceiveQueue srq = closeAtEnd(pd.createSharedReceiveQueue(3, 1));
        for (int i = 0; i < 3; i++) {
            srq.postReceive(new ReceiveRequest(i, sge(region, i * 64L, 64)));
        }
        assertEquals(3, srq.posted());
        assertThrows(QueueFullException.class, () -> srq.postReceive(new ReceiveRequest(9, sge(region, 0, 64))),
                "a fourth buffer on an SRQ of depth 3");
        assertEquals(3, srq.posted(), "the refused buffer was not posted");
    }

    @Test
    void theLimitMayBeArmedFromOneToTheDepth() {
        ProtectionDomain pd = closeAtEnd(adapter(0).allocateProtectionDomain());
        SharedReceiveQueue srq = closeAtEnd(pd.createSharedReceiveQueue(8, 1));
        assertRefusedNaming(() -> srq.armLimit(0), "a limit of 0", 0);
        assertRefusedNaming(() -> srq.armLimit(9), "a limit above the depth 8", 9);
        srq.armLimit(1);
        srq.armLimit(8);
    }
}

package dev.tandem.iwarp;

import dev.tandem.provider.OutstandingReads;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two RDMA Read queues of a QP: the responder's {@link ReadRequestQueue} (IRQ, bounded by the
 * negotiated IRD) and the requester's {@link OutstandingReads} (ORQ, bounded by ORD). Both are rings
 * that are reused for the life of a connection: they must stay first-in first-out and keep their
 * bound across many wraps, because the RDMAP responses must come back in request order.
 */
class ReadQueuesTest {

    // ---------------------------------------------------------------- responder: IRQ

    @Test
    void theResponderAcceptsIrdRequestsAndRefusesTheNext() {
        ReadRequestQueue irq = new ReadRequestQueue(8);
        for (int i = 0; i < 3; i++) {
            assertNotNull(irq.claim(3), "request " + (i + 1) + " of IRD 3");
            irq.publish();
        }
        assertEquals(3, irq.size());
        assertNull(irq.claim(3), "a fourth Read Request with IRD 3 outstanding");
        irq.pop();
        assertEquals(2, irq.size());
        assertNotNull(irq.claim(3), "room again once one was answered");
    }

    @Test
    void theResponderNeverHoldsMoreThanItsCapacityWhateverTheIrd() {
        ReadRequestQueue irq = new ReadRequestQueue(2);
        fill(irq, 2, 100);
        assertNull(irq.claim(100), "an IRD above the queue's capacity is bounded by the capacity");
        assertEquals(2, irq.size());
    }

    @Test
    void aResponderWithNoCapacityStillHoldsOneRequest() {
        ReadRequestQueue irq = new ReadRequestQueue(0);
        assertNotNull(irq.claim(1), "the first request");
        irq.publish();
        assertNull(irq.claim(1), "a second one");
    }

    @Test
    void theResponderAnswersInRequestOrderAcrossManyWraps() {
        ReadRequestQueue irq = new ReadRequestQueue(4);
        long next = 0;
        long answered = 0;
        for (int round = 0; round < 50; round++) {
            int n = 1 + round % 4;
            for (int i = 0; i < n; i++) {
                ReadRequestQueue.Entry e = irq.claim(4);
                assertNotNull(e, "room for request " + next);
                e.sinkTo = next++;
                irq.publish();
            }
            for (int i = 0; i < n; i++) {
                ReadRequestQueue.Entry e = irq.peek();
                assertNotNull(e, "request " + answered + " is waiting");
                assertEquals(answered++, e.sinkTo, "the oldest request is answered first");
                assertSame(e, irq.peek(), "peek does not consume");
                irq.pop();
            }
            assertNull(irq.peek(), "nothing left after answering all");
            assertEquals(0, irq.size());
        }
    }

    @Test
    void aClaimedEntryIsNotVisibleUntilPublished() {
        ReadRequestQueue irq = new ReadRequestQueue(4);
        ReadRequestQueue.Entry e = irq.claim(4);
        assertNotNull(e);
        assertNull(irq.peek(), "an entry still being filled is not offered to the transmitter");
        assertEquals(0, irq.size());
        assertSame(e, irq.claim(4), "claiming again before publishing offers the same entry");
        irq.publish();
        assertSame(e, irq.peek());
        assertNotSame(e, irq.claim(4), "the next claim is a different entry");
    }

    private static void fill(ReadRequestQueue irq, int n, int ird) {
        for (int i = 0; i < n; i++) {
            assertNotNull(irq.claim(ird), "request " + i);
            irq.publish();
        }
    }

    // ---------------------------------------------------------------- requester: ORQ

    @Test
    void theRequesterIsFullAtOrdOutstandingReads() {
        OutstandingReads orq = new OutstandingReads(8);
        assertTrue(orq.isEmpty());
        assertFalse(orq.isFull(2));
        orq.push(10, 0x100 + 10);
        assertFalse(orq.isEmpty());
        assertFalse(orq.isFull(2), "one of ORD 2 outstanding");
        orq.push(11, 0x100 + 11);
        assertTrue(orq.isFull(2), "ORD 2 reached");
        assertFalse(orq.isFull(3), "a larger ORD has room");
        assertEquals(2, orq.size());
        orq.pop();
        assertFalse(orq.isFull(2), "room again once a response arrived");
        assertEquals(1, orq.size());
    }

    @Test
    void theRequesterIsBoundedByItsCapacityWhateverTheOrd() {
        OutstandingReads orq = new OutstandingReads(2);
        orq.push(1, 0x100 + 1);
        assertFalse(orq.isFull(100));
        orq.push(2, 0x100 + 2);
        assertTrue(orq.isFull(100), "an ORD above the capacity is bounded by the capacity");
        OutstandingReads tiny = new OutstandingReads(0);
        assertFalse(tiny.isFull(1));
        tiny.push(7, 0x107);
        assertTrue(tiny.isFull(1), "a queue of capacity 0 still holds one Read");
        assertEquals(7, tiny.peek());
        assertEquals(0x107, tiny.peekSinkStag());
    }

    @Test
    void theRequesterMatchesResponsesToReadsInOrderAcrossManyWraps() {
        OutstandingReads orq = new OutstandingReads(3);
        long sqPosition = 1000;
        long expected = 1000;
        for (int round = 0; round < 50; round++) {
            int n = 1 + round % 3;
            for (int i = 0; i < n; i++) {
                assertFalse(orq.isFull(3));
                orq.push(sqPosition, (int) sqPosition * 31);
                sqPosition++;
            }
            assertEquals(n, orq.size());
            for (int i = 0; i < n; i++) {
                assertFalse(orq.isEmpty());
                assertEquals(expected, orq.peek(), "the oldest outstanding Read gets the next response");
                assertEquals((int) expected * 31, orq.peekSinkStag(), "the sink STag its Read Request carried");
                assertEquals(expected++, orq.peek(), "peek does not consume");
                orq.pop();
            }
            assertTrue(orq.isEmpty());
            assertEquals(0, orq.size());
        }
    }
}

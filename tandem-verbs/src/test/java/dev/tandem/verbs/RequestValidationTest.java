package dev.tandem.verbs;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Validation in the constructors of Sge, work requests, receive requests and QP configs. */
class RequestValidationTest {
    private final MemoryRegion region = Stubs.region(4096);

    private static void assertMessageNames(RuntimeException e, String... parts) {
        for (String p : parts) {
            assertTrue(e.getMessage().contains(p), "message should name " + p + ": " + e.getMessage());
        }
    }

    @Test
    void sgeRefusesANegativeOffsetNamingIt() {
        assertMessageNames(assertThrows(InvalidArgumentException.class, () -> new Sge(region, -5, 10)), "-5", "offset");
    }

    @Test
    void sgeRefusesANegativeLengthNamingIt() {
        assertMessageNames(assertThrows(InvalidArgumentException.class, () -> new Sge(region, 0, -7)), "-7", "length");
    }

    @Test
    void sgeRefusesANullRegion() {
        assertMessageNames(assertThrows(InvalidArgumentException.class, () -> new Sge(null, 0, 1)), "null");
    }

    @Test
    void sgeOfCoversTheWholeRegion() {
        Sge s = Sge.of(region);
        assertSame(region, s.region());
        assertEquals(0, s.offset());
        assertEquals(4096, s.length());
        assertEquals(new Sge(region, 0, 0), new Sge(region, 0, 0), "Sge is a value");
    }

    @Test
    void rdmaReadTakesExactlyOneEntry() {
        Sge a = new Sge(region, 0, 10);
        Sge b = new Sge(region, 100, 10);
        assertMessageNames(assertThrows(InvalidArgumentException.class,
                () -> new WorkRequest.RdmaRead(1, List.of(a, b), 0, 0x100, WrFlags.SIGNALED)), "2", "RdmaRead");
        assertMessageNames(assertThrows(InvalidArgumentException.class,
                () -> new WorkRequest.RdmaRead(1, List.of(), 0, 0x100, WrFlags.SIGNALED)), "0");
        assertEquals(10, new WorkRequest.RdmaRead(1, a, 0, 0x100, 0).length());
    }

    @Test
    void bindWindowRefusesMissingObjectsAndABadKey() {
        MemoryWindow w = Stubs.window();
        assertMessageNames(assertThrows(InvalidArgumentException.class,
                () -> new WorkRequest.BindWindow(1, null, region, 0, 10, Access.REMOTE_READ, 1, 0)), "window");
        assertMessageNames(assertThrows(InvalidArgumentException.class,
                () -> new WorkRequest.BindWindow(1, w, null, 0, 10, Access.REMOTE_READ, 1, 0)), "region");
        assertMessageNames(assertThrows(InvalidArgumentException.class,
                () -> new WorkRequest.BindWindow(1, w, region, 0, 10, Access.REMOTE_READ, 256, 0)), "256");
        assertMessageNames(assertThrows(InvalidArgumentException.class,
                () -> new WorkRequest.BindWindow(1, w, region, 0, 10, Access.REMOTE_READ, -1, 0)), "-1");
        WorkRequest.BindWindow ok = new WorkRequest.BindWindow(1, w, region, 0, 10, Access.REMOTE_READ, 255, 0);
        assertEquals(List.of(), ok.sgl(), "a bind has no local buffers");
        // Note: BindWindow's record component length() (the window's length) hides WorkRequest.length().
    }

    @Test
    void requestsCopyTheirListsAndSumTheirLengths() {
        List<Sge> l = new ArrayList<>(List.of(new Sge(region, 0, 10), new Sge(region, 20, 30)));
        WorkRequest.Send send = new WorkRequest.Send(7, l, WrFlags.SIGNALED);
        WorkRequest.RdmaWrite write = new WorkRequest.RdmaWrite(8, l, 0, 1, 0);
        WorkRequest.SendWithInvalidate inv = new WorkRequest.SendWithInvalidate(9, l, 0x200, 0);
        ReceiveRequest recv = new ReceiveRequest(10, l);
        l.clear();
        assertEquals(2, send.sgl().size(), "a Send keeps its own copy of the list");
        assertEquals(2, write.sgl().size());
        assertEquals(2, inv.sgl().size());
        assertEquals(2, recv.sgl().size());
        assertEquals(40, send.length());
        assertEquals(40, write.length());
        assertEquals(40, inv.length());
        assertEquals(40, recv.length());
        assertThrows(UnsupportedOperationException.class, () -> send.sgl().add(new Sge(region, 0, 1)), "request lists are immutable");
        assertEquals(List.of(), new WorkRequest.LocalInvalidate(1, 0x100, 0).sgl());
        assertEquals(0, new WorkRequest.Send(1, List.of(), 0).length(), "a zero-length Send is allowed");
    }

    @Test
    void wrFlagsHas() {
        assertTrue(WrFlags.has(WrFlags.SIGNALED | WrFlags.FENCE, WrFlags.FENCE));
        assertTrue(!WrFlags.has(WrFlags.SIGNALED, WrFlags.INLINE));
        assertEquals(0xF, WrFlags.ALL);
    }

    @Test
    void queuePairConfigRefusesBadSettingsNamingThem() {
        CompletionQueue cq = Stubs.cq();
        QueuePairConfig ok = QueuePairConfig.of(cq);
        assertMessageNames(assertThrows(InvalidArgumentException.class,
                () -> new QueuePairConfig(null, cq, null, 1, 1, 1, 1, 0, 0, 0, false)), "send CQ");
        assertMessageNames(assertThrows(InvalidArgumentException.class, () -> ok.withDepths(0, 4)), "sendDepth 0");
        assertMessageNames(assertThrows(InvalidArgumentException.class, () -> ok.withDepths(4, -1)), "receiveDepth -1");
        assertMessageNames(assertThrows(InvalidArgumentException.class, () -> ok.withSge(0, 1)), "maxSendSge 0");
        assertMessageNames(assertThrows(InvalidArgumentException.class, () -> ok.withSge(1, 0)), "maxReceiveSge 0");
        assertMessageNames(assertThrows(InvalidArgumentException.class, () -> ok.withMaxInline(-1)), "-1");
        assertMessageNames(assertThrows(InvalidArgumentException.class, () -> ok.withReadDepths(-2, 1)), "-2");
        QueuePairConfig withSrq = ok.withSrq(Stubs.srq()).withDepths(8, 0);
        assertEquals(0, withSrq.receiveDepth(), "with an SRQ the receive depth is ignored, so 0 is allowed");
    }

    @Test
    void queuePairConfigDefaultsAndWithersKeepTheRest() {
        CompletionQueue cq = Stubs.cq();
        QueuePairConfig c = QueuePairConfig.of(cq);
        assertEquals(new QueuePairConfig(cq, cq, null, 128, 128, 4, 4, 64, 16, 16, false), c);
        QueuePairConfig d = c.withDepths(8, 9).withSge(2, 3).withMaxInline(32).withReadDepths(5, 6).withSignalAll(true);
        assertEquals(new QueuePairConfig(cq, cq, null, 8, 9, 2, 3, 32, 5, 6, true), d);
    }

    @Test
    void connectionRejectedExceptionKeepsItsOwnCopyOfThePrivateData() {
        byte[] data = {1, 2, 3};
        ConnectionRejectedException e = new ConnectionRejectedException("no", data);
        data[0] = 9;
        assertEquals(1, e.privateData()[0], "changing the caller's array does not change the exception");
        e.privateData()[1] = 9;
        assertEquals(2, e.privateData()[1], "changing the returned array does not change the exception");
        assertTrue(e instanceof ConnectionException && e instanceof RdmaException);
    }
}

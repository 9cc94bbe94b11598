package dev.tandem.verbs.conformance;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.ListenerClosedException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.PortState;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.ResourceLeakException;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResourceLimitException;
import dev.tandem.verbs.SharedReceiveQueue;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The adapter itself: attributes, name, port, async event polling, and close. */
public abstract class DeviceConformance extends ConformanceBase {

    /**
     * Closes {@code device}, which still has resources open on purpose. A provider in strict leak
     * mode closes them and then throws {@link ResourceLeakException} naming them (each with the call
     * site that created it); one in report mode just closes them.
     */
    static void closeReportingLeaks(RdmaDevice device, String callSite) {
        try {
            device.close();
        } catch (ResourceLeakException e) {
            String m = e.getMessage();
            assertTrue(m != null && m.contains("still open"), "a strict close says resources were still open: " + m);
            assertTrue(m.contains(callSite), "a strict close names the open resources' call site " + callSite + ": " + m);
        }
    }

    @Test
    void attributesCoverWhatTheDefaultsAndThisSuiteUse() {
        for (int i = 0; i < 2; i++) {
            DeviceAttributes a = adapter(i).attributes();
            String n = adapter(i).name() + " " + a;
            assertTrue(a.maxQueuePairs() >= 8, n + ": maxQueuePairs");
            assertTrue(a.maxQueuePairDepth() >= 128, n + ": maxQueuePairDepth must fit QueuePairConfig.of's 128");
            assertTrue(a.maxSge() >= 4, n + ": maxSge must fit QueuePairConfig.of's 4");
            assertTrue(a.maxCqDepth() >= EndpointSpec.CQ_DEPTH, n + ": maxCqDepth");
            assertTrue(a.maxMemoryRegions() >= 16, n + ": maxMemoryRegions");
            assertTrue(a.maxMessageSize() >= (1 << 20), n + ": maxMessageSize must allow the suite's 1 MiB messages");
            assertTrue(a.maxInlineData() >= 64, n + ": maxInlineData must fit QueuePairConfig.of's 64");
            assertTrue(a.maxIrd() >= 16 && a.maxOrd() >= 16, n + ": maxIrd/maxOrd must fit QueuePairConfig.of's 16");
            assertTrue(a.maxPrivateData() >= 12, n + ": maxPrivateData must fit the suite's key exchange");
        }
    }

    @Test
    void adaptersHaveDistinctNamesAndActivePorts() {
        RdmaDevice a = adapter(0);
        RdmaDevice b = adapter(1);
        assertTrue(a.name() != null && !a.name().isBlank(), "adapter name");
        assertNotEquals(a.name(), b.name(), "two adapters of one process have distinct names");
        assertEquals(PortState.ACTIVE, a.portState());
        assertEquals(PortState.ACTIVE, b.portState());
        assertFalse(a.isClosed());
    }

    @Test
    void pollAsyncEventReturnsNullWhenNothingHappens() {
        RdmaDevice d = adapter(0);
        for (int i = 0; i < 16; i++) { // an adapter may announce itself (e.g. PORT_ACTIVE) when it opens
            long start = System.nanoTime();
            AsyncEvent e = d.pollAsyncEvent(Duration.ofMillis(100));
            if (e == null) {
                long tookMs = (System.nanoTime() - start) / 1_000_000;
                assertTrue(tookMs >= 90, "pollAsyncEvent returned null after " + tookMs + " ms, before its timeout of 100 ms");
                return;
            }
        }
        throw new AssertionError("an idle adapter kept raising async events");
    }

    @Test
    void closingAnAdapterClosesEverythingMadeFromIt() {
        RdmaDevice d = adapter(0);
        ProtectionDomain pd = d.allocateProtectionDomain();
        CompletionQueue cq = d.createCompletionQueue(16);
        Listener l = d.listen(provider().listenAddress(0), 4);
        Endpoint e = endpoint(0);
        // Everything above is still open: a provider in strict leak mode closes it and then says so.
        closeReportingLeaks(d, "closingAnAdapterClosesEverythingMadeFromIt");
        assertTrue(d.isClosed(), "isClosed after close");
        d.close(); // closing twice is harmless
        assertThrows(ResourceClosedException.class, d::allocateProtectionDomain, "allocateProtectionDomain on a closed adapter");
        assertThrows(ResourceClosedException.class, () -> d.createCompletionQueue(8), "createCompletionQueue on a closed adapter");
        assertThrows(ResourceClosedException.class, () -> d.listen(provider().listenAddress(0), 4), "listen on a closed adapter");
        assertThrows(ResourceClosedException.class, () -> pd.registerMemory(allocate(64), Access.LOCAL_WRITE), "a PD of a closed adapter");
        assertThrows(ResourceClosedException.class, () -> pd.createQueuePair(QueuePairConfig.of(cq)), "a PD of a closed adapter");
        assertThrows(ResourceClosedException.class, () -> cq.poll(WorkCompletion.array(1)), "a CQ of a closed adapter");
        assertThrows(ResourceClosedException.class, () -> postReceive(e, 1, 0, 64), "a QP of a closed adapter");
        assertThrows(ListenerClosedException.class, () -> l.accept(Duration.ofMillis(10)), "a listener of a closed adapter");
        assertFalse(e.region.isValid(), "a region of a closed adapter is not valid");
    }

    @Test
    void closingAnAdapterWakesAThreadBlockedInAccept() {
        Listener l = listener();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread t = Thread.ofPlatform().daemon().name("accept-on-closing-adapter").start(() -> {
            try {
                l.accept(Duration.ofMinutes(5));
                outcome.complete(null);
            } catch (Throwable x) {
                outcome.complete(x);
            }
        });
        awaitBlocked(t, "a thread in Listener.accept");
        closeReportingLeaks(adapter(1), "ConformanceBase.listener"); // the listener is still open
        assertInstanceOf(ListenerClosedException.class, join(outcome, "closing the adapter to wake a thread in accept"),
                "what accept threw when its adapter closed");
    }

    // ---------------------------------------------------------------- every advertised resource is reachable

    /** Most resources of one kind these tests create to reach an advertised maximum. */
    private static final int MOST_A_TEST_CREATES = 1 << 20;
    /** Bytes of each region the region test registers (slices of one block). */
    private static final int SLICE = 64;

    /**
     * The advertised maximum {@code value} of {@code attribute}, which a test then creates: an adapter must
     * not advertise what it cannot have, and a test cannot create more than {@link #MOST_A_TEST_CREATES}.
     */
    private int reachable(String attribute, long value) {
        assertTrue(value >= 1 && value <= MOST_A_TEST_CREATES, adapter(0).name() + " advertises " + attribute + " = " + value
                + ": a test creates the advertised maximum, so advertise what the adapter can really hold (1.."
                + MOST_A_TEST_CREATES + " here)");
        return (int) value;
    }

    /** Asserts that {@code refused} is the out-of-resources error naming {@code attribute} and its value. */
    private static void assertRefusedAt(ResourceLimitException refused, String attribute, int max, String what) {
        String m = refused.getMessage();
        assertTrue(m != null && m.contains(attribute) && m.contains(String.valueOf(max)),
                what + ": the refusal names the limit " + attribute + " and its value " + max + ": " + m);
        assertEquals("DeviceAttributes." + attribute, refused.limit(), what + ": ResourceLimitException.limit()");
        assertEquals(max, refused.value(), what + ": ResourceLimitException.value()");
    }

    /** Sends {@code length} bytes from {@code source} on the active QP of {@code pair} and checks they arrived. */
    private void assertSendArrives(ConnectedPair pair, MemoryRegion source, int length, int seed, String what) {
        postReceive(pair.passive(), 71, 0, length);
        Bytes.fill(source.segment(), 0, length, seed);
        pair.active().qp.postSend(new WorkRequest.Send(72, sge(source, 0, length), SIGNALED));
        assertCompletion(awaitCompletion(pair.active().cq, "the Send " + what), 72, CompletionStatus.SUCCESS,
                CompletionOpcode.SEND, "the Send " + what);
        assertReceived(awaitCompletion(pair.passive().cq, "the receive of the Send " + what), 71, length,
                pair.passive().qp, "the receive of the Send " + what);
        Bytes.assertPattern(pair.passive().mem(), 0, length, seed, "bytes received from the Send " + what);
    }

    @Test
    void everyAdvertisedQueuePairCanExistAtOnceAndOneMoreIsRefused() {
        RdmaDevice d = adapter(0);
        int max = reachable("maxQueuePairs", d.attributes().maxQueuePairs());
        ProtectionDomain pd = closeAtEnd(d.allocateProtectionDomain());
        List<QueuePair> qps = new ArrayList<>(max);
        for (int i = 1; i < max; i++) { // each QP with its own CQ, as the suite's endpoints have
            CompletionQueue cq = closeAtEnd(d.createCompletionQueue(16));
            qps.add(closeAtEnd(pd.createQueuePair(QueuePairConfig.of(cq).withDepths(16, 16))));
        }
        Endpoint last = endpoint(0, EndpointSpec.defaults().withPd(pd)); // QP number max, with a region to connect
        ResourceLimitException refused = assertThrows(ResourceLimitException.class,
                () -> pd.createQueuePair(QueuePairConfig.of(last.cq)), "queue pair " + (max + 1) + " of " + d.name());
        assertRefusedAt(refused, "maxQueuePairs", max, "queue pair " + (max + 1));

        qps.getFirst().close(); // a closed QP makes room for the next
        closeAtEnd(pd.createQueuePair(QueuePairConfig.of(last.cq).withDepths(16, 16)));
        assertThrows(ResourceLimitException.class, () -> pd.createQueuePair(QueuePairConfig.of(last.cq)),
                "a queue pair over the maximum again");

        assertSendArrives(connect(last, endpoint(1)), last.region, 4096, 41, "of the last queue pair created");
    }

    @Test
    void everyAdvertisedMemoryRegionCanExistAtOnceAndOneMoreRegionOrWindowIsRefused() {
        RdmaDevice d = adapter(0);
        int max = reachable("maxMemoryRegions", d.attributes().maxMemoryRegions());
        ConnectedPair pair = connectedPair(); // its region is the first of adapter 0
        ProtectionDomain pd = pair.active().pd;
        MemorySegment block = allocate((long) max * SLICE);
        List<MemoryRegion> regions = new ArrayList<>(max);
        for (int i = 1; i < max; i++) {
            regions.add(closeAtEnd(pd.registerMemory(block.asSlice((long) i * SLICE, SLICE), Access.LOCAL_WRITE)));
        }
        ResourceLimitException refused = assertThrows(ResourceLimitException.class,
                () -> pd.registerMemory(block.asSlice(0, SLICE), Access.LOCAL_WRITE), "region " + (max + 1) + " of " + d.name());
        assertRefusedAt(refused, "maxMemoryRegions", max, "region " + (max + 1));
        // windows take STags from the same space (DeviceAttributes.maxMemoryRegions counts both)
        assertRefusedAt(assertThrows(ResourceLimitException.class, pd::allocateMemoryWindow, "a window with every STag in use"),
                "maxMemoryRegions", max, "a window with every STag in use");

        assertSendArrives(pair, regions.getLast(), SLICE, 42, "from the last region registered");

        regions.getFirst().close(); // a closed region makes room for a window
        closeAtEnd(pd.allocateMemoryWindow());
        assertThrows(ResourceLimitException.class, () -> pd.registerMemory(block.asSlice(0, SLICE), Access.LOCAL_WRITE),
                "a region over the maximum again");
    }

    @Test
    void everyAdvertisedCompletionQueueProtectionDomainAndSharedReceiveQueueCanExistAtOnce() {
        RdmaDevice d = adapter(0);
        DeviceAttributes a = d.attributes();
        int maxCqs = reachable("maxCompletionQueues", a.maxCompletionQueues());
        int maxPds = reachable("maxProtectionDomains", a.maxProtectionDomains());
        int maxSrqs = reachable("maxSharedReceiveQueues", a.maxSharedReceiveQueues());
        CompletionQueue cq = null;
        for (int i = 0; i < maxCqs; i++) {
            cq = closeAtEnd(d.createCompletionQueue(4));
        }
        assertRefusedAt(assertThrows(ResourceLimitException.class, () -> d.createCompletionQueue(4), "CQ " + (maxCqs + 1)),
                "maxCompletionQueues", maxCqs, "CQ " + (maxCqs + 1));
        ProtectionDomain pd = null;
        for (int i = 0; i < maxPds; i++) {
            pd = closeAtEnd(d.allocateProtectionDomain());
        }
        assertRefusedAt(assertThrows(ResourceLimitException.class, d::allocateProtectionDomain, "PD " + (maxPds + 1)),
                "maxProtectionDomains", maxPds, "PD " + (maxPds + 1));
        SharedReceiveQueue srq = null;
        for (int i = 0; i < maxSrqs; i++) {
            srq = closeAtEnd(pd.createSharedReceiveQueue(1, 1));
        }
        ProtectionDomain lastPd = pd;
        assertRefusedAt(assertThrows(ResourceLimitException.class, () -> lastPd.createSharedReceiveQueue(1, 1), "SRQ " + (maxSrqs + 1)),
                "maxSharedReceiveQueues", maxSrqs, "SRQ " + (maxSrqs + 1));

        // the last of each works: a QP on the last CQ and SRQ in the last PD receives a Send
        MemoryRegion region = register(pd, EndpointSpec.DEFAULT_REGION, EndpointSpec.FULL_ACCESS);
        QueuePair qp = closeAtEnd(pd.createQueuePair(QueuePairConfig.of(cq).withSrq(srq)));
        ConnectedPair pair = connect(new Endpoint(d, pd, cq, region, qp), endpoint(1));
        srq.postReceive(new ReceiveRequest(81, sge(region, 0, 4096)));
        Bytes.fill(pair.passive().mem(), 0, 4096, 43);
        postSend(pair.passive(), 82, 0, 4096, SIGNALED);
        assertReceived(awaitCompletion(cq, "the receive through the last SRQ on the last CQ"), 81, 4096, qp,
                "the receive through the last SRQ on the last CQ");
        Bytes.assertPattern(region.segment(), 0, 4096, 43, "bytes received through the last SRQ");
    }
}

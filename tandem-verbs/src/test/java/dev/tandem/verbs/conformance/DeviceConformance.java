package dev.tandem.verbs.conformance;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.ListenerClosedException;
import dev.tandem.verbs.PortState;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.ResourceLeakException;
import dev.tandem.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.time.Duration;
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
}

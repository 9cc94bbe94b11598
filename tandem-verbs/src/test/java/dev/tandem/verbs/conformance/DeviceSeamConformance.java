package dev.tandem.verbs.conformance;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventSubscription;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionChannel;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.DeviceOptions;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.LocalProtectionException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.RdmaException;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The seams that layers over devices stand on (a fail-over device, monitoring): several event
 * subscribers, one thread waiting on several completion queues, STags chosen by the opener, and a
 * region of one device named in a request posted to another device of the node.
 */
public abstract class DeviceSeamConformance extends ConformanceBase {

    // ---------------------------------------------------------------- async event subscribers

    @Test
    void everySubscriberAndTheApplicationSeeEachEvent() {
        AsyncEventSubscription first = closeAtEnd(adapter(1).subscribeAsyncEvents());
        AsyncEventSubscription second = closeAtEnd(adapter(1).subscribeAsyncEvents());
        ConnectedPair pair = connectedPair();
        Object passiveQp = pair.passive().qp;
        awaitInSubscription(first, AsyncEventType.COMMUNICATION_ESTABLISHED, passiveQp, "the first subscriber");
        awaitInSubscription(second, AsyncEventType.COMMUNICATION_ESTABLISHED, passiveQp, "the second subscriber");
        awaitAsyncEvent(adapter(1), AsyncEventType.COMMUNICATION_ESTABLISHED, passiveQp);

        second.close();
        pair.active().qp.disconnect();
        awaitInSubscription(first, AsyncEventType.DISCONNECTED, passiveQp, "the subscriber still open");
        awaitAsyncEvent(adapter(1), AsyncEventType.DISCONNECTED, passiveQp);
        // the witness: the open subscriber and the application have the event; the closed one gets nothing
        assertNull(second.poll(Duration.ZERO), "a closed subscription gets no more events");
        assertEquals(0, first.dropped(), "no event was dropped for a subscriber that kept up");
    }

    private AsyncEvent awaitInSubscription(AsyncEventSubscription s, AsyncEventType type, Object resource, String who) {
        long deadline = System.nanoTime() + bound().toNanos();
        List<AsyncEvent> seen = new ArrayList<>();
        while (true) {
            long left = deadline - System.nanoTime();
            AsyncEvent e = left > 0 ? s.poll(Duration.ofNanos(left)) : null;
            if (e == null) {
                return fail("timed out after " + bound() + " awaiting " + type + " about " + resource + " at " + who + "; seen " + seen);
            }
            if (e.type() == type && e.resource() == resource) {
                return e;
            }
            seen.add(e);
        }
    }

    // ---------------------------------------------------------------- completion channel

    @Test
    void oneThreadWaitsOnThreeCompletionQueuesOfTwoAdapters() {
        CompletionChannel channel = closeAtEnd(new CompletionChannel());
        CompletionQueue a = closeAtEnd(adapter(0).createCompletionQueue(EndpointSpec.CQ_DEPTH, channel));
        CompletionQueue b = closeAtEnd(adapter(0).createCompletionQueue(EndpointSpec.CQ_DEPTH, channel));
        CompletionQueue c = closeAtEnd(adapter(1).createCompletionQueue(EndpointSpec.CQ_DEPTH, channel));
        ConnectedPair one = connectedPair(EndpointSpec.defaults().withCq(a), EndpointSpec.defaults().withCq(c));
        ConnectedPair two = connectedPair(EndpointSpec.defaults().withCq(b), EndpointSpec.defaults());
        a.requestNotification(false);
        b.requestNotification(false);
        c.requestNotification(false);
        assertNull(channel.await(Duration.ZERO), "no CQ has had a completion yet");

        // b: a Send from the second pair's passive side lands in a Receive of b's QP
        postReceive(two.active(), 1, 0, 64);
        postSend(two.passive(), 2, 0, 64, SIGNALED);
        assertSame(b, awaitReady(channel, "the CQ that received a Send"), "the channel names the CQ that had the completion");

        // a and c: one signalled Send completes at a (the sender) and at c (the receiver)
        postReceive(one.passive(), 3, 0, 64);
        postSend(one.active(), 4, 0, 64, SIGNALED);
        Set<CompletionQueue> ready = new HashSet<>(List.of(awaitReady(channel, "a CQ of the first pair"), awaitReady(channel, "the other CQ of the first pair")));
        assertEquals(Set.of(a, c), ready, "the sender's and the receiver's CQ each reported once");
        assertEquals(CompletionStatus.SUCCESS, awaitCompletion(a, "the Send at a").status());
        assertEquals(CompletionStatus.SUCCESS, awaitCompletion(c, "the Receive at c").status());

        // a CQ reported once stays quiet until armed again: a's next completion (the witness) is not reported
        postReceive(one.passive(), 5, 0, 64);
        postSend(one.active(), 6, 0, 64, SIGNALED);
        assertEquals(6, awaitCompletion(a, "the second Send at a").wrId());
        assertEquals(5, awaitCompletion(c, "the second Receive at c").wrId());
        assertNull(channel.await(Duration.ZERO), "a and c were not armed again, b had nothing new");

        // arming a CQ that holds a completion already reports it at once: b still holds its Receive
        b.requestNotification(false);
        assertSame(b, channel.await(Duration.ZERO), "armed while holding a completion, b reports at once");
        assertEquals(1, awaitCompletion(b, "the Receive at b").wrId());
    }

    @Test
    void aQueueWithoutAChannelRefusesToBeArmed() {
        CompletionQueue plain = closeAtEnd(adapter(0).createCompletionQueue(4));
        InvalidStateException e = assertThrows(InvalidStateException.class, () -> plain.requestNotification(false));
        assertTrue(e.getMessage().contains("channel"), "the error says what is missing: " + e.getMessage());
    }

    private CompletionQueue awaitReady(CompletionChannel channel, String what) {
        CompletionQueue cq = channel.await(bound());
        if (cq == null) {
            fail("timed out after " + bound() + " awaiting the channel to report " + what);
        }
        return cq;
    }

    // ---------------------------------------------------------------- STags chosen by the opener

    @Test
    void aRegionTakesTheStagTheOpenersSourceGivesAndPeersReachItByThatStag() {
        int chosen = 0x345678 << 8 | 0xC3;
        int reissued = 0x345679 << 8 | 0x3C;
        ScriptedStags stags = new ScriptedStags().give(chosen);
        ProtectionDomain pd = closeAtEnd(adapter(1, DeviceOptions.DEFAULT.withStagSource(stags)).allocateProtectionDomain());
        MemoryRegion target = register(pd, 4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        assertEquals(STag.format(chosen), STag.format(target.lkey()), "the lkey is the STag the source gave");
        assertEquals(target.lkey(), target.rkey(), "lkey and rkey are one STag");

        ConnectedPair pair = connectedPair(EndpointSpec.defaults(), EndpointSpec.defaults().withPd(pd));
        Bytes.fill(pair.active().mem(), 0, 256, 41);
        postWrite(pair.active(), 7, 0, 256, 512, chosen, SIGNALED);
        assertEquals(CompletionStatus.SUCCESS, awaitCompletion(pair.active().cq, "the Write to the chosen STag").status());
        // a Send after the Write: once the peer received it, the Write before it was placed
        postReceive(pair.passive(), 8, 0, 64);
        postSend(pair.active(), 9, 0, 64, 0);
        assertEquals(8, awaitCompletion(pair.passive().cq, "the Send that follows the Write").wrId());
        Bytes.assertPattern(target.segment(), 512, 256, 41, 0, "bytes written to the STag the source chose");

        stags.give(reissued);
        assertEquals(STag.format(reissued), STag.format(target.reregister(Access.LOCAL_WRITE)), "reregister takes the source's next STag");
        assertTrue(stags.released().contains(chosen), "the device gave the old STag back to the source: " + stags.released());
    }

    @Test
    void aSourceThatGivesALiveIndexIsRefusedAndTheRegionBeforeKeepsWorking() {
        int chosen = 0x222222 << 8 | 0x11;
        ScriptedStags stags = new ScriptedStags().give(chosen, chosen & ~0xFF | 0x12);
        ProtectionDomain pd = closeAtEnd(adapter(0, DeviceOptions.DEFAULT.withStagSource(stags)).allocateProtectionDomain());
        MemoryRegion first = register(pd, 64, Access.LOCAL_WRITE);
        RdmaException refused = assertThrows(RdmaException.class, () -> register(pd, 64, Access.LOCAL_WRITE));
        assertTrue(refused.getMessage().contains("live"), "the error says the index is in use: " + refused.getMessage());
        assertTrue(first.isValid(), "the region registered before is untouched");
        assertEquals(chosen, first.lkey());
    }

    // ---------------------------------------------------------------- regions across devices

    private final ScriptedStags[] scripted = new ScriptedStags[2];

    /** Opens both adapters, each with a scripted STag source of its own. */
    private void openBothWithScriptedStags() {
        for (int i = 0; i < 2; i++) {
            scripted[i] = new ScriptedStags();
            adapter(i, DeviceOptions.DEFAULT.withStagSource(scripted[i]));
        }
    }

    /** The next region registered on each adapter gets {@code stag}, as a node key table would give. */
    private void nextOnBoth(int stag) {
        scripted[0].give(stag);
        scripted[1].give(stag);
    }

    @Test
    void aRegionOfAnotherDeviceWorksWhereThisDeviceHasItUnderTheSameLkey() {
        openBothWithScriptedStags();
        ConnectedPair pair = connectedPair();
        MemorySegment shared = allocate(4096);
        Bytes.fill(shared, 0, 128, 77);
        int twinStag = 0x600001 << 8 | 0x42;
        nextOnBoth(twinStag);
        register(pair.active().pd, shared, Access.LOCAL_WRITE);
        MemoryRegion ofAdapter1 = register(pair.passive().pd, shared, Access.LOCAL_WRITE);

        // posted to adapter 0 with adapter 1's region: adapter 0 has the same memory under the same lkey
        postReceive(pair.passive(), 8, 0, 128);
        pair.active().qp.postSend(new WorkRequest.Send(9, sge(ofAdapter1, 0, 128), SIGNALED));
        assertEquals(CompletionStatus.SUCCESS, awaitCompletion(pair.active().cq, "the Send gathered through the other device's region").status());
        WorkCompletion received = awaitCompletion(pair.passive().cq, "the Receive of that Send");
        assertEquals(128, received.byteLength());
        Bytes.assertPattern(pair.passive().mem(), 0, 128, 77, 0, "bytes gathered from the twin region");
    }

    @Test
    void aRegionOfAnotherDeviceIsRefusedWhereThisDeviceHasNoTwin() {
        openBothWithScriptedStags();
        Endpoint local = endpoint(0);
        ProtectionDomain otherPd = closeAtEnd(adapter(1).allocateProtectionDomain());

        MemoryRegion alone = register(otherPd, 64, Access.LOCAL_WRITE);
        LocalProtectionException none = assertThrows(LocalProtectionException.class,
                () -> local.qp.postReceive(new ReceiveRequest(10, sge(alone, 0, 64))));
        assertTrue(none.getMessage().contains(STag.format(alone.lkey())), "the error names the lkey: " + none.getMessage());

        int same = 0x600002 << 8 | 0x24;
        nextOnBoth(same);
        register(local.pd, allocate(64), Access.LOCAL_WRITE);
        MemoryRegion otherMemory = register(otherPd, allocate(64), Access.LOCAL_WRITE);
        LocalProtectionException elsewhere = assertThrows(LocalProtectionException.class,
                () -> local.qp.postReceive(new ReceiveRequest(11, sge(otherMemory, 0, 64))));
        assertTrue(elsewhere.getMessage().contains("other memory"), "the error says the lkey holds other memory here: " + elsewhere.getMessage());
    }

    private MemoryRegion register(ProtectionDomain pd, MemorySegment memory, int access) {
        return closeAtEnd(pd.registerMemory(memory, access));
    }
}

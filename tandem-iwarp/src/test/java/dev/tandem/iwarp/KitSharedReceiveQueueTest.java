package dev.tandem.iwarp;

import dev.tandem.provider.KitSharedReceiveQueue;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueueFullException;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResetReport;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.SharedReceiveQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The shared receive queue's limits as the adapter states them, its exact capacity, and its one-shot
 * limit event as the engine takes buffers for arriving Sends.
 */
class KitSharedReceiveQueueTest {
    private final Arena arena = Arena.ofConfined();
    private IwarpDevice device;
    private ProtectionDomain pd;
    private MemoryRegion mr;
    private final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeEach
    void open() {
        device = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
        pd = device.allocateProtectionDomain();
        mr = pd.registerMemory(arena.allocate(4096, 64), Access.LOCAL_WRITE);
    }

    @AfterEach
    void close() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        mr.close();
        pd.close();
        device.close();
        arena.close();
    }

    private KitSharedReceiveQueue srq(int maxWr, int maxSge) {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(maxWr, maxSge);
        opened.add(srq);
        return (KitSharedReceiveQueue) srq;
    }

    private void post(SharedReceiveQueue srq, int n) {
        for (int i = 0; i < n; i++) {
            srq.postReceive(new ReceiveRequest(i, new Sge(mr, 64L * i, 64)));
        }
    }

    private List<AsyncEventType> limitEvents(SharedReceiveQueue srq) {
        List<AsyncEventType> seen = new ArrayList<>();
        for (AsyncEvent e; (e = device.pollAsyncEvent(Duration.ZERO)) != null; ) {
            if (e.resource() == srq) {
                seen.add(e.type());
            }
        }
        return seen;
    }

    @Test
    void sizesUpToTheAdaptersLimitsAreAcceptedAndNothingBelowOne() {
        int maxWr = device.attributes().maxQueuePairDepth();
        int maxSge = device.attributes().maxSge();
        SharedReceiveQueue largest = srq(maxWr, maxSge);
        assertThat(largest.maxWr()).isEqualTo(maxWr);
        assertThat(largest.maxSge()).isEqualTo(maxSge);
        assertThatThrownBy(() -> pd.createSharedReceiveQueue(0, 1)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("maxWr 0");
        assertThatThrownBy(() -> pd.createSharedReceiveQueue(maxWr + 1, 1)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("maxWr " + (maxWr + 1));
        assertThatThrownBy(() -> pd.createSharedReceiveQueue(1, 0)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("maxSge 0");
        assertThatThrownBy(() -> pd.createSharedReceiveQueue(1, maxSge + 1)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("maxSge " + (maxSge + 1));
    }

    @Test
    void aSharedQueueHoldsExactlyMaxWrBuffers() {
        for (int maxWr : new int[] {3, 4}) {
            SharedReceiveQueue srq = srq(maxWr, 1);
            post(srq, maxWr);
            assertThatThrownBy(() -> srq.postReceive(new ReceiveRequest(99, new Sge(mr, 0, 64))))
                    .as("buffer %d of a shared queue of maxWr %d", maxWr + 1, maxWr).isInstanceOf(QueueFullException.class);
            assertThat(srq.posted()).isEqualTo(maxWr);
        }
    }

    @Test
    void theLimitMayBeArmedFromOneUpToMaxWr() {
        SharedReceiveQueue srq = srq(4, 1);
        assertThatThrownBy(() -> srq.armLimit(0)).isInstanceOf(InvalidArgumentException.class).hasMessageContaining("limit 0");
        assertThatThrownBy(() -> srq.armLimit(5)).isInstanceOf(InvalidArgumentException.class).hasMessageContaining("limit 5");
        srq.armLimit(1);
        srq.armLimit(4);
    }

    @Test
    void theLimitEventFiresOnceWhenPostedBuffersDropBelowTheLimitNotWhenTheyReachIt() {
        KitSharedReceiveQueue srq = srq(8, 1);
        post(srq, 4);
        srq.armLimit(2);
        // the engine takes one buffer per arriving Send; the event is raised before take returns
        assertThat(srq.take()).isNotNull();
        assertThat(limitEvents(srq)).as("3 posted: above the limit of 2").isEmpty();
        assertThat(srq.take()).isNotNull();
        assertThat(limitEvents(srq)).as("2 posted: at the limit of 2, not below it").isEmpty();
        assertThat(srq.take()).isNotNull();
        assertThat(limitEvents(srq)).as("1 posted: below the limit of 2").containsExactly(AsyncEventType.SRQ_LIMIT_REACHED);
        assertThat(srq.take()).isNotNull();
        assertThat(limitEvents(srq)).as("0 posted: the limit fired already (one shot)").isEmpty();
        assertThat(srq.take()).as("a Send finding the queue empty").isNull();
        assertThat(limitEvents(srq)).isEmpty();
    }

    @Test
    void aLimitOfMaxWrFiresAtTheFirstBufferTaken() {
        KitSharedReceiveQueue srq = srq(4, 1);
        post(srq, 4);
        srq.armLimit(4);
        assertThat(srq.take()).isNotNull();
        assertThat(limitEvents(srq)).containsExactly(AsyncEventType.SRQ_LIMIT_REACHED);
    }

    @Test
    void anArmedLimitDoesNotFireForASendThatFindsNoBuffer() {
        KitSharedReceiveQueue srq = srq(4, 1);
        srq.armLimit(2);
        assertThat(srq.take()).as("a Send finding the queue empty").isNull();
        assertThat(limitEvents(srq)).as("nothing was taken, so the posted count did not drop").isEmpty();
        post(srq, 2);
        assertThat(srq.take()).isNotNull();
        assertThat(limitEvents(srq)).as("the limit stayed armed: 1 posted is below 2").containsExactly(AsyncEventType.SRQ_LIMIT_REACHED);
    }

    @Test
    void postingAndArmingLeaveTheAdapterFreeToReset() {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(4, 1);
        try {
            post(srq, 2);
            srq.armLimit(1);
        } finally {
            srq.close();
        }
        // the resources are closed before the reset, so it waits only for threads inside verbs
        mr.close();
        pd.close();
        ResetReport report = device.reset(Duration.ZERO);
        assertThat(report.stuckThreads()).as("threads the reset found still inside a verb: " + report).isZero();
        assertThat(report.rogueResources()).isEmpty();
        pd = device.allocateProtectionDomain();
        mr = pd.registerMemory(arena.allocate(4096, 64), Access.LOCAL_WRITE);
    }
}

package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueueFullException;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevices;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What an application asks of a shared receive queue holds across a fail-over as on a plain adapter: the
 * limit it armed fires once, when the posted receives drop below it, though the receives moved to another
 * adapter after it was armed; bad requests are refused with the queue's own words, and nothing is logged
 * for them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SharedReceiveQueueLimitTest {
    private static final int SIZE = 64;
    private static final Duration QUIET = Duration.ofMillis(200);
    private final Opened opened = new Opened();

    @AfterEach
    void close() {
        opened.close();
    }

    /**
     * b arms its SRQ's limit at 5 with 8 receives posted; then the SRQ's adapter fails, before any connection,
     * and the receives move to the other adapter (the failed one is reset and comes back empty). a's messages take them one by one: no event while 5 or more
     * are left, one SRQ_LIMIT_REACHED naming b's SRQ when 4 are left, none after (one shot).
     */
    @Test
    void anArmedLimitFiresOnceAfterTheReceivesMovedToAnotherAdapter() throws Exception {
        FailoverDevice a = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.1+127.0.2.1?node=a"));
        FailoverDevice b = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.2+127.0.2.2?node=b"));
        Arena arena = opened.keep(Arena.ofShared());
        ProtectionDomain pdA = opened.keep(a.allocateProtectionDomain());
        ProtectionDomain pdB = opened.keep(b.allocateProtectionDomain());
        MemoryRegion mrA = opened.keep(pdA.registerMemory(arena.allocate(SIZE, 64), Access.LOCAL_WRITE));
        MemoryRegion mrB = opened.keep(pdB.registerMemory(arena.allocate(SIZE * 8L, 64), Access.LOCAL_WRITE));
        FailoverSharedReceiveQueue srq = (FailoverSharedReceiveQueue) opened.keep(pdB.createSharedReceiveQueue(8, 1));
        for (int i = 0; i < 8; i++) {
            srq.postReceive(new ReceiveRequest(i, new Sge(mrB, (long) i * SIZE, SIZE)));
        }
        srq.armLimit(5);
        int first = srq.adapter();
        AdapterControl dying = (AdapterControl) b.adapters().get(first);
        dying.injectFatalError("test: the SRQ's adapter, after the limit was armed");
        Opened.await("the receives to leave the failed adapter", () -> srq.adapter() != first);
        dying.reset(Duration.ofSeconds(5)); // made again there, empty: the receives stay where they went
        Opened.await("the SRQ made again on the adapter that was reset", () -> srq.under(first) != null);

        CompletionQueue cqA = opened.keep(a.createCompletionQueue(16));
        CompletionQueue cqB = opened.keep(b.createCompletionQueue(16));
        FailoverQueuePair qa = (FailoverQueuePair) opened.keep(pdA.createQueuePair(QueuePairConfig.of(cqA).withDepths(8, 4)));
        FailoverQueuePair qb = (FailoverQueuePair) opened.keep(pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(4, 4).withSrq(srq)));
        Opened.connect(qa, b, "127.0.1.2", qb);
        drainEvents(b);
        for (int m = 0; m < 3; m++) {
            sendOne(qa, cqA, cqB, mrA, m);
        }
        assertThat(srq.posted()).isEqualTo(5);
        assertThat(limitEvents(b, QUIET)).as("5 posted is not below the limit 5").isEmpty();
        sendOne(qa, cqA, cqB, mrA, 3);
        AsyncEvent e = awaitLimit(b);
        assertThat(e.resource()).as("the event names the application's SRQ").isSameAs(srq);
        assertThat(srq.posted()).isEqualTo(4);
        sendOne(qa, cqA, cqB, mrA, 4);
        assertThat(limitEvents(b, QUIET)).as("the limit is one-shot").isEmpty();
    }

    /** The limit, the receive's shape and the queue's depth are checked by the fail-over SRQ itself, whatever its adapters. */
    @Test
    void badRequestsAreRefusedWithTheQueuesOwnWordsAndNothingIsLogged() throws Exception {
        FailoverDevice b = opened.keep((FailoverDevice) RdmaDevices.open("failover://127.0.1.2+127.0.2.2?node=b"));
        ProtectionDomain pdB = opened.keep(b.allocateProtectionDomain());
        MemoryRegion mrB = opened.keep(pdB.registerMemory(opened.keep(Arena.ofShared()).allocate(SIZE * 8L, 64), Access.LOCAL_WRITE));
        FailoverSharedReceiveQueue srq = (FailoverSharedReceiveQueue) pdB.createSharedReceiveQueue(4, 1);
        assertThat(srq.maxWr()).isEqualTo(4);
        assertThat(srq.maxSge()).isEqualTo(1);
        assertThat(srq.pd()).isSameAs(pdB);
        assertThat(srq.toString()).contains(b.name()).contains("adapter " + srq.adapter()).contains("maxWr=4");

        assertThatThrownBy(() -> srq.armLimit(0)).isInstanceOf(InvalidArgumentException.class).hasMessageContaining("1..4");
        assertThatThrownBy(() -> srq.armLimit(5)).isInstanceOf(InvalidArgumentException.class).hasMessageContaining("1..4");
        assertThatThrownBy(() -> srq.postReceive(null)).isInstanceOf(InvalidArgumentException.class).hasMessageContaining("null");
        ReceiveRequest twoSges = new ReceiveRequest(9, List.of(new Sge(mrB, 0, SIZE), new Sge(mrB, SIZE, SIZE)));
        assertThatThrownBy(() -> srq.postReceive(twoSges)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("wrId 9").hasMessageContaining("maxSge 1");
        for (int i = 0; i < 4; i++) {
            srq.postReceive(new ReceiveRequest(i, new Sge(mrB, (long) i * SIZE, SIZE)));
        }
        assertThatThrownBy(() -> srq.postReceive(new ReceiveRequest(4, new Sge(mrB, 4L * SIZE, SIZE))))
                .isInstanceOf(QueueFullException.class).hasMessageContaining("4 receives posted");
        assertThat(srq.posted()).as("only the receives it took").isEqualTo(4);

        srq.close();
        assertThatThrownBy(() -> srq.postReceive(new ReceiveRequest(5, new Sge(mrB, 0, SIZE))))
                .isInstanceOf(ResourceClosedException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> srq.armLimit(2)).isInstanceOf(ResourceClosedException.class).hasMessageContaining("closed");
        srq.close(); // a second close does nothing
    }

    private static void sendOne(FailoverQueuePair qa, CompletionQueue cqA, CompletionQueue cqB, MemoryRegion mrA, int m) {
        qa.postSend(new WorkRequest.Send(m, new Sge(mrA, 0, SIZE), WrFlags.SIGNALED));
        assertThat(TwoNodes.awaitOne(cqA, "Send " + m).status()).isEqualTo(CompletionStatus.SUCCESS);
        WorkCompletion r = TwoNodes.awaitOne(cqB, "message " + m);
        assertThat(r.status()).as("%s", r).isEqualTo(CompletionStatus.SUCCESS);
    }

    private static void drainEvents(FailoverDevice d) {
        while (d.pollAsyncEvent(Duration.ZERO) != null) {
            // the fatal error's and the connection's events: not what this test counts
        }
    }

    /** The SRQ_LIMIT_REACHED events {@code d} raises within {@code quiet}. */
    private static List<AsyncEvent> limitEvents(FailoverDevice d, Duration quiet) {
        List<AsyncEvent> got = new java.util.ArrayList<>();
        long deadline = System.nanoTime() + quiet.toNanos();
        for (long left = quiet.toNanos(); left > 0; left = deadline - System.nanoTime()) {
            AsyncEvent e = d.pollAsyncEvent(Duration.ofNanos(left));
            if (e != null && e.type() == AsyncEventType.SRQ_LIMIT_REACHED) {
                got.add(e);
            }
        }
        return got;
    }

    private static AsyncEvent awaitLimit(FailoverDevice d) {
        AsyncEvent[] found = {null};
        Opened.await("SRQ_LIMIT_REACHED", () -> {
            AsyncEvent e = d.pollAsyncEvent(Duration.ofMillis(10));
            if (e != null && e.type() == AsyncEventType.SRQ_LIMIT_REACHED) {
                found[0] = e;
            }
            return found[0] != null;
        });
        return found[0];
    }
}

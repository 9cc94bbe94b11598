package dev.tandem.iwarp;

import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.Trace;
import dev.tandem.ras.TraceLevel;
import dev.tandem.ras.TraceRecord;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IwarpConfig#progressOnPoll()}: whether a thread that polls an empty CQ runs the adapter's
 * engine itself. Which thread placed each received message is read from the level-8 trace.
 */
class ProgressOnPollTest {
    private static final String RX = "iwarp.rx";
    private static final int MESSAGES = 50;

    /** Sends {@link #MESSAGES} messages A to B, polling both CQs in a loop; returns the placements traced meanwhile. */
    private static List<TraceRecord> exchange(LoopbackPair p) {
        Trace trace = ProcessRas.current().trace();
        int level = trace.level(RX);
        long after = trace.records().stream().mapToLong(TraceRecord::sequence).max().orElse(-1);
        trace.setLevel(RX, TraceLevel.HOT_INTERNALS);
        try {
            for (int i = 0; i < MESSAGES; i++) {
                p.qpB.postReceive(new ReceiveRequest(i, new Sge(p.mrB, 64L * i, 64)));
                p.qpA.postSend(new WorkRequest.Send(100 + i, new Sge(p.mrA, 0, 64), WrFlags.SIGNALED));
                assertSuccess(pollOne(p.cqB), i);
                assertSuccess(pollOne(p.cqA), 100 + i);
            }
        } finally {
            trace.setLevel(RX, level);
        }
        return trace.records().stream().filter(r -> r.sequence() > after && r.event().equals("rx-place")).toList();
    }

    /** Polls (never waits) until a completion is there, as a latency-minded application does. */
    private static WorkCompletion pollOne(CompletionQueue cq) {
        WorkCompletion[] wc = WorkCompletion.array(1);
        long deadline = System.nanoTime() + LoopbackPair.WAIT.toNanos();
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no completion on " + cq + " within " + LoopbackPair.WAIT);
            }
        }
        return wc[0];
    }

    private static void assertSuccess(WorkCompletion wc, long wrId) {
        assertThat(wc.wrId()).isEqualTo(wrId);
        assertThat(wc.status()).as(wc.toString()).isEqualTo(CompletionStatus.SUCCESS);
    }

    /**
     * A polling thread keeps the engine away, so it must read the inbound stream itself even while its
     * polls keep finding completions: here A's application thread writes to B and reaps each Write
     * (which completes as it is sent) without pause, while B reads from A. A's Read Response is what
     * tells: B's Read completes only if someone reads B's Read Request on A.
     */
    @Test
    void aPollerThatKeepsFindingCompletionsStillReadsTheInboundStream() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c.withProgressOnPoll(true), 4096)) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong writes = new AtomicLong();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread writer = Thread.ofPlatform().name("progress-on-poll-writer").start(() -> {
                try {
                    while (!stop.get()) {
                        long id = writes.incrementAndGet();
                        p.qpA.postSend(new WorkRequest.RdmaWrite(id, List.of(new Sge(p.mrA, 0, 64)), 0, p.mrB.rkey(), WrFlags.SIGNALED));
                        assertSuccess(pollOne(p.cqA), id);
                    }
                } catch (Throwable t) {
                    failed.set(t);
                }
            });
            try {
                long deadline = System.nanoTime() + LoopbackPair.WAIT.toNanos();
                while (writes.get() < 100 && System.nanoTime() - deadline < 0 && writer.isAlive()) {
                    Thread.onSpinWait(); // the writer is in full swing before the Read goes out
                }
                p.qpB.postSend(new WorkRequest.RdmaRead(7, List.of(new Sge(p.mrB, 1024, 8)), 0, p.mrA.rkey(), WrFlags.SIGNALED));
                assertSuccess(pollOne(p.cqB), 7);
            } finally {
                stop.set(true);
                assertThat(writer.join(LoopbackPair.WAIT)).as("the writer stopped within " + LoopbackPair.WAIT).isTrue();
            }
            assertThat(failed.get()).as("the writer's failure").isNull();
            assertThat(writes.get()).as("Writes reaped while B's Read was answered").isGreaterThanOrEqualTo(100);
        }
    }

    @Test
    void withProgressOnPollOffAPollingThreadNeverRunsTheEngine() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c.withProgressOnPoll(false), 4096)) {
            long me = Thread.currentThread().threadId();
            List<TraceRecord> placed = exchange(p);
            assertThat(placed).as("the %d Sends' placements, traced", MESSAGES).hasSizeGreaterThanOrEqualTo(MESSAGES);
            assertThat(placed).as("placements made by the polling thread %d (only the engine thread may place data)", me)
                    .noneMatch(r -> r.threadId() == me);
        }
    }

    @Test
    void withProgressOnPollOnAPollingThreadReceivesItself() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c.withProgressOnPoll(true), 4096)) {
            long me = Thread.currentThread().threadId();
            List<TraceRecord> placed = exchange(p);
            assertThat(placed).as("the %d Sends' placements, traced", MESSAGES).hasSizeGreaterThanOrEqualTo(MESSAGES);
            assertThat(placed).as("placements made by the polling thread %d while it polled an empty CQ", me)
                    .anyMatch(r -> r.threadId() == me);
        }
    }
}

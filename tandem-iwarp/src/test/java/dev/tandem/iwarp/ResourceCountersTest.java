package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.RdmapOpcode;
import dev.tandem.provider.KitCompletionQueue;
import dev.tandem.provider.KitSharedReceiveQueue;
import dev.tandem.ras.CounterSnapshot;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasReader;
import dev.tandem.ras.Trace;
import dev.tandem.ras.TraceLevel;
import dev.tandem.ras.TraceRecord;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.SharedReceiveQueue;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counters of CQs, SRQs, MRs, QP queues and engine threads, driven by real traffic over loopback and
 * read from the process's RAS file; each resource's counters leave the file when it closes.
 */
class ResourceCountersTest {

    private static Map<String, Long> counters() {
        try (RasReader reader = RasReader.open(ProcessRas.current().path())) {
            return counters(reader);
        }
    }

    private static Map<String, Long> counters(RasReader reader) {
        return reader.counters().stream().collect(Collectors.toMap(CounterSnapshot::label, CounterSnapshot::value, Long::sum));
    }

    private static long value(String label) {
        Long v = counters().get(label);
        assertThat(v).as("counter '" + label + "'").isNotNull();
        return v;
    }

    /** Waits (bounded) until counter {@code label} satisfies {@code condition}. */
    private static void awaitCounter(String label, LongPredicate condition, String what) {
        long deadline = System.nanoTime() + LoopbackPair.WAIT.toNanos();
        long v;
        while (!condition.test(v = value(label))) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("'" + label + "' is " + v + " after " + LoopbackPair.WAIT + "; expected " + what);
            }
            Thread.onSpinWait();
        }
    }

    private static String mr(IwarpDevice d, MemoryRegion mr, String name) {
        return d.name() + " mr " + String.format("0x%08x", mr.rkey()) + " " + name;
    }

    private static int drain(CompletionQueue cq, int expected) {
        WorkCompletion[] wc = WorkCompletion.array(16);
        int n = 0;
        long deadline = System.nanoTime() + LoopbackPair.WAIT.toNanos();
        while (n < expected) {
            int got = cq.poll(wc);
            for (int i = 0; i < got; i++) {
                assertThat(wc[i].status()).as("completion " + wc[i]).isEqualTo(CompletionStatus.SUCCESS);
            }
            n += got;
            assertThat(System.nanoTime() - deadline).as("%d of %d completions within %s", n, expected, LoopbackPair.WAIT).isNegative();
        }
        return n;
    }

    @Test
    void cqQpAndMrCountersFollowTheTraffic() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 8192)) {
            String a = p.a.name();
            String b = p.b.name();
            String qpA = a + " qp " + p.qpA.qpNumber();
            String qpB = b + " qp " + p.qpB.qpNumber();
            for (int i = 0; i < 3; i++) {
                p.qpB.postReceive(new ReceiveRequest(10 + i, new Sge(p.mrB, 256L * i, 256)));
            }
            assertThat(value(qpB + " receive queue high water")).isEqualTo(3);
            assertThat(value(qpA + " receive queue high water")).isZero();
            for (int i = 0; i < 3; i++) {
                p.qpA.postSend(new WorkRequest.Send(20 + i, new Sge(p.mrA, 0, 100), WrFlags.SIGNALED));
            }
            // nobody polls the CQs yet: every completion stays queued, so the high-water mark is exact
            awaitCounter(b + " cq 1 completions", v -> v == 3, "the 3 receive completions");
            awaitCounter(a + " cq 1 completions", v -> v == 3, "the 3 send completions");
            assertThat(value(b + " cq 1 high water")).isEqualTo(3);
            assertThat(value(a + " cq 1 high water")).isEqualTo(3);
            assertThat(value(qpA + " send queue high water")).as("3 posted, some perhaps completed already").isBetween(1L, 3L);
            assertThat(value(qpA + " receive queue high water")).isZero();
            drain(p.cqA, 3);
            drain(p.cqB, 3);
            assertThat(value(mr(p.b, p.mrB, "bytes placed"))).as("three 100-byte Sends").isEqualTo(300);
            assertThat(value(mr(p.b, p.mrB, "remote accesses"))).as("Sends are untagged").isZero();

            p.qpA.postSend(new WorkRequest.RdmaWrite(30, new Sge(p.mrA, 0, 1000), 4096, p.mrB.rkey(), WrFlags.SIGNALED));
            drain(p.cqA, 1);
            awaitCounter(mr(p.b, p.mrB, "bytes placed"), v -> v == 1300, "the Write's 1000 bytes placed too");
            assertThat(value(mr(p.b, p.mrB, "remote accesses"))).as("one Write segment").isEqualTo(1);

            p.qpA.postSend(new WorkRequest.RdmaRead(31, new Sge(p.mrA, 2048, 512), 0, p.mrB.rkey(), WrFlags.SIGNALED));
            drain(p.cqA, 1);
            assertThat(value(mr(p.b, p.mrB, "remote accesses"))).as("and one Read served from it").isEqualTo(2);
            assertThat(value(mr(p.a, p.mrA, "bytes placed"))).as("the Read Response").isEqualTo(512);
            assertThat(value(mr(p.a, p.mrA, "remote accesses"))).as("one Read Response segment").isEqualTo(1);
            assertThat(value(mr(p.b, p.mrB, "bytes placed"))).isEqualTo(1300);
            assertThat(value(mr(p.b, p.mrB, "access faults"))).isZero();
            assertThat(value(a + " cq 1 completions")).isEqualTo(5);
            assertThat(value(a + " cq 1 overflows")).isZero();

            p.qpA.postSend(new WorkRequest.RdmaWrite(32, new Sge(p.mrA, 0, 64), 0, p.mrB.rkey() ^ 0x33, 0));
            awaitCounter(mr(p.b, p.mrB, "access faults"), v -> v == 1, "the Write with a wrong key refused");
            assertThat(value(mr(p.b, p.mrB, "bytes placed"))).as("nothing placed by the refused Write").isEqualTo(1300);
        }
    }

    @Test
    void aReadRequestRefusedCountsAnAccessFaultOnTheRegionItNamed() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 8192)) {
            assertThat(value(mr(p.b, p.mrB, "access faults"))).isZero();
            p.qpA.postSend(new WorkRequest.RdmaRead(1, new Sge(p.mrA, 0, 64), 8192 - 32, p.mrB.rkey(), WrFlags.SIGNALED));
            awaitCounter(mr(p.b, p.mrB, "access faults"), v -> v == 1, "the Read running past the region refused");
            assertThat(value(mr(p.b, p.mrB, "remote accesses"))).as("nothing served").isZero();
            assertThat(value(mr(p.a, p.mrA, "bytes placed"))).as("no Read Response placed").isZero();
        }
    }

    @Test
    void aFullCqCountsTheOverflow() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            String b = p.b.name();
            try (CompletionQueue tiny = p.b.createCompletionQueue(1);
                 QueuePair client = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA));
                 QueuePair server = p.pdB.createQueuePair(QueuePairConfig.of(tiny))) {
                assertThat(((KitCompletionQueue) tiny).number()).isEqualTo(2);
                p.connect(client, server);
                server.postReceive(new ReceiveRequest(1, new Sge(p.mrB, 0, 64)));
                server.postReceive(new ReceiveRequest(2, new Sge(p.mrB, 64, 64)));
                client.postSend(new WorkRequest.Send(3, new Sge(p.mrA, 0, 8), 0));
                client.postSend(new WorkRequest.Send(4, new Sge(p.mrA, 0, 8), 0));
                awaitCounter(b + " cq 2 overflows", v -> v == 1, "the second receive completion to find the CQ of depth 1 full");
                assertThat(value(b + " cq 2 completions")).isEqualTo(1);
                assertThat(value(b + " cq 2 high water")).isEqualTo(1);
            }
        }
    }

    @Test
    void srqCountsPostedConsumedAndHighWater() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            String b = p.b.name();
            try (SharedReceiveQueue srq = p.pdB.createSharedReceiveQueue(16, 1);
                 QueuePair client = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA));
                 QueuePair server = p.pdB.createQueuePair(QueuePairConfig.of(p.cqB).withSrq(srq))) {
                assertThat(((KitSharedReceiveQueue) srq).number()).isEqualTo(1);
                p.connect(client, server);
                for (int i = 0; i < 5; i++) {
                    srq.postReceive(new ReceiveRequest(i, new Sge(p.mrB, 64L * i, 64)));
                }
                assertThat(value(b + " srq 1 posted")).isEqualTo(5);
                assertThat(value(b + " srq 1 high water")).isEqualTo(5);
                assertThat(value(b + " srq 1 consumed")).isZero();
                for (int i = 0; i < 2; i++) {
                    client.postSend(new WorkRequest.Send(100 + i, new Sge(p.mrA, 0, 16), WrFlags.SIGNALED));
                }
                drain(p.cqB, 2);
                assertThat(value(b + " srq 1 consumed")).isEqualTo(2);
                srq.postReceive(new ReceiveRequest(9, new Sge(p.mrB, 1024, 64)));
                assertThat(value(b + " srq 1 posted")).isEqualTo(6);
                assertThat(value(b + " srq 1 high water")).as("4 waiting now, 5 at most").isEqualTo(5);
                assertThat(srq.posted()).isEqualTo(4);
            }
        }
    }

    @Test
    void engineThreadsCountTheirDutyCycles() throws Exception {
        try (LoopbackPair slow = new LoopbackPair(c -> c.withSlowCycleNanos(1), 4096);
             LoopbackPair never = new LoopbackPair(c -> c.withSlowCycleNanos(Long.MAX_VALUE), 4096)) {
            for (LoopbackPair p : List.of(slow, never)) {
                // the application does not poll, so the engine threads carry the traffic
                p.qpB.postReceive(new ReceiveRequest(1, new Sge(p.mrB, 0, 64)));
                p.qpA.postSend(new WorkRequest.Send(2, new Sge(p.mrA, 0, 8), WrFlags.SIGNALED));
                awaitCounter(p.b.name() + " cq 1 completions", v -> v == 1, "the receive completion, placed by B's engine");
            }
            String e = "tandem-engine-" + slow.b.name();
            Map<String, Long> c = counters();
            assertThat(c.get(e + " cycles")).as(e + " cycles").isPositive();
            assertThat(c.get(e + " working cycles")).isPositive().isLessThanOrEqualTo(c.get(e + " cycles"));
            assertThat(c.get(e + " working ns")).isPositive();
            long working = c.get(e + " working cycles");
            assertThat(c.get(e + " cycles over 1 ns")).as("every working cycle is over 1 ns (one may be mid-update)")
                    .isBetween(working - 1, working + 1);
            String n = "tandem-engine-" + never.b.name();
            assertThat(c.get(n + " working cycles")).isPositive();
            assertThat(c.get(n + " cycles over 9223372036854775807 ns")).as("none is over the largest threshold").isZero();
            assertThat(c).containsKey("tandem-engine-" + slow.a.name() + " cycles over 1 ns");
        }
    }

    @Test
    void level8TracesEachPlacementAndEachSealedFpdu() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            Trace trace = ProcessRas.current().trace();
            p.qpB.postReceive(new ReceiveRequest(1, new Sge(p.mrB, 0, 256)));
            p.qpA.postSend(new WorkRequest.Send(2, new Sge(p.mrA, 0, 100), WrFlags.SIGNALED));
            drain(p.cqA, 1);
            drain(p.cqB, 1);
            assertThat(trace.records()).as("nothing traced at the default level 1")
                    .noneMatch(r -> r.event().equals("rx-place") || r.event().equals("tx-seal"));
            try {
                trace.setLevel("iwarp.rx", TraceLevel.HOT_INTERNALS);
                trace.setLevel("iwarp.tx", TraceLevel.HOT_INTERNALS);
                p.qpB.postReceive(new ReceiveRequest(3, new Sge(p.mrB, 0, 256)));
                p.qpA.postSend(new WorkRequest.Send(4, new Sge(p.mrA, 0, 100), WrFlags.SIGNALED));
                drain(p.cqA, 1);
                drain(p.cqB, 1);
            } finally {
                trace.setLevel("iwarp.rx", TraceLevel.ERROR);
                trace.setLevel("iwarp.tx", TraceLevel.ERROR);
            }
            List<TraceRecord> records = trace.records();
            assertThat(records).as("B placed the second Send (MSN 2, 100 bytes)").anySatisfy(r -> {
                assertThat(r.component()).isEqualTo("iwarp.rx");
                assertThat(r.event()).isEqualTo("rx-place");
                assertThat(r.level()).isEqualTo(TraceLevel.HOT_INTERNALS);
                assertThat(r.a()).isEqualTo(p.qpB.qpNumber());
                assertThat(r.b()).isEqualTo(RdmapOpcode.SEND);
                assertThat(r.c()).isEqualTo(2);
                assertThat(r.d()).isEqualTo(100);
            });
            assertThat(records).as("A sealed the Send's FPDU").anySatisfy(r -> {
                assertThat(r.component()).isEqualTo("iwarp.tx");
                assertThat(r.event()).isEqualTo("tx-seal");
                assertThat(r.a()).isEqualTo(p.qpA.qpNumber());
                assertThat(r.b()).isEqualTo(RdmapOpcode.SEND);
                assertThat(r.c()).as("ULPDU: 18-byte untagged header + payload").isEqualTo(118);
            });
        }
    }

    @Test
    void defaultThresholdIsOneMillisecond() throws Exception {
        assertThat(IwarpConfig.of("127.0.1.1").slowCycleNanos()).isEqualTo(1_000_000);
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            assertThat(counters()).containsKey("tandem-engine-" + p.a.name() + " cycles over 1 ms");
        }
    }

    @Test
    void countersLeaveTheFileWhenTheirResourceCloses() throws Exception {
        Path file;
        String a;
        String b;
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            file = ProcessRas.current().path();
            a = p.a.name();
            b = p.b.name();
            CompletionQueue cq = p.a.createCompletionQueue(8);
            SharedReceiveQueue srq = p.pdA.createSharedReceiveQueue(8, 1);
            MemoryRegion mr = p.pdA.registerMemory(p.arena.allocate(256), Access.LOCAL_WRITE);
            QueuePair qp = p.pdA.createQueuePair(QueuePairConfig.of(cq));
            String qpLabel = a + " qp " + qp.qpNumber() + " send queue high water";
            String mrLabel = mr(p.a, mr, "bytes placed");
            assertThat(counters()).containsKeys(a + " cq 2 completions", a + " cq 2 high water", a + " cq 2 overflows",
                    a + " srq 1 posted", a + " srq 1 consumed", a + " srq 1 high water", mrLabel, qpLabel);
            qp.close();
            cq.close();
            srq.close();
            mr.close();
            assertThat(counters().keySet()).as("counters after closing the CQ, SRQ, MR and QP")
                    .doesNotContain(a + " cq 2 completions", a + " srq 1 posted", mrLabel, qpLabel)
                    .contains(a + " cq 1 completions", mr(p.a, p.mrA, "bytes placed"));
        }
        try (RasReader reader = RasReader.open(file)) {
            assertThat(counters(reader).keySet()).as("counters of the closed adapters and their engine threads")
                    .noneMatch(l -> l.startsWith(a + " ") || l.startsWith(b + " ") || l.startsWith("tandem-engine-" + a)
                            || l.startsWith("tandem-engine-" + b));
        }
    }

}

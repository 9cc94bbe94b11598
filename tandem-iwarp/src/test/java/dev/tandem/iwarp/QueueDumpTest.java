package dev.tandem.iwarp;

import dev.tandem.ras.DumpReader;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.SnapshotNode;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.SharedReceiveQueue;
import dev.tandem.verbs.Sge;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code tandem dump} shows of an adapter's completion and shared receive queues, and of each connection's message sequence numbers. */
class QueueDumpTest {

    /** The "what" text of every {@code kind} group under the adapter group named {@code adapter}. */
    private static List<String> described(List<SnapshotNode> tree, String adapter, String kind) {
        List<String> found = new ArrayList<>();
        for (SnapshotNode n : tree) {
            if (n instanceof SnapshotNode.Group g && g.kind().equals("adapter") && g.name().equals(adapter)) {
                for (SnapshotNode child : g.children()) {
                    if (child instanceof SnapshotNode.Group r && r.kind().equals(kind)) {
                        for (SnapshotNode f : r.children()) {
                            if (f instanceof SnapshotNode.TextField t && t.key().equals("what")) {
                                found.add(t.value());
                            }
                        }
                    }
                }
            }
        }
        return found;
    }

    @Test
    void theDumpDescribesEachCompletionQueueByDepthAndEachSharedQueueBySizeAndBuffersPosted() throws Exception {
        try (Arena arena = Arena.ofConfined();
             IwarpDevice device = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
             ProtectionDomain pd = device.allocateProtectionDomain();
             MemoryRegion mr = pd.registerMemory(arena.allocate(4096, 64), Access.LOCAL_WRITE);
             CompletionQueue cq = device.createCompletionQueue(5);
             SharedReceiveQueue srq = pd.createSharedReceiveQueue(6, 1)) {
            assertThat(cq.depth()).isEqualTo(5);
            srq.postReceive(new ReceiveRequest(1, new Sge(mr, 0, 64)));
            srq.postReceive(new ReceiveRequest(2, new Sge(mr, 64, 64)));
            Path dump = ProcessRas.dump("queue dump test");
            try (DumpReader reader = DumpReader.open(dump)) {
                assertThat(described(reader.tree(), device.name(), "cq")).containsExactly("CompletionQueue[depth=5]");
                assertThat(described(reader.tree(), device.name(), "srq")).containsExactly("SharedReceiveQueue[maxWr=6, posted=2]");
            } finally {
                Files.deleteIfExists(dump);
            }
        }
    }

    /** The long fields of every "session" group below the adapter group named {@code adapter}. */
    private static java.util.Map<String, Long> session(List<SnapshotNode> nodes, String adapter, boolean inAdapter) {
        java.util.Map<String, Long> fields = new java.util.HashMap<>();
        for (SnapshotNode n : nodes) {
            if (n instanceof SnapshotNode.Group g) {
                boolean in = inAdapter || (g.kind().equals("adapter") && g.name().equals(adapter));
                if (in && g.kind().equals("session")) {
                    for (SnapshotNode f : g.children()) {
                        if (f instanceof SnapshotNode.LongField l) {
                            fields.put(l.key(), l.value());
                        }
                    }
                }
                fields.putAll(session(g.children(), adapter, in));
            }
        }
        return fields;
    }

    @Test
    void theDumpShowsTheMessageSequenceNumbersEachEndSentAndExpects() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            p.qpB.postReceive(new ReceiveRequest(1, new Sge(p.mrB, 0, 64)));
            p.qpA.postSend(new dev.tandem.verbs.WorkRequest.Send(2, new Sge(p.mrA, 0, 8), dev.tandem.verbs.WrFlags.SIGNALED));
            p.qpA.postSend(new dev.tandem.verbs.WorkRequest.RdmaRead(3, new Sge(p.mrA, 64, 8), 0, p.mrB.rkey(), dev.tandem.verbs.WrFlags.SIGNALED));
            p.qpA.postSend(new dev.tandem.verbs.WorkRequest.RdmaRead(4, new Sge(p.mrA, 64, 8), 0, p.mrB.rkey(), dev.tandem.verbs.WrFlags.SIGNALED));
            LoopbackPair.awaitOne(p.cqB);
            for (int i = 0; i < 3; i++) {
                LoopbackPair.awaitOne(p.cqA);
            }
            Path dump = ProcessRas.dump("msn dump test");
            try (DumpReader reader = DumpReader.open(dump)) {
                var a = session(reader.tree(), p.a.name(), false);
                var b = session(reader.tree(), p.b.name(), false);
                assertThat(a).containsEntry("next send msn", 2L).containsEntry("next read request msn", 3L)
                        .containsEntry("expected send msn", 1L).containsEntry("expected read request msn", 1L);
                assertThat(b).containsEntry("next send msn", 1L).containsEntry("next read request msn", 1L)
                        .containsEntry("expected send msn", 2L).containsEntry("expected read request msn", 3L);
            } finally {
                Files.deleteIfExists(dump);
            }
        }
    }
}

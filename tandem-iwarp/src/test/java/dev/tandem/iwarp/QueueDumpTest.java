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

/** What {@code tandem dump} shows of an adapter's completion and shared receive queues. */
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
}

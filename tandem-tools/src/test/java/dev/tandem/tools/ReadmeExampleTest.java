package dev.tandem.tools;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.RdmaDevices;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's API example runs, and the README shows exactly this code. */
class ReadmeExampleTest {
    // README example: begin
    static String readGreetingFromPeer() throws InterruptedException {
        try (Arena arena = Arena.ofShared();
             RdmaDevice a = RdmaDevices.open("iwarp://127.0.1.1");   // any provider, by name
             RdmaDevice b = RdmaDevices.open("iwarp://127.0.1.2?crc=on");
             // close what you open: an adapter closed with resources still open reports them as leaks
             CompletionQueue cqB = b.createCompletionQueue(16);     // a CQ closes after the QPs that use it
             ProtectionDomain pdB = b.allocateProtectionDomain();   // closing a PD closes its regions and QPs
             Listener listener = b.listen(new InetSocketAddress("127.0.1.2", 0), 1);
             CompletionQueue cqA = a.createCompletionQueue(16);
             ProtectionDomain pdA = a.allocateProtectionDomain()) {
            // b: a region a peer may read, a queue pair, a listener; b's rkey travels in the private data
            MemoryRegion mrB = pdB.registerMemory(arena.allocate(4096, 64), Access.LOCAL_WRITE | Access.REMOTE_READ);
            mrB.segment().setString(0, "hello from b");
            QueuePair qpB = pdB.createQueuePair(QueuePairConfig.of(cqB));
            byte[] keyOfB = ByteBuffer.allocate(4).putInt(mrB.rkey()).array();
            Thread acceptor = Thread.ofPlatform().name("readme-accept")
                    .start(() -> listener.accept(Duration.ofSeconds(5)).accept(qpB, keyOfB));

            // a: connect, then RDMA Read b's region into a's own (iWARP places Read data as a remote write)
            MemoryRegion mrA = pdA.registerMemory(arena.allocate(4096, 64), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            QueuePair qpA = pdA.createQueuePair(QueuePairConfig.of(cqA));
            byte[] reply = qpA.connect(listener.localAddress(), new byte[0], Duration.ofSeconds(5));
            acceptor.join();
            int rkeyOfB = ByteBuffer.wrap(reply).getInt();

            WorkRequest read = new WorkRequest.RdmaRead(1, new Sge(mrA, 0, 64), 0, rkeyOfB, WrFlags.SIGNALED);
            qpA.postSend(read);                                  // immutable: build once, post many times
            WorkCompletion[] wc = WorkCompletion.array(4);       // poll fills caller-owned completions
            if (cqA.await(wc, Duration.ofSeconds(5)) != 1 || wc[0].status() != CompletionStatus.SUCCESS) {
                throw new IllegalStateException("the RDMA Read did not complete: " + wc[0]);
            }
            return mrA.segment().getString(0);                   // "hello from b"
        }
    }
    // README example: end

    @Test
    void theExampleReadsThePeersGreeting() throws InterruptedException {
        assertThat(readGreetingFromPeer()).isEqualTo("hello from b");
    }

    @Test
    void theReadmeShowsThisCodeVerbatim() throws IOException {
        Path root = RepoRoot.find();
        List<String> readme = Files.readAllLines(root.resolve("README.md"));
        List<String> test = Files.readAllLines(root.resolve("tandem-tools/src/test/java/dev/tandem/tools/ReadmeExampleTest.java"));

        List<String> inReadme = between(readme, "<!-- readme-example:begin -->", "<!-- readme-example:end -->");
        assertThat(inReadme.getFirst()).isEqualTo("```java");
        assertThat(inReadme.getLast()).isEqualTo("```");
        List<String> shown = inReadme.subList(1, inReadme.size() - 1);
        List<String> tested = between(test, "    // README example: " + "begin", "    // README example: " + "end");

        assertThat(dedent(shown)).isNotEmpty().isEqualTo(dedent(tested));
    }

    private static List<String> between(List<String> lines, String begin, String end) {
        int from = lines.indexOf(begin);
        int to = lines.indexOf(end);
        assertThat(from).as("marker '%s'", begin).isNotNegative();
        assertThat(to).as("marker '%s' after '%s'", end, begin).isGreaterThan(from);
        return lines.subList(from + 1, to);
    }

    /** Removes the indentation every non-blank line shares, and trailing blanks. */
    static List<String> dedent(List<String> lines) {
        int common = lines.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return lines.stream().map(l -> l.isBlank() ? "" : l.substring(common).stripTrailing()).toList();
    }

    @Test
    void dedentRemovesOnlyTheSharedIndentation() {
        assertThat(dedent(Arrays.asList("    a", "      b", "", "    c  "))).containsExactly("a", "  b", "", "c");
    }
}

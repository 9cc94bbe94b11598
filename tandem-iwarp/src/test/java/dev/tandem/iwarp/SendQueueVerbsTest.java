package dev.tandem.iwarp;

import dev.tandem.ras.CounterSnapshot;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasReader;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What the send queue shows through the verbs: its high-water counter, and a QP without inline room. */
class SendQueueVerbsTest {

    private static long counter(String label) {
        try (RasReader reader = RasReader.open(ProcessRas.current().path())) {
            List<Long> values = reader.counters().stream().filter(c -> c.label().equals(label)).map(CounterSnapshot::value).toList();
            assertThat(values).as("counter '" + label + "'").hasSize(1);
            return values.getFirst();
        }
    }

    @Test
    void theSendQueueHighWaterCountsRequestsOutstandingAtOnceNotRequestsEverPosted() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            String label = p.a.name() + " qp " + p.qpA.qpNumber() + " send queue high water";
            for (int i = 0; i < 10; i++) {
                p.qpB.postReceive(new ReceiveRequest(i, new Sge(p.mrB, 0, 64)));
                p.qpA.postSend(new WorkRequest.Send(100 + i, new Sge(p.mrA, 0, 64), WrFlags.SIGNALED));
                WorkCompletion sent = LoopbackPair.awaitOne(p.cqA);
                assertThat(sent.wrId()).isEqualTo(100 + i);
                assertThat(sent.status()).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(LoopbackPair.awaitOne(p.cqB).wrId()).isEqualTo(i);
            }
            assertThat(counter(label)).as("ten Sends posted one at a time, each completed and polled before the next").isEqualTo(1);
        }
    }

    @Test
    void aZeroByteInlineSendGoesOutOnAQpWithoutInlineRoom() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096);
             QueuePair client = p.pdA.createQueuePair(QueuePairConfig.of(p.cqA).withMaxInline(0));
             QueuePair server = p.pdB.createQueuePair(QueuePairConfig.of(p.cqB))) {
            p.connect(client, server);
            server.postReceive(new ReceiveRequest(1, new Sge(p.mrB, 0, 64)));
            // 0 bytes fit any inline limit, 0 included: the request is valid and must not take the adapter down
            client.postSend(new WorkRequest.Send(2, List.of(), WrFlags.SIGNALED | WrFlags.INLINE));
            WorkCompletion sent = LoopbackPair.awaitOne(p.cqA);
            assertThat(sent.wrId()).isEqualTo(2);
            assertThat(sent.status()).as(sent.toString()).isEqualTo(CompletionStatus.SUCCESS);
            WorkCompletion received = LoopbackPair.awaitOne(p.cqB);
            assertThat(received.wrId()).isEqualTo(1);
            assertThat(received.status()).as(received.toString()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(received.opcode()).isEqualTo(CompletionOpcode.RECV);
            assertThat(received.byteLength()).isZero();
            assertThat(p.a.fatalCause()).as("adapter A's fatal cause").isEmpty();
        }
    }
}

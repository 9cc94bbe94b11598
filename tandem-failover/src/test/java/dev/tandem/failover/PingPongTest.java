package dev.tandem.failover;

import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A ping-pong needs no proofs: each reply's header acknowledges the Send before it. */
class PingPongTest {
    @Test
    void repliesAcknowledgeSendsSoAPingPongRunsOnWithoutProofs() throws Exception {
        try (TwoNodes n = new TwoNodes(2, Topology.SWITCHED)) {
            n.sa.qp().postReceive(new ReceiveRequest(500, new Sge(n.sa.region(), 0, 64)));
            WorkCompletion[] wcs = WorkCompletion.array(8);
            int sendsDoneA = 0;
            int sendsDoneB = 0;
            for (int i = 0; i < 500; i++) {
                n.sa.qp().postSend(new WorkRequest.Send(i, new Sge(n.sa.region(), 64, 8), WrFlags.SIGNALED));
                boolean pinged = false;
                boolean ponged = false;
                long deadline = System.nanoTime() + TwoNodes.WAIT.toNanos();
                while (!ponged) {
                    assertThat(System.nanoTime()).as("round %d: a's sends done %d, b's %d", i, sendsDoneA, sendsDoneB).isLessThan(deadline);
                    int k = n.sb.cq().poll(wcs);
                    for (int j = 0; j < k; j++) {
                        if (wcs[j].opcode() == dev.tandem.verbs.CompletionOpcode.RECV) {
                            n.sb.postReceive(new ReceiveRequest(wcs[j].wrId(), new Sge(n.sb.region(), wcs[j].wrId() * TwoNodes.SIZE, TwoNodes.SIZE)));
                            n.sb.qp().postSend(new WorkRequest.Send(1000 + i, new Sge(n.sb.region(), 0, 8), WrFlags.SIGNALED));
                            pinged = true;
                        } else {
                            sendsDoneB++;
                        }
                    }
                    k = n.sa.cq().poll(wcs);
                    for (int j = 0; j < k; j++) {
                        if (wcs[j].opcode() == dev.tandem.verbs.CompletionOpcode.RECV) {
                            n.sa.qp().postReceive(new ReceiveRequest(500, new Sge(n.sa.region(), 0, 64)));
                            ponged = true;
                        } else {
                            sendsDoneA++;
                        }
                    }
                }
                assertThat(pinged).isTrue();
            }
            assertThat(sendsDoneA).isGreaterThan(400);
            assertThat(sendsDoneB).isGreaterThan(400);
        }
    }
}

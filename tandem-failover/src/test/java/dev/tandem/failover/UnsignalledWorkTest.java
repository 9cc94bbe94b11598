package dev.tandem.failover;

import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Unsignalled work on the fail-over device completes as on an adapter: silently when it succeeds, and a
 * signalled Read posted right behind it completes with it (the Read shows the peer took what went before).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnsignalledWorkTest {
    private static final int SIZE = TwoNodes.SIZE;
    /** b's slots past its receive buffers: targets of a's Writes and the source of its Read. */
    private static final int FIRST_TARGET = TwoNodes.DEPTH + 4;
    private static final int READ_SOURCE = 2 * TwoNodes.DEPTH - 1;
    private TwoNodes nodes;

    @AfterEach
    void close() {
        if (nodes != null) {
            nodes.close();
        }
    }

    @Test
    void aReadBehindUnsignalledWritesAndSendsCompletesAloneAndEverythingBeforeItArrived() throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED);
        MemorySegment la = nodes.sa.region().segment();
        MemorySegment lb = nodes.sb.region().segment();
        int rkey = nodes.sb.region().rkey();
        lb.asSlice((long) READ_SOURCE * SIZE, SIZE).fill((byte) 0x3C);
        la.asSlice(SIZE, SIZE).fill((byte) 0x11);
        la.asSlice(2L * SIZE, SIZE).fill((byte) 0x22);
        la.asSlice(3L * SIZE, SIZE).fill((byte) 0x33);

        nodes.sa.qp().postSend(new WorkRequest.RdmaWrite(1, new Sge(nodes.sa.region(), SIZE, SIZE), (long) FIRST_TARGET * SIZE, rkey, 0));
        nodes.sa.qp().postSend(new WorkRequest.Send(2, new Sge(nodes.sa.region(), 2L * SIZE, SIZE), 0));
        nodes.sa.qp().postSend(new WorkRequest.RdmaWrite(3, new Sge(nodes.sa.region(), 3L * SIZE, SIZE), (FIRST_TARGET + 1L) * SIZE,
                rkey, 0));
        nodes.sa.qp().postSend(new WorkRequest.RdmaRead(4, new Sge(nodes.sa.region(), 10L * SIZE, SIZE), (long) READ_SOURCE * SIZE, rkey,
                WrFlags.SIGNALED));

        WorkCompletion read = TwoNodes.awaitOne(nodes.sa.cq(), "a's Read");
        assertThat(read.wrId()).as("the first completion is the Read's: the unsignalled requests before it succeeded silently (%s)", read)
                .isEqualTo(4);
        assertThat(read.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(read.opcode()).isEqualTo(CompletionOpcode.RDMA_READ);
        assertThat(read.byteLength()).as("the Read's length").isEqualTo(SIZE);
        assertThat(la.asSlice(10L * SIZE, SIZE).toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0x3C);
        assertThat(lb.asSlice((long) FIRST_TARGET * SIZE, SIZE).toArray(ValueLayout.JAVA_BYTE)).as("the first Write")
                .containsOnly((byte) 0x11);
        assertThat(lb.asSlice((FIRST_TARGET + 1L) * SIZE, SIZE).toArray(ValueLayout.JAVA_BYTE)).as("the second Write")
                .containsOnly((byte) 0x33);
        WorkCompletion recv = TwoNodes.awaitOne(nodes.sb.cq(), "b's receive of the unsignalled Send");
        assertThat(recv.status()).isEqualTo(CompletionStatus.SUCCESS);
        assertThat(lb.asSlice(recv.wrId() * SIZE, SIZE).toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0x22);

        nodes.sa.qp().postSend(new WorkRequest.Send(5, new Sge(nodes.sa.region(), 2L * SIZE, SIZE), WrFlags.SIGNALED));
        WorkCompletion send = TwoNodes.awaitOne(nodes.sa.cq(), "a's signalled Send");
        assertThat(send.wrId()).as("no completion of the unsignalled requests came after the Read's (%s)", send).isEqualTo(5);
        assertThat(send.status()).isEqualTo(CompletionStatus.SUCCESS);
    }
}

package dev.tandem.iwarp;

import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.LocalProtectionException;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.SharedReceiveQueue;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a refused scatter/gather entry's message tells the programmer: which queue (and QP number),
 * which request (kind and wrId), which entry, and what was wrong with it, in numbers.
 */
class ValidationMessagesTest {
    private static final int REGION = 4096;

    @Test
    void anEntryPastTheEndOfItsRegionNamesTheQpTheRequestTheEntryAndItsBytes() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, REGION)) {
            assertThatThrownBy(() -> p.qpA.postSend(new WorkRequest.Send(77, new Sge(p.mrA, 4000, 200), WrFlags.SIGNALED)))
                    .isInstanceOf(LocalProtectionException.class)
                    .hasMessageStartingWith("QP " + p.qpA.qpNumber() + " Send wrId 77 SGE 0: ")
                    .hasMessageContaining("bytes 4000..4200 lie outside the region of 4096 bytes");
            List<Sge> sgl = List.of(new Sge(p.mrA, 0, 64), new Sge(p.mrA, 4090, 10));
            assertThatThrownBy(() -> p.qpA.postSend(new WorkRequest.RdmaWrite(78, sgl, 0, p.mrB.rkey(), WrFlags.SIGNALED)))
                    .isInstanceOf(LocalProtectionException.class)
                    .hasMessageStartingWith("QP " + p.qpA.qpNumber() + " RdmaWrite wrId 78 SGE 1: ")
                    .hasMessageContaining("bytes 4090..4100");
            assertThatThrownBy(() -> p.qpB.postReceive(new ReceiveRequest(79, new Sge(p.mrB, 4095, 2))))
                    .isInstanceOf(LocalProtectionException.class)
                    .hasMessageStartingWith("QP " + p.qpB.qpNumber() + " receive wrId 79 SGE 0: ")
                    .hasMessageContaining("bytes 4095..4097");
        }
    }

    @Test
    void tooManyEntriesNamesTheQpTheRequestAndTheLimit() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, REGION)) {
            int max = p.qpA.config().maxSendSge();
            List<Sge> sgl = Collections.nCopies(max + 1, new Sge(p.mrA, 0, 8));
            assertThatThrownBy(() -> p.qpA.postSend(new WorkRequest.Send(80, sgl, 0)))
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("QP " + p.qpA.qpNumber() + " Send wrId 80 has " + (max + 1) + " SGEs; this queue allows at most " + max);
        }
    }

    @Test
    void aSharedReceiveQueueEntryNamesTheSharedQueueWithoutAQpNumber() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, REGION);
             SharedReceiveQueue srq = p.pdB.createSharedReceiveQueue(4, 1)) {
            assertThatThrownBy(() -> srq.postReceive(new ReceiveRequest(81, new Sge(p.mrB, 4000, 100))))
                    .isInstanceOf(LocalProtectionException.class)
                    .hasMessageStartingWith("shared receive queue receive wrId 81 SGE 0: ")
                    .hasMessageContaining("bytes 4000..4100");
        }
    }
}

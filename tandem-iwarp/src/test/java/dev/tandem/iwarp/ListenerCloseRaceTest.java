package dev.tandem.iwarp;

import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closing a listener right after accepting must not touch the accepted connection (the acceptor
 * used to abort "its" handshake channel after handing it to the application). The race window is
 * small, so the connect-accept-close cycle repeats.
 */
class ListenerCloseRaceTest {

    @Test
    void closingTheListenerAfterAcceptLeavesTheConnectionAlone() throws Exception {
        for (int round = 0; round < 40; round++) {
            // LoopbackPair closes its listener as soon as the accept returned
            try (LoopbackPair p = new LoopbackPair(c -> c.withCrc(false), 4096)) {
                p.qpB.postReceive(new ReceiveRequest(1, new Sge(p.mrB, 0, 64)));
                p.qpA.postSend(new WorkRequest.Send(2, new Sge(p.mrA, 0, 16), WrFlags.SIGNALED));
                WorkCompletion received = LoopbackPair.awaitOne(p.cqB);
                assertThat(received.status()).as("round " + round + ": " + received).isEqualTo(CompletionStatus.SUCCESS);
                assertThat(p.qpB.state()).as("round " + round).isEqualTo(QpState.RTS);
            }
        }
    }
}

package dev.tandem.failover.check;

import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.RdmaDevices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A checked stream split into its sender and receiver, as two processes run it: the receiver's ring offer
 * travels in the private data of its accept, each side is driven on its own, and the two halves of the
 * verdict, joined, judge as the in-process stream does.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SplitStreamTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void theOfferTravelsInTheAcceptsPrivateDataAndTheJoinedHalvesAreClean() throws Exception {
        StreamShape shape = new StreamShape(16, 256, 24, 512, 2);
        try (RdmaDevice a = RdmaDevices.open("failover://127.0.1.1+127.0.2.1?node=a");
             RdmaDevice b = RdmaDevices.open("failover://127.0.1.2+127.0.2.2?node=b")) {
            ProtectionDomain pdA = a.allocateProtectionDomain();
            ProtectionDomain pdB = b.allocateProtectionDomain();
            CompletionQueue cqA = a.createCompletionQueue(64);
            CompletionQueue cqB = b.createCompletionQueue(64);
            QueuePair qa = pdA.createQueuePair(QueuePairConfig.of(cqA).withDepths(16, 16));
            QueuePair qb = pdB.createQueuePair(QueuePairConfig.of(cqB).withDepths(8, 16));
            try (StreamReceiver receiver = StreamReceiver.on(qb, shape);
                 Listener l = b.listen(new InetSocketAddress("127.0.1.2", 0), 1)) {
                CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                    ConnectionRequest r = l.accept(WAIT);
                    r.accept(qb, receiver.offer().encode());
                });
                RingOffer offer = RingOffer.decode(qa.connect(l.localAddress(), new byte[0], WAIT));
                accepted.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(offer).isEqualTo(receiver.offer());
                try (StreamSender sender = StreamSender.on(qa, offer)) {
                    sender.limit(700);
                    long deadline = System.nanoTime() + WAIT.toNanos();
                    StreamHalves halves = new StreamHalves(sender.half(), receiver.half());
                    while (!halves.finished()) {
                        assertThat(System.nanoTime() - deadline).as("the stream to finish within %s: %s", WAIT, halves).isNegative();
                        sender.step();
                        receiver.step();
                        halves = new StreamHalves(sender.half(), receiver.half());
                    }
                    Verdict v = halves.verdict(Verdict.Ending.COMPLETE);
                    assertThat(v.clean()).as("%s", v).isTrue();
                    assertThat(v.messagesReceived()).isEqualTo(700);
                    assertThat(v.blocksVerified()).isEqualTo(350);
                    assertThat(v.bytesReceived()).isEqualTo(700L * 256 + 350L * 512);
                    assertThat(halves.sender().succeededThrough()).isEqualTo(700);
                }
            }
        }
    }

    @Test
    void joinedHalvesCountWhatTheSenderSawCompleteButTheReceiverNeverGot() {
        SideFindings none = new SideFindings(0, 0, 0, 0, 0, java.util.Map.of(), 0, java.util.List.of(), 0);
        SenderHalf s = new SenderHalf(10, 10, 2560, 0, 10, true, false, false, new SequenceState(2, 0, 0, 0, java.util.List.of()), none, 1);
        ReceiverHalf r = new ReceiverHalf(7, 1792, 0, new SequenceState(8, 1, 0, 0, java.util.List.of("3")), 2, true, false, false, none, 1);
        StreamHalves h = new StreamHalves(s, r);
        assertThat(h.finished()).as("messages 8 and 9 have not arrived").isFalse();
        Verdict over = h.verdict(Verdict.Ending.STALLED);
        assertThat(over.lost()).as("the gap at 3 and 8..9, which completed SUCCESS at the sender").isEqualTo(3);
        assertThat(over.problems()).contains("receiver: message 3 never arrived", "receiver: messages 8..9 never arrived",
                "nothing moved for the stall limit: 10 sent, 7 received");
        assertThat(h.verdict(Verdict.Ending.IN_PROGRESS).lost()).as("while running only the gaps count").isEqualTo(1);
        assertThat(over.clean()).isFalse();
    }

    @Test
    void anOfferSurvivesItsBytesAndOtherBytesAreRefused() {
        RingOffer offer = new RingOffer(new StreamShape(32, 1024, 40, 2048, 3), 0x12345678, 4096);
        assertThat(RingOffer.decode(offer.encode())).isEqualTo(offer);
        assertThatThrownBy(() -> RingOffer.decode(new byte[3])).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("36 bytes, got 3");
        byte[] wrong = offer.encode();
        wrong[0] ^= 1;
        assertThatThrownBy(() -> RingOffer.decode(wrong)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("starts with");
        assertThatThrownBy(() -> StreamSender.on(null, offer)).isInstanceOf(IllegalArgumentException.class);
    }
}

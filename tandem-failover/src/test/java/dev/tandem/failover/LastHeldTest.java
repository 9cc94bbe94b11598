package dev.tandem.failover;

import dev.tandem.verbs.CompletionStatus;
import org.junit.jupiter.api.Test;

import static dev.tandem.failover.SendLogTest.read;
import static dev.tandem.failover.SendLogTest.send;
import static dev.tandem.failover.SendLogTest.write;
import static org.assertj.core.api.Assertions.assertThat;

/** What a move settles first: the last send position whose Send the peer says it holds ({@link SendLog#lastHeld}). */
class LastHeldTest {

    @Test
    void theLastHeldPositionIsTheLastSendUpToThePeersIdNotTheRequestsAfterIt() {
        SendLog log = new SendLog(8);
        log.add(write(0), 0);
        log.add(send(1), 1);
        log.add(read(2), 0);
        log.add(send(3), 2);
        log.add(write(4), 0);
        log.add(send(5), 3);
        assertThat(log.lastHeld(0)).as("the peer holds no Send").isEqualTo(-1);
        assertThat(log.lastHeld(1)).as("message 1 is at position 1").isEqualTo(1);
        assertThat(log.lastHeld(2)).as("message 2 is at position 3; the Write behind it is not proven").isEqualTo(3);
        assertThat(log.lastHeld(3)).isEqualTo(5);
        assertThat(log.lastHeld(9)).as("more than was sent: every Send").isEqualTo(5);
    }

    @Test
    void onlyRequestsNotHandedOverCount() {
        SendLog log = new SendLog(4);
        log.add(send(0), 1);
        log.add(send(1), 2);
        log.payloadsDone(0, CompletionStatus.SUCCESS, true);
        log.handedOver(0);
        assertThat(log.lastHeld(1)).as("message 1 was handed over already").isEqualTo(-1);
        assertThat(log.lastHeld(2)).isEqualTo(1);
    }

    @Test
    void messageIdsCompareAsSerialNumbersPastTheSignBit() {
        SendLog log = new SendLog(4);
        log.add(send(0), 0x7FFF_FFFF);
        log.add(send(1), 0x8000_0000);
        log.add(send(2), 0x8000_0001);
        assertThat(log.lastHeld(0x8000_0000)).isEqualTo(1);
        assertThat(log.lastHeld(0x7FFF_FFFF)).isZero();
    }

    /**
     * After 0xFFFFFFFF the next Sends carry 1, 2 ({@link MessageIds#next} skips 0): a peer that received up to
     * 0xFFFFFFFF holds none of them (they must go again after a move, not complete as held).
     */
    @Test
    void aPeerThatHoldsUpToTheLastIdBeforeTheWrapHoldsNoneAfterIt() {
        SendLog log = new SendLog(4);
        log.add(send(0), 0xFFFF_FFFE);
        log.add(send(1), 0xFFFF_FFFF);
        log.add(send(2), 1);
        log.add(send(3), 2);
        assertThat(log.lastHeld(0xFFFF_FFFF)).as("the peer holds up to position 1 only").isEqualTo(1);
        assertThat(log.lastHeld(1)).as("message 1 after the wrap is at position 2").isEqualTo(2);
    }
}

package dev.tandem.iwarp;

import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.WorkRequest;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The send queue alone: slots, the order completions leave in, and what a late second finish may not change. */
class SendQueueTest {
    private record Emitted(long wrId, CompletionStatus status, int vendorError, long position) {
    }

    private final List<Emitted> emitted = new ArrayList<>();
    private final SendQueue.Emitter emitter = (wr, status, vendorError, position) ->
            emitted.add(new Emitted(wr.wrId(), status, vendorError, position));

    private static WorkRequest request(long wrId) {
        return new WorkRequest.LocalInvalidate(wrId, 0x100, 0);
    }

    private static long post(SendQueue sq, long wrId) {
        long pos = sq.claim();
        assertThat(pos).as("a free slot for wrId " + wrId).isGreaterThanOrEqualTo(0);
        sq.publish(pos, request(wrId));
        return pos;
    }

    @Test
    void aSlotFinishedSuccessfullyKeepsItsStatusAndVendorErrorWhenAFlushComesLate() {
        SendQueue sq = new SendQueue(4, 0);
        long pos = post(sq, 7);
        assertThat(sq.finish(pos, CompletionStatus.SUCCESS, 0)).isTrue();
        // the flush of a failing QP races the transmitter: it must change neither the status nor the vendor error
        assertThat(sq.finish(pos, CompletionStatus.REM_ACCESS_ERR, 0x1100)).as("a second finish of the same slot").isFalse();
        sq.complete(emitter);
        assertThat(emitted).containsExactly(new Emitted(7, CompletionStatus.SUCCESS, 0, pos));
    }

    @Test
    void aFailedSlotCarriesItsOwnVendorError() {
        SendQueue sq = new SendQueue(4, 0);
        long pos = post(sq, 8);
        assertThat(sq.finish(pos, CompletionStatus.REM_ACCESS_ERR, 0x1100)).isTrue();
        assertThat(sq.finish(pos, CompletionStatus.WR_FLUSH_ERR, 0)).isFalse();
        sq.complete(emitter);
        assertThat(emitted).containsExactly(new Emitted(8, CompletionStatus.REM_ACCESS_ERR, 0x1100, pos));
    }

    @Test
    void completionsLeaveInPostingOrderEvenWhenLaterSlotsFinishFirst() {
        SendQueue sq = new SendQueue(4, 0);
        long a = post(sq, 1);
        long b = post(sq, 2);
        long c = post(sq, 3);
        sq.finish(c, CompletionStatus.WR_FLUSH_ERR, 0);
        sq.finish(b, CompletionStatus.SUCCESS, 0);
        sq.complete(emitter);
        assertThat(emitted).as("nothing leaves before the oldest request finished").isEmpty();
        sq.finish(a, CompletionStatus.LOC_PROT_ERR, 0);
        sq.complete(emitter);
        assertThat(emitted).extracting(Emitted::wrId).containsExactly(1L, 2L, 3L);
        assertThat(emitted).extracting(Emitted::status)
                .containsExactly(CompletionStatus.LOC_PROT_ERR, CompletionStatus.SUCCESS, CompletionStatus.WR_FLUSH_ERR);
        assertThat(sq.isEmpty()).isTrue();
    }

    @Test
    void aSlotIsReusedOnlyAfterItsCompletionWasReleased() {
        SendQueue sq = new SendQueue(2, 0);
        long a = post(sq, 1);
        post(sq, 2);
        assertThat(sq.claim()).as("a third request on a queue of depth 2").isEqualTo(-1);
        sq.finish(a, CompletionStatus.SUCCESS, 0);
        sq.complete(emitter);
        assertThat(sq.claim()).as("completed but not yet polled: the slot is still the application's").isEqualTo(-1);
        sq.release(a + 1);
        assertThat(sq.claim()).as("after the completion was polled").isEqualTo(2);
    }

    @Test
    void inlineBytesOfEachSlotHaveTheirOwnPlace() {
        SendQueue sq = new SendQueue(4, 64);
        long a = post(sq, 1);
        long b = post(sq, 2);
        assertThat(sq.inlineOffset(b) - sq.inlineOffset(a)).isEqualTo(64);
        assertThat(sq.inlineSegment().byteSize()).isGreaterThanOrEqualTo(sq.inlineOffset(b) + 64L);
    }
}

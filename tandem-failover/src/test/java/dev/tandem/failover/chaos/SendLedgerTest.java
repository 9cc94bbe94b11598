package dev.tandem.failover.chaos;

import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The send-queue checker catches each way completions can go wrong, and passes the ways they may go right. */
class SendLedgerTest {
    private final Findings findings = new Findings(new TrafficClock());
    private final List<String> resolved = new ArrayList<>();
    private final SendLedger.Resolutions to = (p, outcome, length) -> resolved.add(p.seq() + ":" + outcome);

    private SendLedger ledger(boolean errorsAllowed) {
        return new SendLedger("q", findings, errorsAllowed);
    }

    private static SendLedger.Posted send(SendLedger l, boolean signalled) {
        return l.post(SendLedger.Op.SEND, signalled, 0, 100, 0, -1, false);
    }

    @Test
    void inOrderCompletionsCoverTheUnsignalledBeforeThem() {
        SendLedger l = ledger(false);
        send(l, false);
        send(l, false);
        send(l, true);
        l.complete(2, CompletionStatus.SUCCESS, CompletionOpcode.SEND, 100, to);
        assertThat(findings.isEmpty()).as("%s", findings.kept()).isTrue();
        assertThat(resolved).containsExactly("0:COVERED", "1:COVERED", "2:SUCCEEDED");
        assertThat(l.outstanding()).isZero();
    }

    @Test
    void aSkippedSignalledRequestASecondCompletionAndOneNeverPostedAreCaught() {
        SendLedger l = ledger(false);
        send(l, true);
        send(l, true);
        l.complete(1, CompletionStatus.SUCCESS, CompletionOpcode.SEND, 100, to);
        l.complete(1, CompletionStatus.SUCCESS, CompletionOpcode.SEND, 100, to);
        l.complete(7, CompletionStatus.SUCCESS, CompletionOpcode.SEND, 100, to);
        assertThat(findings.count(Check.SEND_ORDER)).isEqualTo(3);
        assertThat(l.unresolvedSignalled()).as("the one passed over, until it completes").extracting(SendLedger.Posted::seq).containsExactly(0L);
        l.complete(0, CompletionStatus.SUCCESS, CompletionOpcode.SEND, 100, to);
        assertThat(findings.count(Check.SEND_ORDER)).as("late").isEqualTo(4);
        assertThat(l.unresolvedSignalled()).isEmpty();
        assertThat(resolved).containsExactly("1:SUCCEEDED", "0:SUCCEEDED");
    }

    @Test
    void wrongOpcodeLengthAndAnUnsignalledSuccessAreCaught() {
        SendLedger l = ledger(false);
        send(l, false);
        l.post(SendLedger.Op.READ, true, -1, 64, 0, 0, false);
        l.complete(0, CompletionStatus.SUCCESS, CompletionOpcode.SEND, 100, to);
        l.complete(1, CompletionStatus.SUCCESS, CompletionOpcode.RDMA_WRITE, 60, to);
        assertThat(findings.count(Check.COMPLETION)).isEqualTo(3);
    }

    @Test
    void whileAPathRemainsAnyErrorIsAViolationAndTheRestAreCountedOnce() {
        SendLedger l = ledger(false);
        send(l, true);
        send(l, true);
        l.complete(0, CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.SEND, 0, to);
        l.complete(1, CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.SEND, 0, to);
        l.summarise();
        assertThat(findings.count(Check.STATUS)).isEqualTo(2);
        assertThat(resolved).containsExactly("0:FAILED", "1:FAILED");
    }

    @Test
    void whenTheConnectionEndsOnlyFlushesMayFollowAndNothingSucceedsAfterOne() {
        SendLedger l = ledger(true);
        send(l, true);
        send(l, true);
        send(l, true);
        l.complete(0, CompletionStatus.WR_FLUSH_ERR, CompletionOpcode.SEND, 0, to);
        l.complete(1, CompletionStatus.SUCCESS, CompletionOpcode.SEND, 100, to);
        l.complete(2, CompletionStatus.RETRY_EXC_ERR, CompletionOpcode.SEND, 0, to);
        assertThat(findings.count(Check.STATUS)).isEqualTo(2);
    }

    @Test
    void aProbeThatSucceedsIsCaughtAndSignalledRequestsLeftAreListed() {
        SendLedger l = ledger(true);
        SendLedger.Posted probe = l.post(SendLedger.Op.SEND, true, -1, 40, 0, -1, true);
        send(l, false);
        send(l, true);
        l.complete(probe.seq(), CompletionStatus.SUCCESS, CompletionOpcode.SEND, 40, to);
        assertThat(findings.count(Check.END)).isEqualTo(1);
        assertThat(l.unresolvedSignalled()).extracting(SendLedger.Posted::seq).containsExactly(2L);
        assertThat(l.uncoveredTail()).isFalse();
    }
}

package dev.tandem.failover.check;

import dev.tandem.verbs.CompletionStatus;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The two halves of a checked stream, taken at about the same time, and what they prove together: whether
 * the run is over ({@link #finished()}) and the {@link Verdict}. The in-process {@link CheckedStream} and a
 * driver of a sender and a receiver in two processes judge alike through it.
 */
public record StreamHalves(SenderHalf sender, ReceiverHalf receiver) {
    public StreamHalves {
        if (sender == null || receiver == null) {
            throw new IllegalArgumentException("a verdict needs both halves, got " + sender + " and " + receiver);
        }
    }

    /** Whether a completion in error (or a refused post) ended either side. */
    public boolean broken() {
        return sender.broken() || receiver.broken();
    }

    /**
     * Whether the run is over: every message asked for was sent, arrived and was reaped on both sides, with
     * the last credits; or, after a completion in error, both sides have nothing posted any more.
     */
    public boolean finished() {
        return finished(broken(), sender.drained() && receiver.drained(), sender.sent(), sender.limit(), sender.idle(),
                receiver.data().next(), receiver.creditsIdle(), sender.credits().next(), receiver.creditsSucceeded());
    }

    /** {@link #finished()} from the numbers it needs, for {@link CheckedStream}'s loop, which must not allocate per step. */
    static boolean finished(boolean broken, boolean drained, long sent, long limit, boolean senderIdle, long arrivedNext,
                            boolean creditsIdle, long creditsArrivedNext, long creditsSucceeded) {
        if (broken) {
            return drained;
        }
        return sent >= limit && senderIdle && arrivedNext >= sent && creditsIdle && creditsArrivedNext >= creditsSucceeded;
    }

    /**
     * What the halves prove for a run that ended as {@code ending}. While it runs ({@link Verdict.Ending#IN_PROGRESS}),
     * {@code lost} holds only the gaps below the last message that arrived; once it is over, also the messages
     * whose Sends completed SUCCESS and never arrived, and the credits likewise.
     */
    public Verdict verdict(Verdict.Ending ending) {
        if (ending == null) {
            throw new IllegalArgumentException("a verdict needs how the run ended (IN_PROGRESS for a view while it runs)");
        }
        boolean over = ending != Verdict.Ending.IN_PROGRESS;
        SequenceState data = receiver.data();
        SequenceState credits = sender.credits();
        SideFindings fs = sender.findings();
        SideFindings fr = receiver.findings();
        long lost = (over ? data.missingBelow(sender.succeededThrough()) : data.missing()) + fr.lost() + fs.lost()
                + (over ? credits.missingBelow(receiver.creditsSucceeded()) : credits.missing());
        Map<CompletionStatus, Long> byStatus = new EnumMap<>(CompletionStatus.class);
        fs.errorsByStatus().forEach((s, n) -> byStatus.merge(s, n, Long::sum));
        fr.errorsByStatus().forEach((s, n) -> byStatus.merge(s, n, Long::sum));
        List<String> problems = new ArrayList<>(fs.problems());
        problems.addAll(fr.problems());
        for (String gap : data.describeGaps(over ? sender.succeededThrough() : 0, Findings.MAX_PROBLEMS)) {
            problems.add("receiver: message" + (gap.contains("..") ? "s " : " ") + gap + (over ? " never arrived" : " not there yet"));
        }
        long unsaid = fs.unsaid() + fr.unsaid();
        if (unsaid > 0) {
            problems.add(unsaid + " more problems, not kept in words");
        }
        if (ending == Verdict.Ending.STALLED) {
            problems.add("nothing moved for the stall limit: " + sender.sent() + " sent, " + receiver.messages() + " received");
        }
        return new Verdict(sender.sent(), receiver.messages(), sender.bytesSent(), receiver.bytes(), sender.blocksWritten(),
                receiver.blocks(), lost, data.duplicated() + credits.duplicated() + fs.duplicated() + fr.duplicated(),
                data.reordered() + credits.reordered() + fs.reordered() + fr.reordered(),
                fs.checksumErrors() + fr.checksumErrors(), fs.errors() + fr.errors(), byStatus, fs.refused() + fr.refused(), problems, ending);
    }
}

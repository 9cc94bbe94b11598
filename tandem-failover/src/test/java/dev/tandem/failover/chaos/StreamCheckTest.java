package dev.tandem.failover.chaos;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The receiver's check catches a lost, duplicated, corrupt or foreign message, a wrong Write and a wrong response. */
class StreamCheckTest {
    private final Findings findings = new Findings(new TrafficClock());
    private final TrafficModel model = new TrafficModel(42, 512, 256, 1024, 0);
    private final StreamState stream = new StreamState(1, Nodes.A);
    private final Map<Long, byte[]> landing = new HashMap<>();
    private final StreamCheck check = new StreamCheck(model, stream, findings, "t", this::landed, 8);

    private byte[] landed(long offset, int length) {
        byte[] b = landing.getOrDefault(offset, new byte[0]);
        return java.util.Arrays.copyOf(b, length);
    }

    private void deliver(int n) {
        TrafficModel.MessagePlan p = model.plan(1, Nodes.A, n);
        if (p.shape() == TrafficModel.Shape.NAMED_WRITE) {
            landing.put(check.landingOffset(n), model.writeBytes(p));
        }
        byte[] m = model.message(p);
        check.accept(m, m.length, p.solicited());
    }

    @Test
    void aStreamDeliveredInOrderPasses() {
        for (int n = 0; n < 50; n++) {
            deliver(n);
        }
        assertThat(findings.isEmpty()).as("%s", findings.kept()).isTrue();
        assertThat(stream.delivered).isEqualTo(50);
    }

    @Test
    void aGapADuplicateAndAMessageOfAnotherStreamAreCaught() {
        deliver(0);
        deliver(2);
        deliver(2);
        TrafficModel.MessagePlan other = model.plan(2, Nodes.A, 3);
        byte[] m = model.message(other);
        check.accept(m, m.length, other.solicited());
        assertThat(findings.count(Check.LOST)).isEqualTo(1);
        assertThat(findings.count(Check.DUPLICATED)).isEqualTo(1);
        assertThat(findings.count(Check.CROSSTALK)).isEqualTo(1);
    }

    @Test
    void aFlippedByteAWrongLengthAndAScribbledMessageAreCorrupt() {
        TrafficModel.MessagePlan p = model.plan(1, Nodes.A, 0);
        byte[] m = model.message(p);
        m[m.length - 1] ^= 1;
        check.accept(m, m.length, p.solicited());
        byte[] n = model.message(model.plan(1, Nodes.A, 1));
        check.accept(n, n.length + 1, false);
        byte[] s = new byte[60];
        java.util.Arrays.fill(s, SendSide.SCRIBBLE);
        check.accept(s, 60, false);
        assertThat(findings.count(Check.CORRUPT)).isEqualTo(3);
        assertThat(findings.kept().get(2).what()).contains("INLINE");
        assertThat(findings.count(Check.LOST)).as("a corrupt message is taken for the one expected").isZero();
    }

    @Test
    void aWriteThatDidNotLandIsCaughtWhenItsSendArrives() {
        int n = 0;
        while (model.plan(1, Nodes.A, n).shape() != TrafficModel.Shape.NAMED_WRITE) {
            deliver(n++);
        }
        byte[] m = model.message(model.plan(1, Nodes.A, n));
        check.accept(m, m.length, model.plan(1, Nodes.A, n).solicited()); // its Write never landed
        assertThat(findings.count(Check.WRITE)).isEqualTo(1);
    }

    @Test
    void aResponseThatAnswersAnotherRequestIsCaught() {
        TrafficModel rr = new TrafficModel(42, 512, 256, 1024, Nodes.B);
        StreamState responses = new StreamState(0, Nodes.B);
        StreamCheck c = new StreamCheck(rr, responses, findings, "t", (o, l) -> new byte[l], 8);
        byte[] answer1 = rr.message(rr.plan(0, Nodes.B, 1));
        byte[] wrong = rr.message(rr.plan(0, Nodes.B, 0));
        System.arraycopy(answer1, MessageDescriptor.ANSWERED_CRC_OFFSET, wrong, MessageDescriptor.ANSWERED_CRC_OFFSET, 4);
        c.accept(wrong, wrong.length, rr.plan(0, Nodes.B, 0).solicited());
        assertThat(findings.count(Check.RESPONSE)).isEqualTo(1);
    }
}

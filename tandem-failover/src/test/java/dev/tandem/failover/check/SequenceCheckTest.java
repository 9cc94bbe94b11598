package dev.tandem.failover.check;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SequenceCheckTest {
    @Test
    void eachArrivalIsToldApart() {
        SequenceCheck c = new SequenceCheck();
        assertThat(c.observe(0)).isEqualTo(SequenceCheck.Order.IN_ORDER);
        assertThat(c.observe(3)).isEqualTo(SequenceCheck.Order.AHEAD);
        assertThat(c.missing()).isEqualTo(2);
        assertThat(c.observe(2)).isEqualTo(SequenceCheck.Order.LATE);
        assertThat(c.observe(2)).isEqualTo(SequenceCheck.Order.DUPLICATE);
        assertThat(c.observe(3)).isEqualTo(SequenceCheck.Order.DUPLICATE);
        assertThat(c.observe(0)).isEqualTo(SequenceCheck.Order.DUPLICATE);
        assertThat(c.observe(4)).isEqualTo(SequenceCheck.Order.IN_ORDER);
        assertThat(c.accepted()).isEqualTo(4);
        assertThat(c.duplicated()).isEqualTo(3);
        assertThat(c.reordered()).isEqualTo(1);
        assertThat(c.missingBelow(5)).isEqualTo(1);
        assertThat(c.describeGaps(5, 10)).containsExactly("1");
    }

    @Test
    void aNumberInTheMiddleOfAGapSplitsIt() {
        SequenceCheck c = new SequenceCheck();
        c.observe(10);
        c.observe(4);
        assertThat(c.missing()).isEqualTo(9);
        assertThat(c.describeGaps(11, 10)).containsExactly("0..3", "5..9");
        c.observe(0);
        c.observe(9);
        assertThat(c.describeGaps(11, 10)).containsExactly("1..3", "5..8");
        assertThat(c.reordered()).isEqualTo(3);
        assertThat(c.missingBelow(13)).isEqualTo(7 + 2);
        assertThat(c.describeGaps(13, 10)).containsExactly("1..3", "5..8", "11..12");
        assertThat(c.describeGaps(13, 1)).containsExactly("1..3");
    }

    @Test
    void aNegativeNumberIsADuplicateNotAGapFiller() {
        SequenceCheck c = new SequenceCheck();
        c.observe(2);
        assertThat(c.observe(-1)).isEqualTo(SequenceCheck.Order.DUPLICATE);
        assertThat(c.missing()).isEqualTo(2);
    }
}

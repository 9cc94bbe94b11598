package dev.tandem.tools.demo;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

class ProgressLineTest {
    private static final long T0 = 1_000_000_000L;

    @Test
    void onATerminalTheLineIsRewrittenInPlaceAndNarrationGoesAboveIt() {
        StringWriter s = new StringWriter();
        ProgressLine line = new ProgressLine(new PrintWriter(s), true);
        line.update("10 sent", T0);
        line.update("20 sent", T0 + 1);                                  // too soon: not drawn
        line.update("300 sent", T0 + ProgressLine.TERMINAL_EVERY_NANOS);
        line.say("a: detected");
        line.update("4 sent", T0 + 2 * ProgressLine.TERMINAL_EVERY_NANOS); // shorter: padded over the old one
        line.finish();                                                     // clears all it took, padding too
        assertThat(s.toString()).isEqualTo("\r10 sent" + "\r300 sent"
                + "\r        \r" + "a: detected" + System.lineSeparator() + "300 sent"
                + "\r4 sent  " + "\r        \r");
    }

    @Test
    void elsewhereProgressIsAPlainLineNowAndThen() {
        StringWriter s = new StringWriter();
        ProgressLine line = new ProgressLine(new PrintWriter(s), false);
        line.update("10 sent", T0);
        line.update("20 sent", T0 + ProgressLine.TERMINAL_EVERY_NANOS);
        line.say("a: detected");
        line.update("30 sent", T0 + ProgressLine.PLAIN_EVERY_NANOS);
        line.finish();
        String n = System.lineSeparator();
        assertThat(s.toString()).isEqualTo("10 sent" + n + "a: detected" + n + "30 sent" + n).doesNotContain("\r");
    }
}

package dev.tandem.tools.demo;

import dev.tandem.tools.CliRun;
import org.junit.jupiter.api.Test;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The fail-over demo, as a newcomer runs it: two fail-overs narrated, a clean verdict, exit code 0. */
class DemoCommandTest {
    @Test
    void theDemoNarratesBothFailOversAndEndsWithACleanVerdict() {
        CliRun.Result r = CliRun.run("demo", "-n", "1500");
        String text = r.out();
        assertThat(r.exit()).as("demo output:%n%s%nstderr:%n%s", text, r.err()).isZero();
        assertThat(text).contains("FAULT: fatal error on a's adapter")
                .contains("FAULT: link of a's adapter")
                .contains("REPORT sent: LAST RELIABLY SENT")
                .contains("REPORT of the peer")
                .contains("path on adapter")
                .containsPattern("MIGRATED to adapter \\d: the application runs again after a pause of \\d+\\.\\d ms")
                .containsPattern("messages sent +1500")
                .containsPattern("messages received +1500")
                .containsPattern("lost +0")
                .containsPattern("duplicated +0")
                .containsPattern("reordered +0")
                .containsPattern("checksums +equal")
                .containsPattern("pause of fail-over 2 +\\d+\\.\\d ms")
                .contains("verdict: clean");
    }

    @Test
    void jsonIsOneObjectWithTheVerdictAndEachPause() {
        CliRun.Result r = CliRun.run("demo", "-n", "600", "--json");
        assertThat(r.exit()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        String json = r.out().trim();
        assertThat(json).startsWith("{").endsWith("}").doesNotContain("\n")
                .contains("\"messages_sent\": 600", "\"messages_received\": 600", "\"lost\": 0", "\"duplicated\": 0", "\"reordered\": 0",
                        "\"clean\": true", "\"failovers\": 2");
        Matcher m = Pattern.compile("\"pause_ms\": \\[(\\d+\\.\\d+), (\\d+\\.\\d+)]").matcher(json);
        assertThat(m.find()).as("two pauses in %s", json).isTrue();
    }

    @Test
    void tooFewMessagesIsAUsageError() {
        CliRun.Result r = CliRun.run("demo", "-n", "5");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--messages 5: give 30 or more");
    }
}

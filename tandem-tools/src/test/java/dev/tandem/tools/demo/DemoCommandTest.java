package dev.tandem.tools.demo;

import dev.tandem.failover.check.Verdict;
import dev.tandem.tools.CliRun;
import dev.tandem.tools.perf.MiniJson;
import dev.tandem.verbs.CompletionStatus;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fail-over demo, as a newcomer runs it: both fail-overs narrated step by step, in order, a clean
 * verdict table, exit code 0; the JSON verdict; and what it says when something went wrong.
 */
class DemoCommandTest {
    @Test
    void theDemoNarratesBothFailOversStepByStepAndEndsWithACleanVerdict() {
        CliRun.Result r = CliRun.run("demo", "-n", "1500");
        String text = r.out();
        assertThat(r.exit()).as("demo output:%n%s%nstderr:%n%s", text, r.err()).isZero();
        assertInOrder(text,
                "connected: a's QP on adapter",
                // the fatal error: a's next post meets the failed adapter (the holding line says so), before its event arrives
                "FAULT: fatal error on a's adapter",
                "a: holding the application's posts; moving QP",
                "a: REPORT sent: LAST RELIABLY SENT",
                "a: moved: ",
                "a: MIGRATED to adapter",
                "the application's first completion after the fault came",
                "resetting a's adapter",
                "a: path on adapter",
                // the link goes down: the adapter reports it at once
                "FAULT: link of a's adapter",
                "a: detected: adapter",
                "a: holding the application's posts; moving QP",
                "a: MIGRATED to adapter",
                "the application's first completion after the fault came",
                "link of a's adapter",
                "messages sent",
                "verdict: clean");
        assertThat(text).contains("b: REPORT of the peer: LAST RELIABLY SENT")
                .containsPattern("a: detected: adapter \\d is down \\(adapter \\d failed: injected: demo: simulated PCI error\\)")
                .containsPattern("b: holding the application's posts; moving QP \\d+ off adapter \\d")
                .containsPattern("b: MIGRATED to adapter \\d")
                .containsPattern("a: adapter \\d works again")
                .containsPattern("a: path on adapter \\d set up again: a backup once more")
                .containsPattern("MIGRATED to adapter \\d: the application runs again after a pause of \\d+\\.\\d ms")
                .containsPattern("streaming: \\d+ of 1500 sent, \\d+ received, path on adapter \\d")
                .containsPattern("messages sent +1500\n")
                .containsPattern("messages received +1500\n")
                .containsPattern("bytes sent +3072000\n")
                .containsPattern("bytes received +3072000\n")
                .containsPattern("blocks written +1500\n")
                .containsPattern("blocks verified +1500\n")
                .containsPattern("lost +0\n")
                .containsPattern("duplicated +0\n")
                .containsPattern("reordered +0\n")
                .containsPattern("checksums +equal\n")
                .containsPattern("errors the application saw +0\n")
                .containsPattern("pause of fail-over 1 +\\d+\\.\\d ms")
                .containsPattern("pause of fail-over 2 +\\d+\\.\\d ms")
                .contains("verdict: clean: nothing lost, duplicated or reordered, checksums equal, through 2 fail-overs")
                .doesNotContain("\r")
                .doesNotContain("FAILED");
        assertNoThreadLeft("demo-");
        assertNoThreadLeft("tandem-failover-");
    }

    /** The demo's threads (acceptor, PCI error) and the nodes' threads are gone once it returned. */
    private static void assertNoThreadLeft(String prefix) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix)) {
                try {
                    t.join(5000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                assertThat(t.isAlive()).as("thread %s still runs after the demo", t.getName()).isFalse();
            }
        }
    }

    private static void assertInOrder(String text, String... parts) {
        int at = 0;
        for (String p : parts) {
            int i = text.indexOf(p, at);
            assertThat(i).as("'%s' after position %d in:%n%s", p, at, text).isGreaterThanOrEqualTo(0);
            at = i + p.length();
        }
    }

    @Test
    void jsonIsOneObjectWithTheVerdictAndEachPause() {
        CliRun.Result r = CliRun.run("demo", "-n", "600", "--json");
        assertThat(r.exit()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        String line = r.out().trim();
        assertThat(line).doesNotContain("\n");
        Map<String, Object> json = MiniJson.object(line);
        assertThat(json).containsEntry("messages_sent", 600.0).containsEntry("messages_received", 600.0)
                .containsEntry("bytes_sent", 600.0 * 2048).containsEntry("bytes_received", 600.0 * 2048)
                .containsEntry("blocks_written", 600.0).containsEntry("blocks_verified", 600.0)
                .containsEntry("lost", 0.0).containsEntry("duplicated", 0.0).containsEntry("reordered", 0.0)
                .containsEntry("checksum_errors", 0.0).containsEntry("errors", 0.0).containsEntry("refused", 0.0)
                .containsEntry("errors_by_status", Map.of()).containsEntry("problems", List.of())
                .containsEntry("ending", "COMPLETE").containsEntry("failovers", 2.0).containsEntry("expected_failovers", 2.0)
                .containsEntry("stream_clean", true).containsEntry("clean", true)
                .doesNotContainKey("failure");
        assertThat(json.get("pause_ms")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST).hasSize(2)
                .allSatisfy(p -> assertThat((Double) p).isPositive());
    }

    @Test
    void tooFewMessagesIsAUsageError() {
        CliRun.Result r = CliRun.run("demo", "-n", "5");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--messages 5: give 30 or more");
    }

    /** What a run looks like when the fail-over did not hide the fault (as on plain adapters). */
    private static FailoverDemo.Result broken() {
        Verdict v = new Verdict(2000, 1990, 4_096_000, 4_075_520, 2000, 1990, 0, 0, 0, 0, 37, Map.of(CompletionStatus.WR_FLUSH_ERR, 37L),
                1, List.of("receiver: a receive completed WR_FLUSH_ERR (32 times)"), Verdict.Ending.BROKEN);
        return new FailoverDemo.Result(v, List.of(),
                "waiting for the first fail-over (MIGRATED on node a): the stream broke: the application saw 37 completions in error",
                FailoverDemo.FAILOVERS);
    }

    @Test
    void aBrokenStreamIsNotCleanAndTheConclusionSaysWhatWentWrong() {
        FailoverDemo.Result r = broken();
        assertThat(r.ok()).isFalse();
        StringWriter s = new StringWriter();
        DemoCommand.conclusion(new PrintWriter(s, true), r);
        assertThat(s.toString()).startsWith("verdict: NOT clean\n")
                .contains("  what went wrong: waiting for the first fail-over (MIGRATED on node a): the stream broke")
                .contains("  fail-overs: 0 of the 2 expected")
                .contains("  completions in error: {WR_FLUSH_ERR=37}")
                .contains("  receiver: a receive completed WR_FLUSH_ERR (32 times)");
        Map<String, Object> json = MiniJson.object(DemoCommand.json(r));
        assertThat(json).containsEntry("clean", false).containsEntry("stream_clean", false).containsEntry("failovers", 0.0)
                .containsEntry("pause_ms", List.of()).containsEntry("errors", 37.0).containsEntry("ending", "BROKEN")
                .containsEntry("failure", "waiting for the first fail-over (MIGRATED on node a): the stream broke: the application saw 37 "
                        + "completions in error");
    }

    @Test
    void aCleanStreamWithTooFewFailOversDoesNotPass() {
        Verdict v = new Verdict(600, 600, 1_228_800, 1_228_800, 600, 600, 0, 0, 0, 0, 0, Map.of(), 0, List.of(), Verdict.Ending.COMPLETE);
        FailoverDemo.Result r = new FailoverDemo.Result(v, List.of(12.5), null, FailoverDemo.FAILOVERS);
        assertThat(v.clean()).isTrue();
        assertThat(r.ok()).isFalse();
        StringWriter s = new StringWriter();
        DemoCommand.conclusion(new PrintWriter(s, true), r);
        assertThat(s.toString()).contains("verdict: NOT clean").contains("fail-overs: 1 of the 2 expected");
        assertThat(MiniJson.object(DemoCommand.json(r))).containsEntry("stream_clean", true).containsEntry("clean", false)
                .containsEntry("pause_ms", List.of(12.5));
    }
}

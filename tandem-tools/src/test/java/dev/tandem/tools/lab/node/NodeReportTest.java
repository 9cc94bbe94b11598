package dev.tandem.tools.lab.node;

import dev.tandem.failover.check.ReceiverHalf;
import dev.tandem.failover.check.SenderHalf;
import dev.tandem.failover.check.SequenceState;
import dev.tandem.failover.check.SideFindings;
import dev.tandem.failover.check.StreamHalves;
import dev.tandem.failover.check.Verdict;
import dev.tandem.verbs.CompletionStatus;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A node's reports survive their line: what a node process writes, its driver reads back exactly (the halves
 * of the verdict included, problems and errors by status too), so the verdict joined across processes is the
 * verdict of the two sides. A line that is no report is refused, saying what is wrong.
 */
class NodeReportTest {
    private static final SideFindings SENDER_FOUND = new SideFindings(0, 1, 2, 0, 3, Map.of(CompletionStatus.WR_FLUSH_ERR, 3L), 1,
            List.of("sender: the Send of message 7 completed WR_FLUSH_ERR", "sender: a \"quoted\"\nline"), 0);
    private static final SideFindings NONE = new SideFindings(0, 0, 0, 0, 0, Map.of(), 0, List.of(), 0);

    @Test
    void everyReportReadsBackAsWritten() {
        SenderHalf s = new SenderHalf(1000, 900, 1_843_200, 900, 880, false, false, true, new SequenceState(12, 1, 0, 1, List.of("4")),
                SENDER_FOUND, 0);
        ReceiverHalf r = new ReceiverHalf(870, 1_781_760, 870, new SequenceState(871, 1, 2, 0, List.of("100..101")), 11, true, true, true,
                NONE, 0);
        List<NodeReport> reports = List.of(new NodeReport.Ready("b", 40123), new NodeReport.Connected("a", 1),
                new NodeReport.Event("a", "Migrated", 1, 1_764_000_000_123_456L, "MIGRATED to adapter 1: ..."),
                new NodeReport.SenderState("a", "ERROR", 0, 1_764_000_000_200_000L, 1_764_000_000_100_000L, s),
                new NodeReport.ReceiverState("b", "RTS", 1, 0, r), new NodeReport.Failed("b", "java.lang.IllegalStateException: x"));
        for (NodeReport report : reports) {
            String line = report.json();
            assertThat(line).doesNotContain("\n");
            assertThat(NodeReport.parse(line)).isEqualTo(report);
        }
        Verdict joined = new StreamHalves(s, r).verdict(Verdict.Ending.BROKEN);
        assertThat(joined.errorsByStatus()).containsEntry(CompletionStatus.WR_FLUSH_ERR, 3L);
        assertThat(joined.duplicated()).isEqualTo(1 + 2);
        assertThat(joined.lost()).as("credit 4 missing, data gap 100 missing, and 871..879 that completed SUCCESS but never arrived").isEqualTo(1 + 1 + (880 - 871) + 0);
    }

    @Test
    void aLineThatIsNoReportIsRefusedSayingWhy() {
        assertThatThrownBy(() -> NodeReport.parse("{\"type\": \"hello\", \"node\": \"a\"}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown type 'hello'");
        assertThatThrownBy(() -> NodeReport.parse("{\"type\": \"ready\", \"node\": \"a\"}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lacks 'port'");
        assertThatThrownBy(() -> NodeReport.parse("{\"type\": \"ready\", \"node\": \"a\", \"port\": 1.5}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a whole number");
        assertThatThrownBy(() -> NodeReport.parse("Exception in thread main")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aNodeRunsInAJvmLikeThisOneOnItsClassPathWhenThisOneHasNoModulePath() {
        List<String> c = NodeProcess.javaCommand();
        assertThat(c.getFirst()).isEqualTo(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
        assertThat(c).containsSequence("-cp", System.getProperty("java.class.path"), LabNode.class.getName());
    }
}

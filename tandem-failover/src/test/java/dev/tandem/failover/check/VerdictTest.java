package dev.tandem.failover.check;

import dev.tandem.verbs.CompletionStatus;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class VerdictTest {
    private static Verdict clean() {
        return new Verdict(10, 10, 200, 200, 5, 5, 0, 0, 0, 0, 0, Map.of(), 0, List.of(), Verdict.Ending.COMPLETE);
    }

    private static Verdict with(long lost, long dup, long reord, long crc, long errors, long received, long blocksVerified,
                                Verdict.Ending ending) {
        return new Verdict(10, received, 200, 200, 5, blocksVerified, lost, dup, reord, crc, errors, Map.of(), 0, List.of(), ending);
    }

    @Test
    void cleanOnlyWithNothingWrongAndEverythingArrived() {
        assertThat(clean().clean()).isTrue();
        assertThat(with(0, 0, 0, 0, 0, 10, 5, Verdict.Ending.STOPPED).clean()).isTrue();
        assertThat(with(1, 0, 0, 0, 0, 10, 5, Verdict.Ending.COMPLETE).clean()).isFalse();
        assertThat(with(0, 1, 0, 0, 0, 10, 5, Verdict.Ending.COMPLETE).clean()).isFalse();
        assertThat(with(0, 0, 1, 0, 0, 10, 5, Verdict.Ending.COMPLETE).clean()).isFalse();
        assertThat(with(0, 0, 0, 1, 0, 10, 5, Verdict.Ending.COMPLETE).clean()).isFalse();
        assertThat(with(0, 0, 0, 0, 1, 10, 5, Verdict.Ending.COMPLETE).clean()).isFalse();
        assertThat(with(0, 0, 0, 0, 0, 9, 5, Verdict.Ending.COMPLETE).clean()).isFalse();
        assertThat(with(0, 0, 0, 0, 0, 10, 4, Verdict.Ending.COMPLETE).clean()).isFalse();
        assertThat(with(0, 0, 0, 0, 0, 10, 5, Verdict.Ending.STALLED).clean()).isFalse();
        assertThat(with(0, 0, 0, 0, 0, 10, 5, Verdict.Ending.IN_PROGRESS).clean()).isFalse();
        assertThat(new Verdict(10, 10, 200, 200, 5, 5, 0, 0, 0, 0, 0, Map.of(), 1, List.of(), Verdict.Ending.COMPLETE).clean()).isFalse();
        assertThat(new Verdict(10, 10, 200, 199, 5, 5, 0, 0, 0, 0, 0, Map.of(), 0, List.of(), Verdict.Ending.COMPLETE).clean()).isFalse();
    }

    @Test
    void jsonIsOneObjectWithEveryCountStatusAndProblem() {
        Verdict v = new Verdict(10, 8, 200, 160, 5, 4, 2, 0, 1, 0, 3,
                Map.of(CompletionStatus.WR_FLUSH_ERR, 2L, CompletionStatus.FATAL_ERR, 1L), 1,
                List.of("sender: the Send of message 8 completed \"FATAL_ERR\"\n"), Verdict.Ending.BROKEN);
        assertThat(v.json()).isEqualTo("{\"messages_sent\": 10, \"messages_received\": 8, \"bytes_sent\": 200, \"bytes_received\": 160, "
                + "\"blocks_written\": 5, \"blocks_verified\": 4, \"lost\": 2, \"duplicated\": 0, \"reordered\": 1, \"checksum_errors\": 0, "
                + "\"errors\": 3, \"errors_by_status\": {\"WR_FLUSH_ERR\": 2, \"FATAL_ERR\": 1}, \"refused\": 1, \"ending\": \"BROKEN\", "
                + "\"problems\": [\"sender: the Send of message 8 completed \\\"FATAL_ERR\\\"\\n\"], \"clean\": false}");
        assertThat(clean().json()).endsWith("\"errors_by_status\": {}, \"refused\": 0, \"ending\": \"COMPLETE\", \"problems\": [], \"clean\": true}");
    }
}

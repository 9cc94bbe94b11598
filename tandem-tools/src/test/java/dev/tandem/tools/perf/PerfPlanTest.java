package dev.tandem.tools.perf;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PerfPlanTest {
    @Test
    void oneSizeWarmsUpAsManyAsItMeasuresByDefault() {
        assertThat(PerfPlan.of(65536, 5000, PerfSettings.DEFAULT_WARMUP, false).phases()).containsExactly(new Phase(65536, 5000, 5000));
        assertThat(PerfPlan.of(2, 1000, 0, false).phases()).containsExactly(new Phase(2, 1000, 0));
    }

    @Test
    void sweepCoversTwoBytesToEightMibAndStaysBounded() {
        List<Phase> phases = PerfPlan.of(2, 5000, PerfSettings.DEFAULT_WARMUP, true).phases();
        assertThat(phases).hasSize(23);
        assertThat(phases.getFirst()).isEqualTo(new Phase(2, 5000, 5000));
        assertThat(phases.getLast()).isEqualTo(new Phase(8 * 1024 * 1024, 32, 32));
        for (Phase p : phases) {
            assertThat(Integer.bitCount(p.size())).isEqualTo(1);
            assertThat((long) p.size() * p.iterations()).isLessThanOrEqualTo(PerfPlan.SWEEP_BYTES_PER_SIZE);
        }
        assertThat(PerfPlan.of(2, 1000, 300, true).phases().getLast().warmup()).isEqualTo(32);
        assertThat(PerfPlan.of(2, 1000, 300, true).phases().getFirst().warmup()).isEqualTo(300);
    }

    @Test
    void sizesMustGrow() {
        assertThatThrownBy(() -> new PerfPlan(List.of(new Phase(64, 5, 0), new Phase(64, 5, 0)))).hasMessageContaining("must grow");
    }
}

package dev.tandem.tools.perf;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PerfPlanTest {
    @Test
    void oneSizeWarmsUpAsManyAsItMeasuresByDefault() {
        assertThat(PerfPlan.of(65536, 5000, PerfSettings.DEFAULT_WARMUP, false, PerfSettings.NO_DURATION).phases()).containsExactly(new Phase(65536, 5000, 5000));
        assertThat(PerfPlan.of(2, 1000, 0, false, PerfSettings.NO_DURATION).phases()).containsExactly(new Phase(2, 1000, 0));
    }

    @Test
    void sweepCoversTwoBytesToEightMibAndStaysBounded() {
        List<Phase> phases = PerfPlan.of(2, 5000, PerfSettings.DEFAULT_WARMUP, true, PerfSettings.NO_DURATION).phases();
        assertThat(phases).hasSize(23);
        assertThat(phases.getFirst()).isEqualTo(new Phase(2, 5000, 5000));
        assertThat(phases.getLast()).isEqualTo(new Phase(8 * 1024 * 1024, 32, 32));
        for (Phase p : phases) {
            assertThat(Integer.bitCount(p.size())).isEqualTo(1);
            assertThat((long) p.size() * ((Span.Iterations) p.measured()).count()).isLessThanOrEqualTo(PerfPlan.SWEEP_BYTES_PER_SIZE);
        }
        assertThat(PerfPlan.of(2, 1000, 300, true, PerfSettings.NO_DURATION).phases().getLast().warmup()).isEqualTo(Span.iterations(32));
        assertThat(PerfPlan.of(2, 1000, 300, true, PerfSettings.NO_DURATION).phases().getFirst().warmup()).isEqualTo(Span.iterations(300));
    }

    @Test
    void durationModeRunsOneSizeForATimeAfterPerftestsMarginOrACount() {
        assertThat(PerfPlan.of(4096, 5000, PerfSettings.DEFAULT_WARMUP, false, 7).phases())
                .containsExactly(new Phase(4096, Span.of(Duration.ofSeconds(2)), Span.of(Duration.ofSeconds(7))));
        PerfPlan counted = PerfPlan.of(4096, 5000, 25, false, 7);
        assertThat(counted.phases()).containsExactly(new Phase(4096, Span.iterations(25), Span.of(Duration.ofSeconds(7))));
        assertThat(counted.timed()).isTrue();
        assertThat(counted.phases().getFirst().timed()).isTrue();
        assertThatThrownBy(() -> counted.phases().getFirst().countedTotal()).hasMessageContaining("counted as it runs");
        assertThat(PerfPlan.of(2, 1000, 0, false, PerfSettings.NO_DURATION).phases().getFirst().countedTotal()).isEqualTo(1000);
        assertThatThrownBy(() -> PerfPlan.of(2, 1000, 0, true, 7)).hasMessageContaining("does not sweep");
    }

    @Test
    void spansGoOnByCountOrByTime() {
        assertThat(Span.iterations(3).goOn(2, Long.MAX_VALUE)).isTrue();
        assertThat(Span.iterations(3).goOn(3, 0)).isFalse();
        Span second = Span.of(Duration.ofSeconds(1));
        assertThat(second.goOn(Long.MAX_VALUE - 1, 999_999_999)).isTrue();
        assertThat(second.goOn(0, 1_000_000_000)).isFalse();
        assertThatThrownBy(() -> new Phase(2, Span.iterations(0), Span.iterations(0))).hasMessageContaining("at least 1 iteration");
    }

    @Test
    void sizesMustGrow() {
        assertThatThrownBy(() -> new PerfPlan(List.of(new Phase(64, 5, 0), new Phase(64, 5, 0)))).hasMessageContaining("must grow");
    }
}

package dev.tandem.tools.perf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AllocationMeterTest {
    @Test
    void perOperationDividesAndKnowsWhenItCannotTell() {
        assertThat(AllocationMeter.perOperation(1000, 1500, 100)).isEqualTo(5.0);
        assertThat(AllocationMeter.perOperation(-1, 1500, 100)).isNaN();
        assertThat(AllocationMeter.perOperation(0, 10, 0)).isNaN();
    }

    @Test
    void seesThisThreadAllocate() {
        assertThat(AllocationMeter.supported()).isTrue();   // HotSpot supports it; the figures depend on it
        long before = AllocationMeter.currentThreadBytes();
        byte[][] keep = new byte[64][];
        for (int i = 0; i < keep.length; i++) {
            keep[i] = new byte[1024];
        }
        long after = AllocationMeter.currentThreadBytes();
        assertThat(after - before).isGreaterThanOrEqualTo(64L * 1024);
        assertThat(keep[63]).hasSize(1024);
    }
}

package dev.tandem.tools.lab;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The forms {@code lab fail} and {@code lab heal} accept. */
class TargetTest {
    @Test
    void parsesAdaptersSwitchesAndCables() {
        assertThat(Target.parse("h1.a2")).isEqualTo(new Target.Adapter(1, 2));
        assertThat(Target.parse("host12.a3")).isEqualTo(new Target.Adapter(12, 3));
        assertThat(Target.parse(" switch2 ")).isEqualTo(new Target.Switch(2));
        assertThat(Target.parse("h1.a1-host2.a1")).isEqualTo(new Target.Cable(new Target.Adapter(1, 1), new Target.Adapter(2, 1)));
    }

    @Test
    void namesAreTheShortForm() {
        assertThat(Target.parse("host1.a2").name()).isEqualTo("h1.a2");
        assertThat(Target.parse("switch3").name()).isEqualTo("switch3");
        assertThat(Target.parse("host2.a1-h1.a1").name()).isEqualTo("h2.a1-h1.a1");
    }

    @Test
    void anythingElseIsRefusedWithTheFormsThatWork() {
        for (String bad : Arrays.asList("h0.a1", "h1.a0", "h01.a1", "h1", "h1.a", "a1", "switch", "switch0", "h1.a1-", "h1.a1-switch1",
                "eth0", "H1.A1", "", null)) {
            assertThatThrownBy(() -> Target.parse(bad)).as("'%s'", bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("'" + bad + "' is not a lab target: give hI.aK (adapter K of host I; alias hostI.aK), switchK"
                            + " (the switch of fabric K, switched labs) or hI.aK-hJ.aK (the cable between two adapters, switchless labs)");
        }
    }

    @Test
    void numbersStartAtOne() {
        for (Runnable r : List.<Runnable>of(() -> new Target.Adapter(0, 1), () -> new Target.Adapter(1, 0), () -> new Target.Switch(0))) {
            assertThatThrownBy(r::run).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("count from 1");
        }
    }
}

package dev.tandem.tools.lab;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A lab's names, addresses and checks, without building anything (no root needed). */
class LabPlanTest {
    private final LabPlan switched = LabPlan.defaults();
    private final LabPlan switchless = new LabPlan("t", Topology.SWITCHLESS, 2, 2);

    @Test
    void defaultsAreTwoSwitchedHostsWithTwoAdaptersEach() {
        assertThat(switched).isEqualTo(new LabPlan("tandem", Topology.SWITCHED, 2, 2));
        assertThat(switched.describe()).isEqualTo("switched, 2 hosts, 2 adapters each");
        assertThat(switched.namespaces()).containsExactly("tandem-h1", "tandem-h2", "tandem-sw");
        assertThat(switchless.namespaces()).containsExactly("t-h1", "t-h2");
    }

    @Test
    void adapterKOfHostIHasAnAddressOfFabricK() {
        LabPlan plan = new LabPlan("p", Topology.SWITCHED, 3, 4);
        assertThat(plan.address(3, 2).getHostAddress()).isEqualTo("10.77.2.3");
        assertThat(plan.address(1, 4).getHostAddress()).isEqualTo("10.77.4.1");
        assertThat(plan.switchAddress(4).getHostAddress()).isEqualTo("10.77.4.254");
        assertThat(plan.subnet(3)).isEqualTo("10.77.3.0/24");
        assertThat(plan.adapterEnd(3, 2)).isEqualTo(new LinkEnd("p-h3", "a2"));
        assertThat(plan.switchEnd(4)).isEqualTo(new LinkEnd("p-sw", "switch4"));
        assertThat(plan.cableFarEnd(3, 2)).isEqualTo(new LinkEnd("p-sw", "h3a2"));
        assertThat(switchless.cableFarEnd(2, 1)).isEqualTo(new LinkEnd("t-h1", "a1"));
        assertThatThrownBy(() -> plan.address(4, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lab p has hosts 1..3, not 4");
        assertThatThrownBy(() -> plan.address(1, 5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lab p has adapters (fabrics) 1..4, not 5");
        assertThatThrownBy(switchless::switchNamespace).isInstanceOf(IllegalStateException.class)
                .hasMessage("lab t is switchless: it has no switch namespace");
    }

    @Test
    void badPlansAreRefusedSayingWhatWouldBeRight() {
        assertThatThrownBy(() -> new LabPlan("t", Topology.SWITCHLESS, 3, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a switchless lab has exactly 2 hosts (adapter k of one cabled to adapter k of the other), not 3:"
                        + " drop --hosts or use --switched for more hosts");
        assertThatThrownBy(() -> new LabPlan("t", Topology.SWITCHED, 1, 2)).hasMessage("a lab has 2 to 64 hosts, not 1");
        assertThatThrownBy(() -> new LabPlan("t", Topology.SWITCHED, 65, 2)).hasMessage("a lab has 2 to 64 hosts, not 65");
        assertThatThrownBy(() -> new LabPlan("t", Topology.SWITCHED, 2, 0)).hasMessage("a lab host has 1 to 8 adapters, not 0");
        assertThatThrownBy(() -> new LabPlan("t", Topology.SWITCHED, 2, 9)).hasMessage("a lab host has 1 to 8 adapters, not 9");
        for (String bad : List.of("my lab", "-x", "a/b", "", "x".repeat(25))) {
            assertThatThrownBy(() -> new LabPlan(bad, Topology.SWITCHED, 2, 2)).as("prefix '%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("prefix '" + bad + "' is not usable in namespace names: give a letter or digit followed by up to 23"
                            + " letters, digits, '_' or '-' (e.g. tandem)");
        }
        assertThat(new LabPlan("x".repeat(24), Topology.SWITCHED, 2, 2).prefix()).hasSize(24);
    }

    @Test
    void aLabOwnsOnlyItsHostAndSwitchNamespaces() {
        assertThat(List.of("tandem-h1", "tandem-h12", "tandem-sw")).allMatch(n -> LabPlan.isLabNamespace("tandem", n));
        assertThat(List.of("tandem2-h1", "tandem-h0", "tandem-h01", "tandem-h1x", "tandem-hosts", "tandem", "tandem-", "xtandem-h1",
                "tandem-sw2")).noneMatch(n -> LabPlan.isLabNamespace("tandem", n));
    }

    @Test
    void checkAcceptsOnlyTargetsTheLabHasAndListsTheValidOnes() {
        assertThat(switched.check(new Target.Adapter(2, 2))).isEqualTo(new Target.Adapter(2, 2));
        assertThat(switched.check(new Target.Switch(2))).isEqualTo(new Target.Switch(2));
        assertThat(switchless.check(Target.parse("h2.a1-h1.a1"))).isEqualTo(Target.parse("h2.a1-h1.a1"));

        String switchedValid = "valid targets: h1.a1, h1.a2, h2.a1, h2.a2, switch1, switch2";
        assertThatThrownBy(() -> switched.check(new Target.Adapter(3, 1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("h3.a1: lab tandem has no h3.a1 (switched, 2 hosts, 2 adapters each); " + switchedValid);
        assertThatThrownBy(() -> switched.check(new Target.Switch(3)))
                .hasMessage("switch3: lab tandem has no switch3 (switched, 2 hosts, 2 adapters each); " + switchedValid);
        assertThatThrownBy(() -> switched.check(Target.parse("h1.a1-h2.a1")))
                .hasMessageStartingWith("h1.a1-h2.a1: lab tandem is switched: each adapter is cabled to its fabric's switch,"
                        + " not to another host");

        String switchlessValid = "valid targets: h1.a1, h1.a2, h2.a1, h2.a2, h1.a1-h2.a1, h1.a2-h2.a2";
        assertThatThrownBy(() -> switchless.check(new Target.Switch(1)))
                .hasMessage("switch1: lab t is switchless: it has no switches (switchless, 2 hosts, 2 adapters each); " + switchlessValid);
        assertThatThrownBy(() -> switchless.check(Target.parse("h1.a1-h2.a2")))
                .hasMessageStartingWith("h1.a1-h2.a2: no cable joins them: adapter k of h1 is cabled to adapter k of h2");
        assertThatThrownBy(() -> switchless.check(Target.parse("h1.a1-h1.a1")))
                .hasMessageStartingWith("h1.a1-h1.a1: no cable joins them");
        assertThatThrownBy(() -> switchless.check(Target.parse("h1.a3-h2.a3"))).hasMessageStartingWith("h1.a3-h2.a3: lab t has no h1.a3");
    }

    @Test
    void manyTargetsAreListedAsRanges() {
        LabPlan big = new LabPlan("big", Topology.SWITCHED, 10, 4);
        assertThat(big.validTargets()).isEqualTo("hI.aK for I in 1..10 and K in 1..4, switchK for K in 1..4");
    }

    @Test
    void eachTargetNamesTheLinksItSwitches() {
        assertThat(switched.ends(new Target.Adapter(2, 1))).containsExactly(new LinkEnd("tandem-h2", "a1"));
        assertThat(switched.ends(new Target.Switch(2))).containsExactly(new LinkEnd("tandem-sw", "switch2"));
        assertThat(switchless.ends(Target.parse("h1.a2-h2.a2"))).containsExactly(new LinkEnd("t-h1", "a2"), new LinkEnd("t-h2", "a2"));
        assertThatThrownBy(() -> switchless.ends(new Target.Switch(1))).isInstanceOf(IllegalArgumentException.class);
    }
}

package dev.tandem.tools.lab;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What plan a set of namespaces adds up to, or why it does not: what {@code status} and {@code fail} rely on after a crash. */
class LabStatusTest {
    private static NamespaceState ns(String name, String... links) {
        List<LinkState> states = new ArrayList<>();
        for (String l : links) {
            states.add(new LinkState(l, "UP", true, true, List.of()));
        }
        return new NamespaceState(name, states);
    }

    @Test
    void switchedAndSwitchlessLabsAreRecognised() {
        LabStatus switched = new LabStatus("p", List.of(ns("p-h1", "a1", "a2"), ns("p-h2", "a2", "a1"), ns("p-h3", "a1", "a2"),
                ns("p-sw", "switch1", "switch2", "h1a1")));
        assertThat(switched.plan()).hasValue(new LabPlan("p", Topology.SWITCHED, 3, 2));
        assertThat(switched.problem()).isEmpty();

        LabStatus switchless = new LabStatus("p", List.of(ns("p-h1", "a1", "a2", "a3", "a10", "eth0"),
                ns("p-h2", "a1", "a2", "a3", "a10", "eth0")));
        assertThat(switchless.problem()).hasValue("the adapters of p-h1 are not a1..a4: [a1, a2, a3, a10]");

        LabStatus twoAdapters = new LabStatus("p", List.of(ns("p-h1", "a1", "a2"), ns("p-h2", "a1", "a2")));
        assertThat(twoAdapters.plan()).hasValue(new LabPlan("p", Topology.SWITCHLESS, 2, 2));
    }

    @Test
    void whatACrashLeftIsIncompleteAndSaysWhy() {
        assertThat(new LabStatus("p", List.of()).problem()).hasValue("no namespace of lab p exists");
        assertThat(new LabStatus("p", List.of(ns("p-h1", "a1"), ns("p-h3", "a1"), ns("p-sw", "switch1"))).problem())
                .hasValue("namespace p-h2 is missing");
        assertThat(new LabStatus("p", List.of(ns("p-h1", "a1", "a2"), ns("p-h2", "a1"), ns("p-sw", "switch1", "switch2"))).problem())
                .hasValue("p-h2 has adapters [a1], p-h1 has [a1, a2]");
        assertThat(new LabStatus("p", List.of(ns("p-h1", "a1", "a2"), ns("p-h2", "a1", "a2"), ns("p-sw", "switch1"))).problem())
                .hasValue("p-sw has no switch2");
        assertThat(new LabStatus("p", List.of(ns("p-sw", "switch1"))).problem()).hasValue("only the switch namespace p-sw is left");
        assertThat(new LabStatus("p", List.of(ns("p-h1"), ns("p-h2"))).problem()).hasValue("a lab host has 1 to 8 adapters, not 0");
        assertThat(new LabStatus("p", List.of(ns("p-h1", "a1"), ns("p-h2", "a1"), ns("p-h3", "a1"))).problem())
                .hasValueSatisfying(p -> assertThat(p).startsWith("a switchless lab has exactly 2 hosts"));
        assertThat(new LabStatus("p", List.of(ns("p-h1", "a1"))).plan()).isEmpty();
    }
}

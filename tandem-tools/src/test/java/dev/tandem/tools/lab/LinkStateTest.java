package dev.tandem.tools.lab;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Reading {@code ip -br link} and {@code ip -br addr} (as iproute2 6.1 prints them). */
class LinkStateTest {
    private static final String LINK = """
            lo               UNKNOWN        00:00:00:00:00:00 <LOOPBACK,UP,LOWER_UP>\s
            switch1          DOWN           7e:35:b6:79:7e:ab <BROADCAST,MULTICAST>\s
            h1a1@if2         DOWN           7e:52:6e:cc:71:8b <NO-CARRIER,BROADCAST,MULTICAST,UP>\s
            a2@if3           UP             12:0d:3d:89:43:c6 <BROADCAST,MULTICAST,UP,LOWER_UP>\s
            """;
    private static final String ADDR = """
            lo               UNKNOWN        127.0.0.1/8 ::1/128\s
            switch1          DOWN           10.77.1.254/24\s
            h1a1@if2         DOWN          \s
            a2@if3           UP             10.77.2.1/24 fe80::100d:3dff:fe89:43c6/64 fd00::1/64\s
            """;

    @Test
    void readsNameStateFlagsAndAddressesWithoutLoopbackAndLinkLocal() {
        assertThat(LinkState.parse(LINK, ADDR)).containsExactly(
                new LinkState("switch1", "DOWN", false, false, List.of("10.77.1.254/24")),
                new LinkState("h1a1", "DOWN", true, false, List.of()),
                new LinkState("a2", "UP", true, true, List.of("10.77.2.1/24", "fd00::1/64")));
    }

    @Test
    void conditionSaysWhetherTheLinkIsOffOrItsFarEndIs() {
        List<LinkState> links = LinkState.parse(LINK, "");
        assertThat(links).extracting(LinkState::condition).containsExactly("down", "no carrier", "up");
    }

    @Test
    void settledWhenTheStateAgreesWithTheCarrier() {
        assertThat(LinkState.parse(LINK, "")).allMatch(LinkState::settled);
        assertThat(new LinkState("a1", "DOWN", true, true, List.of()).settled()).as("carrier, state not yet UP").isFalse();
        assertThat(new LinkState("a1", "LOWERLAYERDOWN", true, true, List.of()).settled()).isFalse();
        assertThat(new LinkState("a1", "UP", true, false, List.of()).settled()).as("no carrier, state still UP").isFalse();
        assertThat(new LinkState("x", "UNKNOWN", true, false, List.of()).settled()).isTrue();
    }

    @Test
    void aLineOfAnotherFormatIsAnError() {
        assertThatThrownBy(() -> LinkState.parse("a1 UP\n", "")).isInstanceOf(LabException.class)
                .hasMessage("unexpected line from 'ip -br link': a1 UP");
    }
}

package dev.tandem.tools.perf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HelloTest {
    @Test
    void clientHelloRoundTrips() {
        Hello.Client c = new Hello.Client(PerfTest.SEND_LAT, WaitMode.EVENT, Baseline.TCP, false, true, 4096, 777, -1, 64, 0x1234_5600, 8192, 0);
        byte[] wire = c.encode();
        assertThat(wire).hasSize(36);
        assertThat(Hello.Client.decode(wire)).isEqualTo(c);
        assertThat(c.plan().phases()).containsExactly(new Phase(4096, 777, 777));
    }

    @Test
    void theBaselineTravelsInTheHelloAndOnlyOneAtATime() {
        for (Baseline b : Baseline.values()) {
            Hello.Client c = new Hello.Client(PerfTest.WRITE_BW, WaitMode.POLL, b, false, false, 4096, 100, 10, 16, 7, 4096, 0);
            assertThat(Hello.Client.decode(c.encode())).isEqualTo(c);
        }
        byte[] both = new Hello.Client(PerfTest.WRITE_BW, WaitMode.POLL, Baseline.TCP, false, false, 4096, 100, 10, 16, 7, 4096, 0).encode();
        both[7] |= 8;
        assertThatThrownBy(() -> Hello.Client.decode(both)).isInstanceOf(PerfException.class)
                .hasMessage("the client's hello asks for both a TCP and an iWARP baseline; a run has one");
    }

    @Test
    void durationTravelsInTheHello() {
        Hello.Client c = new Hello.Client(PerfTest.WRITE_BW, WaitMode.POLL, Baseline.NONE, false, true, 65536, 5000, -1, 128, 7, 65536, 30);
        Hello.Client back = Hello.Client.decode(c.encode());
        assertThat(back).isEqualTo(c);
        assertThat(back.plan().timed()).isTrue();
        assertThat(back.plan().phases().getFirst().measured()).isEqualTo(Span.of(java.time.Duration.ofSeconds(30)));
    }

    @Test
    void aVersionOneClientIsToldToRunTheSameVersion() {
        byte[] v1 = java.util.Arrays.copyOf(new Hello.Client(PerfTest.WRITE_BW, WaitMode.POLL, Baseline.NONE, false, true, 2, 5, 0, 1, 1, 64, 0)
                .encode(), 32);
        v1[4] = 1;
        assertThatThrownBy(() -> Hello.Client.decode(v1)).isInstanceOf(PerfException.class)
                .hasMessage("the client speaks tandem perf hello version 1, this side version 3; run the same tandem version on both sides");
    }

    @Test
    void serverHelloRoundTrips() {
        Hello.Server s = new Hello.Server(true, 0x0000_0300, 65536, 512, 40_001);
        assertThat(Hello.Server.decode(s.encode())).isEqualTo(s);
    }

    @Test
    void foreignPrivateDataIsNamed() {
        assertThatThrownBy(() -> Hello.Client.decode("hello from a, who is not tandem perf".getBytes()))
                .isInstanceOf(PerfException.class).hasMessageContaining("not a tandem perf hello");
        assertThatThrownBy(() -> Hello.Server.decode(new byte[3])).hasMessageContaining("3 bytes, too short");
        byte[] wire = new Hello.Server(false, 1, 2, 3, 4).encode();
        wire[4] = 9;
        assertThatThrownBy(() -> Hello.Server.decode(wire)).hasMessageContaining("version 9");
    }
}

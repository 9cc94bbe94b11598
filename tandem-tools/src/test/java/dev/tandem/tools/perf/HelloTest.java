package dev.tandem.tools.perf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HelloTest {
    @Test
    void clientHelloRoundTrips() {
        Hello.Client c = new Hello.Client(PerfTest.SEND_LAT, WaitMode.EVENT, true, false, true, 4096, 777, -1, 64, 0x1234_5600, 8192);
        byte[] wire = c.encode();
        assertThat(wire).hasSize(32);
        assertThat(Hello.Client.decode(wire)).isEqualTo(c);
        assertThat(c.plan().phases()).containsExactly(new Phase(4096, 777, 777));
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

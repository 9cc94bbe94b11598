package dev.tandem.verbs;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Device names as {@link RdmaDevices#open(String)} takes them, and the errors a wrong one gets. */
class DeviceNameTest {
    private enum Mode { DEDICATED, BUSY_SPIN }

    @Test
    void readsSchemeAddressAndOptionsInOrder() {
        DeviceName n = DeviceName.parse("IWARP://127.0.1.1?crc=off&threading=busy-spin&maxUlpdu=1024");
        assertThat(n.scheme()).isEqualTo("iwarp");
        assertThat(n.address()).isEqualTo("127.0.1.1");
        assertThat(n.options()).containsExactly(Map.entry("crc", "off"), Map.entry("threading", "busy-spin"), Map.entry("maxUlpdu", "1024"));
        assertThat(n.flag("crc", true)).isFalse();
        assertThat(n.flag("other", true)).isTrue();
        assertThat(n.choice("threading", Mode.class, Mode.DEDICATED)).isEqualTo(Mode.BUSY_SPIN);
        assertThat(n.number("maxUlpdu", 0, 65535, 0)).isEqualTo(1024);
        assertThat(n).hasToString("iwarp://127.0.1.1?crc=off&threading=busy-spin&maxUlpdu=1024");
    }

    @Test
    void wrongNamesAndValuesSayWhatIsWrong() {
        assertThatThrownBy(() -> DeviceName.parse("127.0.1.1")).isInstanceOf(InvalidArgumentException.class).hasMessageContaining("no scheme");
        assertThatThrownBy(() -> DeviceName.parse("iwarp://")).isInstanceOf(InvalidArgumentException.class).hasMessageContaining("no address");
        assertThatThrownBy(() -> DeviceName.parse("iwarp://a?crc")).isInstanceOf(InvalidArgumentException.class).hasMessageContaining("not key=value");
        assertThatThrownBy(() -> DeviceName.parse("iwarp://a?crc=on&crc=off")).hasMessageContaining("given twice");
        DeviceName n = DeviceName.parse("iwarp://a?crc=maybe&threading=fast&maxUlpdu=x&speed=1");
        assertThatThrownBy(() -> n.flag("crc", true)).hasMessageContaining("crc=maybe must be on or off");
        assertThatThrownBy(() -> n.choice("threading", Mode.class, Mode.DEDICATED)).hasMessageContaining("not one of dedicated, busy-spin");
        assertThatThrownBy(() -> n.number("maxUlpdu", 0, 10, 0)).hasMessageContaining("within 0..10");
        assertThatThrownBy(() -> n.allowOnly(Set.of("crc", "threading", "maxUlpdu"))).hasMessageContaining("unknown option 'speed'")
                .hasMessageContaining("crc, maxUlpdu, threading");
    }

    @Test
    void aSchemeNoProviderHasIsRefusedNamingTheKnownOnes() {
        assertThatThrownBy(() -> RdmaDevices.open("nosuch://x")).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("no provider for scheme 'nosuch'");
    }
}

package dev.tandem.iwarp;

import dev.tandem.provider.IdleStrategyKind;
import dev.tandem.provider.LeakMode;
import dev.tandem.provider.ThreadingMode;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.DeviceName;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.RdmaDevices;
import dev.tandem.verbs.RdmaProvider;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The iwarp scheme: found through the ServiceLoader, and every option of its names. */
class IwarpProviderTest {
    @Test
    void theServiceLoaderFindsTheIwarpProviderAndOpensItsDevicesByName() {
        assertThat(RdmaDevices.available()).extracting(RdmaProvider::scheme).contains("iwarp");
        try (RdmaDevice d = RdmaDevices.open("iwarp://127.0.1.1?crc=off")) {
            assertThat(d).isInstanceOf(AdapterControl.class);
            assertThat(d.name()).endsWith("@127.0.1.1");
        }
    }

    @Test
    void everyOptionReachesTheAdapterSettings() {
        IwarpConfig c = IwarpProvider.config(DeviceName.parse(
                "iwarp://127.0.1.1?crc=off&threading=shared&idle=busy-spin&progressOnPoll=off&maxUlpdu=1024&leaks=strict"));
        assertThat(c.crc()).isFalse();
        assertThat(c.threading()).isEqualTo(ThreadingMode.SHARED);
        assertThat(c.idle()).isEqualTo(IdleStrategyKind.BUSY_SPIN);
        assertThat(c.progressOnPoll()).isFalse();
        assertThat(c.maxUlpdu()).isEqualTo(1024);
        assertThat(c.leakMode()).isEqualTo(LeakMode.STRICT);
        assertThat(IwarpProvider.config(DeviceName.parse("iwarp://127.0.1.1"))).isEqualTo(IwarpConfig.of("127.0.1.1"));
    }

    @Test
    void anOptionTheSchemeDoesNotKnowIsRefusedNamingTheOnesItDoes() {
        assertThatThrownBy(() -> RdmaDevices.open("iwarp://127.0.1.1?crc=on&mtu=9000")).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("unknown option 'mtu'").hasMessageContaining("crc, idle, leaks, maxUlpdu, progressOnPoll, threading");
        assertThatThrownBy(() -> RdmaDevices.open("iwarp://not-an-address.invalid")).isInstanceOf(InvalidArgumentException.class);
    }
}

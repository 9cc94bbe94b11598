package dev.tandem.failover.conformance;

import dev.tandem.verbs.DeviceOptions;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.RdmaDevices;
import dev.tandem.verbs.conformance.ProviderFixture;

import java.net.InetSocketAddress;

/**
 * Two fail-over devices, nodes {@code a} and {@code b}, each over two software iWARP adapters
 * (127.0.1.1 and 127.0.2.1; 127.0.1.2 and 127.0.2.2), with MPA CRC on or off, opened by name.
 */
final class FailoverFixture implements ProviderFixture {
    private static final String[] NAMES = {
            "failover://127.0.1.1+127.0.2.1?node=a", "failover://127.0.1.2+127.0.2.2?node=b"};
    private static final String[] LISTEN = {"127.0.1.1", "127.0.1.2"};

    private final boolean crc;
    private final RdmaDevice[] opened = new RdmaDevice[2];

    FailoverFixture(boolean crc) {
        this.crc = crc;
    }

    @Override
    public String name() {
        return "failover(iwarp, crc=" + (crc ? "on" : "off") + ")";
    }

    @Override
    public RdmaDevice open(int adapter, DeviceOptions options) {
        RdmaDevice d = RdmaDevices.open(NAMES[adapter] + "&crc=" + (crc ? "on" : "off"), options);
        opened[adapter] = d;
        return d;
    }

    @Override
    public InetSocketAddress listenAddress(int adapter) {
        return new InetSocketAddress(LISTEN[adapter], 0);
    }

    @Override
    public void close() {
        try {
            closeOne(0);
        } finally {
            closeOne(1);
        }
    }

    private void closeOne(int adapter) {
        RdmaDevice d = opened[adapter];
        opened[adapter] = null;
        if (d != null) {
            d.close();
        }
    }
}

package dev.tandem.iwarp.conformance;

import dev.tandem.verbs.DeviceOptions;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.RdmaDevices;
import dev.tandem.verbs.conformance.ProviderFixture;

import java.net.InetSocketAddress;

/** Two software iWARP adapters on 127.0.1.1 and 127.0.1.2, with MPA CRC on or off on both, opened by name. */
final class IwarpFixture implements ProviderFixture {
    private static final String[] ADDRESSES = {"127.0.1.1", "127.0.1.2"};

    private final boolean crc;
    private final RdmaDevice[] opened = new RdmaDevice[2];

    IwarpFixture(boolean crc) {
        this.crc = crc;
    }

    @Override
    public String name() {
        return "iwarp(crc=" + (crc ? "on" : "off") + ")";
    }

    @Override
    public RdmaDevice open(int adapter, DeviceOptions options) {
        RdmaDevice d = RdmaDevices.open("iwarp://" + ADDRESSES[adapter] + "?crc=" + (crc ? "on" : "off"), options);
        opened[adapter] = d;
        return d;
    }

    @Override
    public InetSocketAddress listenAddress(int adapter) {
        return new InetSocketAddress(ADDRESSES[adapter], 0);
    }

    @Override
    public void close() {
        // closes both even if the first fails its close (a leak in strict mode)
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

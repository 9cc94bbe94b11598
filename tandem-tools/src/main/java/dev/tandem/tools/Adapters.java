package dev.tandem.tools;

import dev.tandem.iwarp.IwarpConfig;
import dev.tandem.iwarp.IwarpDevice;
import dev.tandem.verbs.RdmaDevice;

/** Opens the software iWARP adapters the tools use. */
public final class Adapters {
    private Adapters() {
    }

    /** The iWARP adapter at {@code ip} with the default engine settings and MPA CRC on or off. */
    public static RdmaDevice open(String ip, boolean crc) {
        return IwarpDevice.open(IwarpConfig.of(ip).withCrc(crc));
    }
}

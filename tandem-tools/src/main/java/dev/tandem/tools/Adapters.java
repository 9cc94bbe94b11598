package dev.tandem.tools;

import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.RdmaDevices;

/** Opens the software iWARP adapters the tools use, by name through {@link RdmaDevices}. */
public final class Adapters {
    private Adapters() {
    }

    /** The iWARP adapter at {@code ip} with the default engine settings and MPA CRC on or off. */
    public static RdmaDevice open(String ip, boolean crc) {
        return open(ip, crc, "");
    }

    /**
     * The iWARP adapter at {@code ip} with MPA CRC on or off and further options of the {@code iwarp}
     * scheme ({@code key=value&...}, or empty), e.g. {@code threading=shared&idle=sleep}.
     */
    public static RdmaDevice open(String ip, boolean crc, String options) {
        return RdmaDevices.open("iwarp://" + ip + "?crc=" + (crc ? "on" : "off") + (options.isEmpty() ? "" : "&" + options));
    }
}

package dev.tandem.tools;

import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.RdmaDevices;

/** Opens the devices the tools use, by name through {@link RdmaDevices}: software iWARP adapters, or fail-over devices over two. */
public final class Adapters {
    private Adapters() {
    }

    /** The iWARP adapter at {@code ip} with the default engine settings and MPA CRC on or off. */
    public static RdmaDevice open(String ip, boolean crc) {
        return open(ip, crc, "");
    }

    /**
     * A fail-over device (node {@code perf-IP}) over the iWARP adapter at {@code ip} (127.0.1.x) and its
     * sibling on the second loopback fabric (127.0.2.x), with MPA CRC on or off and the further options
     * of the {@code iwarp} scheme for both.
     */
    public static RdmaDevice openFailover(String ip, boolean crc, String options) {
        String[] parts = ip.split("\\.");
        if (parts.length != 4 || !ip.startsWith("127.0.1.")) {
            throw new IllegalArgumentException("a fail-over device for perf pairs 127.0.1.x with 127.0.2.x; got " + ip);
        }
        String sibling = "127.0.2." + parts[3];
        return RdmaDevices.open("failover://" + ip + "+" + sibling + "?node=perf-" + ip + "&crc=" + (crc ? "on" : "off")
                + (options.isEmpty() ? "" : "&" + options));
    }

    /**
     * The iWARP adapter at {@code ip} with MPA CRC on or off and further options of the {@code iwarp}
     * scheme ({@code key=value&...}, or empty), e.g. {@code threading=shared&idle=sleep}.
     */
    public static RdmaDevice open(String ip, boolean crc, String options) {
        return RdmaDevices.open("iwarp://" + ip + "?crc=" + (crc ? "on" : "off") + (options.isEmpty() ? "" : "&" + options));
    }
}

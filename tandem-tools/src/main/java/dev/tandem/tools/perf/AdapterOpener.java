package dev.tandem.tools.perf;

import dev.tandem.verbs.RdmaDevice;

/** Opens the adapter at a local IP address, with or without MPA CRC. */
@FunctionalInterface
public interface AdapterOpener {
    RdmaDevice open(String ip, boolean crc);
}

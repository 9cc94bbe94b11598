package dev.tandem.verbs;

/**
 * A kind of device (a transport): found by {@link java.util.ServiceLoader} and picked by the scheme
 * of the name given to {@link RdmaDevices#open(String)}. A provider's jar lists its implementation in
 * {@code META-INF/services/dev.tandem.verbs.RdmaProvider} (and {@code provides} it in its module).
 */
public interface RdmaProvider {
    /** The scheme of the names this provider opens, e.g. {@code iwarp}. */
    String scheme();

    /** How a name of this provider is written, with its options, e.g. {@code iwarp://IP[?crc=on|off]}. */
    String nameFormat();

    /**
     * Opens the device {@code name} names ({@code name.scheme()} is this provider's).
     *
     * @throws InvalidArgumentException when the address or an option is not one this provider accepts
     */
    RdmaDevice open(DeviceName name, DeviceOptions options);
}

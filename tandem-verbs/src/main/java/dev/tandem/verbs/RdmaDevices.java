package dev.tandem.verbs;

import java.util.List;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * Opens any device by its name, {@code scheme://address?options} (see {@link DeviceName}): the
 * provider of the scheme is found through {@link ServiceLoader}, so code that opens devices this way
 * names no provider's classes. {@code RdmaDevices.open("iwarp://127.0.1.1?crc=off")}.
 */
public final class RdmaDevices {
    private RdmaDevices() {
    }

    /** Opens the device {@code name} names, with nothing given besides the name. */
    public static RdmaDevice open(String name) {
        return open(name, DeviceOptions.DEFAULT);
    }

    /**
     * Opens the device {@code name} names, with {@code options}.
     *
     * @throws InvalidArgumentException when the name is malformed, no provider on the class or module
     *                                  path has its scheme, or the provider refuses the address or an option
     */
    public static RdmaDevice open(String name, DeviceOptions options) {
        DeviceName parsed = DeviceName.parse(name);
        if (options == null) {
            throw new InvalidArgumentException("RdmaDevices.open: options are null; use DeviceOptions.DEFAULT");
        }
        return provider(parsed.scheme()).open(parsed, options);
    }

    /** The provider of {@code scheme}. */
    public static RdmaProvider provider(String scheme) {
        TreeMap<String, RdmaProvider> all = providers();
        RdmaProvider p = all.get(scheme);
        if (p == null) {
            throw new InvalidArgumentException("no provider for scheme '" + scheme + "'; " + (all.isEmpty()
                    ? "none is on the class path (add tandem-iwarp, for one)"
                    : "known: " + String.join(", ", all.keySet())));
        }
        return p;
    }

    /** The providers found, one per scheme, in scheme order. */
    public static List<RdmaProvider> available() {
        return List.copyOf(providers().values());
    }

    private static TreeMap<String, RdmaProvider> providers() {
        TreeMap<String, RdmaProvider> all = new TreeMap<>();
        for (RdmaProvider p : ServiceLoader.load(RdmaProvider.class, RdmaDevices.class.getClassLoader())) {
            all.putIfAbsent(p.scheme(), p);
        }
        return all;
    }
}

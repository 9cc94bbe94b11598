package dev.tandem.provider;

import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.DeviceOptions;
import dev.tandem.verbs.Listener;

import java.net.InetSocketAddress;

/** The thinnest device a provider can build on the kit: a {@link KitDevice} whose transport cannot listen. */
final class CoreOnlyDevice extends KitDevice {

    CoreOnlyDevice(String name, DeviceAttributes attributes, LeakMode leakMode, Transport transport) {
        super(name, attributes, DeviceOptions.DEFAULT, leakMode, System.getLogger("test." + name), device -> transport);
    }

    @Override
    public Listener listen(InetSocketAddress address, int backlog) {
        throw new UnsupportedOperationException("this device has no transport to listen on");
    }
}

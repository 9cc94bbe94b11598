package dev.tandem.provider;

import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventSubscription;
import dev.tandem.verbs.CompletionChannel;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.DeviceOptions;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.PortState;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.RdmaDevice;

import java.net.InetSocketAddress;
import java.time.Duration;

/** The thinnest device a provider can build on the kit: every verb forwarded to one {@link DeviceCore}. */
final class CoreOnlyDevice implements RdmaDevice {
    final DeviceCore core;

    CoreOnlyDevice(String name, DeviceAttributes attributes, LeakMode leakMode, Transport transport) {
        this.core = new DeviceCore(this, name, attributes, DeviceOptions.DEFAULT, leakMode, System.getLogger("test." + name), transport);
    }

    @Override
    public String name() {
        return core.name();
    }

    @Override
    public DeviceAttributes attributes() {
        return core.attributes();
    }

    @Override
    public PortState portState() {
        return core.portState();
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() {
        return core.allocateProtectionDomain();
    }

    @Override
    public CompletionQueue createCompletionQueue(int depth) {
        return core.createCompletionQueue(depth, null);
    }

    @Override
    public CompletionQueue createCompletionQueue(int depth, CompletionChannel channel) {
        return core.createCompletionQueue(depth, channel);
    }

    @Override
    public Listener listen(InetSocketAddress address, int backlog) {
        throw new UnsupportedOperationException("this device has no transport to listen on");
    }

    @Override
    public AsyncEvent pollAsyncEvent(Duration timeout) {
        return core.pollAsyncEvent(timeout);
    }

    @Override
    public AsyncEventSubscription subscribeAsyncEvents() {
        return core.subscribeAsyncEvents();
    }

    @Override
    public boolean isClosed() {
        return core.isClosed();
    }

    @Override
    public void close() {
        core.close();
    }
}

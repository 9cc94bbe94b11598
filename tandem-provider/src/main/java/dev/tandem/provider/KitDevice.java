package dev.tandem.provider;

import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventSubscription;
import dev.tandem.verbs.CompletionChannel;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.DeviceOptions;
import dev.tandem.verbs.PortState;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.ResetReport;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * A provider's device on the kit: every verb that is the same for every transport forwarded to one
 * {@link DeviceCore}, and {@link AdapterControl} (fatal cause, fault injection, reset) with it. A
 * provider extends it with what only it has: {@link #listen}, its own configuration and accessors.

 */
public abstract class KitDevice implements RdmaDevice, AdapterControl {
    /** The transport-neutral half of this adapter. */
    protected final DeviceCore core;
    /** What only the provider's transport does. */
    protected final Transport transport;

    /**
     * A device named {@code name} whose core uses the transport {@code transport} makes for it (the
     * transport may keep the device; it must not call it before the constructor returns).
     */
    @SuppressWarnings("this-escape") // the transport and the core keep the device; neither calls it while it is built
    protected KitDevice(String name, DeviceAttributes attributes, DeviceOptions options, LeakMode leakMode, System.Logger logger,
                        Function<KitDevice, Transport> transport) {
        this.transport = transport.apply(this);
        this.core = new DeviceCore(this, name, attributes, options, leakMode, logger, this.transport);
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

    /**
     * Closes the adapter: refuses new verb calls, waits (up to 1 s) for the threads inside verbs to
     * leave, closes every resource still open, and stops the transport; see {@link DeviceCore#close()}.
     */
    @Override
    public void close() {
        core.close();
    }

    @Override
    public Optional<String> fatalCause() {
        return core.fatalCause();
    }

    @Override
    public void injectFatalError(String cause) {
        core.injectFatalError(cause);
    }

    @Override
    public Optional<Path> lastFatalDump() {
        return core.lastFatalDump();
    }

    /** Brings a failed adapter back (or fails a working one first, so its owners let go): see {@link DeviceCore#reset}. */
    @Override
    public ResetReport reset(Duration ownerDeadline) {
        return core.reset(ownerDeadline);
    }
}

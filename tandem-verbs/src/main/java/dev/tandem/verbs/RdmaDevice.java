package dev.tandem.verbs;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * One adapter (RNIC). Everything else is created from here. Closing the device closes every
 * resource created from it; live QPs go to ERROR and flush first. Resources still open at that
 * point are leaks: a provider reports each one with the call site that created it, and in a strict
 * leak mode fails the close with {@link ResourceLeakException} after closing them.
 */
public interface RdmaDevice extends AutoCloseable {
    /** Adapter name, unique in the process (e.g. {@code iwarp0@127.0.1.1}). */
    String name();

    DeviceAttributes attributes();

    PortState portState();

    ProtectionDomain allocateProtectionDomain();

    /** A completion queue with room for {@code depth} completions. */
    CompletionQueue createCompletionQueue(int depth);

    /**
     * A completion queue with room for {@code depth} completions that reports its events, when armed
     * ({@link CompletionQueue#requestNotification(boolean)}), to {@code channel}: one thread can then
     * wait on several CQs, of this device and others.
     */
    CompletionQueue createCompletionQueue(int depth, CompletionChannel channel);

    /** Listens for connection requests on {@code address} (port 0 picks a free port). */
    Listener listen(InetSocketAddress address, int backlog);

    /**
     * Next async event of the application's queue, waiting up to {@code timeout}; null when none arrived
     * in time. Subscriptions ({@link #subscribeAsyncEvents()}) get their own copy of every event.
     */
    AsyncEvent pollAsyncEvent(Duration timeout);

    /**
     * A queue of its own that gets every async event raised from now on, whoever else takes events
     * (the application through {@link #pollAsyncEvent}, other subscribers): for layers that watch an
     * adapter (fail-over, monitoring) without stealing the application's events.
     */
    AsyncEventSubscription subscribeAsyncEvents();

    /** True once {@link #close()} has run. */
    boolean isClosed();

    @Override
    void close();
}

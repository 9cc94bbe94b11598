package dev.tandem.verbs;

import java.net.InetSocketAddress;
import java.time.Duration;

/** Listens for connection requests on one address of one adapter. Closing it wakes every waiter. */
public interface Listener extends AutoCloseable {
    InetSocketAddress localAddress();

    /**
     * Waits for the next connection request.
     *
     * @throws ConnectionTimeoutException if none arrives in time
     * @throws ListenerClosedException    if the listener is or gets closed
     */
    ConnectionRequest accept(Duration timeout);

    @Override
    void close();
}

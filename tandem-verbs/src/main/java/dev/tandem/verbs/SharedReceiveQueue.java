package dev.tandem.verbs;

/**
 * Receive buffers shared by several QPs of one PD. When armed with {@link #armLimit}, an
 * {@link AsyncEventType#SRQ_LIMIT_REACHED} event fires once the number of posted buffers drops
 * below the limit.
 */
public interface SharedReceiveQueue extends AutoCloseable {
    ProtectionDomain pd();

    int maxWr();

    int maxSge();

    void postReceive(ReceiveRequest request);

    /** Buffers currently posted. */
    int posted();

    /** Arms the limit event (one shot). */
    void armLimit(int limit);

    /**
     * Closes the queue; buffers still posted are dropped without completions.
     *
     * @throws ResourceInUseException while a queue pair created with it is open (close the queue pair
     *                                first); the queue stays open and keeps working
     */
    @Override
    void close();
}

package dev.tandem.provider;

/**
 * A resource the adapter's owner table, limits and close order know: what kind it is and its number
 * within the kind (QP number, STag, port, or a per-adapter sequence), as labels show it.
 */
public interface TrackedResource extends AutoCloseable {

    ResourceKind kind();

    /** Its number within its kind on its adapter. */
    long number();

    /** Closes it; a resource of an adapter closes without checked exceptions. */
    @Override
    void close();
}

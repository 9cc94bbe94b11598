package dev.tandem.failover;

/**
 * Closing what the layer held on an adapter: an adapter that failed may have closed it already, or
 * drops it on its reset, and the layer goes on either way; so a failure to close is not an error here.
 */
final class Quietly {
    private Quietly() {
    }

    /** Closes {@code c} (nothing when null), ignoring a failure to. */
    static void close(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // closed already by its failed adapter, or dropped by the adapter's reset
        }
    }
}

package dev.tandem.verbs;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The adapter's life cycle as a capability: why it failed, a fatal error injected on purpose (as a PCI
 * error would raise on a hardware RNIC), and a reset that brings it back. A provider's device
 * implements it where it can; callers ask with {@code device instanceof AdapterControl c}. A device
 * over several adapters (fail-over) resets and watches its adapters through it.
 */
public interface AdapterControl {
    /** Why the adapter failed, while it is failed (until a reset); empty while it works. */
    Optional<String> fatalCause();

    /**
     * Fails the adapter: every QP goes to ERROR and flushes its work, users get
     * {@link AsyncEventType#DEVICE_FATAL}, and new verb calls fail with
     * {@link DeviceUnavailableException} until {@link #reset(Duration)}.
     *
     * @param cause what to record as the cause, e.g. {@code "test: PCI error"}; not blank
     */
    void injectFatalError(String cause);

    /**
     * Brings a failed adapter back (or fails a working one first, so its owners let go): refuses new
     * verb calls, waits up to {@code ownerDeadline} for the owners to close their resources, closes
     * by force what rogue owners still hold, and takes calls again.
     */
    ResetReport reset(Duration ownerDeadline);

    /** The dump of the process's state written when the adapter last failed (before its work was flushed), if the provider wrote one. */
    default Optional<Path> lastFatalDump() {
        return Optional.empty();
    }
}

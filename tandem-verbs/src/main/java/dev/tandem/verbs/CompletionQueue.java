package dev.tandem.verbs;

import java.time.Duration;

/**
 * A completion queue. Polling never blocks and never allocates; waiting blocks with a timeout.
 * If the queue overflows, an {@link AsyncEventType#CQ_ERROR} event is raised and the QPs that
 * could not complete go to ERROR.
 */
public interface CompletionQueue extends AutoCloseable {
    int depth();

    /** Moves up to {@code out.length} completions into {@code out}; returns how many. */
    default int poll(WorkCompletion[] out) {
        return poll(out, 0, out.length);
    }

    /** Moves up to {@code max} completions into {@code out[offset..]}; returns how many. */
    int poll(WorkCompletion[] out, int offset, int max);

    /**
     * Blocks until at least one completion is available (then polls like {@link #poll}) or the
     * timeout expires (returns 0).
     */
    int await(WorkCompletion[] out, Duration timeout);

    /**
     * Waits for a completion event: with {@code solicitedOnly}, only for a received Send with the
     * solicited-event bit or a completion in error. Returns true if one arrived before the timeout
     * (the completions stay queued for {@link #poll}).
     */
    boolean awaitEvent(boolean solicitedOnly, Duration timeout);

    /**
     * Arms the queue to report its next completion event to its {@link CompletionChannel} once: any
     * completion, or with {@code solicitedOnly} a received Send with the solicited-event bit or a
     * completion in error. A queue that holds completions already when armed for any reports at once,
     * so arming and then polling misses nothing.
     *
     * @throws InvalidStateException when the queue was created without a channel
     */
    void requestNotification(boolean solicitedOnly);

    /**
     * Closes the queue; completions still queued are dropped.
     *
     * @throws ResourceInUseException while a queue pair created with it is open (close the queue pair
     *                                first); the queue stays open and keeps working
     */
    @Override
    void close();
}

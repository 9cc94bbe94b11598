package dev.tandem.provider;

import dev.tandem.verbs.QueuePairConfig;

import java.util.List;

/**
 * What a transport gives the kit's {@link DeviceCore}: its queue pairs, progress when the application
 * polls, and its part of the adapter's life cycle. Everything else an adapter is (PDs, regions, windows,
 * CQs, SRQs, STags, limits, owners, fatal errors and reset) the core does the same for every transport.
 */
public interface Transport {

    /**
     * A new queue pair of {@code pd} numbered {@code qpNumber}; the core has already taken its slot
     * against the adapter's limits and tracks it once returned.
     */
    KitQueuePair createQueuePair(KitProtectionDomain pd, QueuePairConfig config, int qpNumber);

    /** True when application threads that poll a CQ drive progress themselves when it is empty. */
    boolean progressOnPoll();

    /**
     * An application thread polled a CQ of this adapter (cheap: called on every poll). While threads
     * poll, the transport's own threads may leave the adapter to them: a poller runs {@link #progress()}
     * when it finds the CQ empty, and every few polls while it keeps finding completions, so the
     * inbound stream is read all the same.
     */
    void notePoll();

    /** One round of progress on the polling thread; the work it did (0 when another thread is at it). */
    int progress();

    /** A thread stops polling to block on a CQ or channel: the transport's own threads take over at once. */
    void pollerLeaving();

    /**
     * Stops progress (no transport thread touches the adapter's resources) for at most {@code nanos};
     * false when it could not. Pair a true result with {@link #releaseProgress()}.
     */
    boolean holdProgress(long nanos);

    void releaseProgress();

    /**
     * The adapter failed (a PCI error would freeze it): from now on no duty cycle places a byte, completes
     * anything or sends anything, and the call returns only once a cycle that was running has ended. Called
     * first, before the snapshot; {@link #restart()} (after the reset) lets progress run again. A transport
     * without threads of its own has nothing to freeze.
     */
    default void freeze() {
    }

    /**
     * The adapter failed: move every queue pair among {@code live} to ERROR (flushing its work) with
     * {@code cause}, and wake the transport's threads so they see it. Called once per failure, after
     * the snapshot and before DEVICE_FATAL is raised.
     */
    void adapterFailed(String cause, List<LiveResource> live);

    /** A reset released every resource: restart whatever transport thread died. */
    void restart();

    /**
     * The adapter closed and its resources are closed: stop serving it. {@code quiesced} is false when
     * threads stayed inside verbs (then counters a thread may still touch must stay mapped).
     */
    void stop(boolean quiesced);
}

package dev.tandem.verbs;

import java.util.function.IntPredicate;

/**
 * Where a device takes the STags of new regions and windows from, when the caller chooses them: a
 * node key table gives one region the same STag on every adapter of the node by handing each
 * adapter's registration the same value. Give one to a device with
 * {@link DeviceOptions#withStagSource(StagSource)}; without one, each device draws its own STags
 * (random per incarnation, never sequential).
 *
 * <p>A device calls it under its own lock, from the thread that registers or reregisters; a source
 * shared by several devices must be thread-safe.
 */
public interface StagSource {
    /**
     * The STag for the next region or window: {@code index << 8 | key}, with an index (24 bits, not
     * 0) for which {@code indexLive} is false on the asking device.
     *
     * @throws IllegalStateException when the source has no STag to give
     */
    int next(IntPredicate indexLive);

    /** The device gave {@code stag} back (deregistered, reregistered, closed). */
    void release(int stag);
}

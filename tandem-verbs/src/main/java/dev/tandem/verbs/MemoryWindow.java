package dev.tandem.verbs;

/**
 * A type-2 memory window: a remotely accessible slice of a region, bound to one QP by a
 * {@link WorkRequest.BindWindow} and made unusable again by a local or remote invalidate.
 */
public interface MemoryWindow extends AutoCloseable {
    ProtectionDomain pd();

    /** Current STag (index + key of the last bind). */
    int rkey();

    /** True while bound and not invalidated. */
    boolean isBound();

    @Override
    void close();
}

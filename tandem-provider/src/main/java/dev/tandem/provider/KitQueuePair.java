package dev.tandem.provider;

import dev.tandem.verbs.QueuePair;

/** A transport's queue pair as the kit tracks it: a verbs QP with its kind and number on its adapter. */
public interface KitQueuePair extends QueuePair, TrackedResource {

    @Override
    default ResourceKind kind() {
        return ResourceKind.QP;
    }

    @Override
    default long number() {
        return qpNumber();
    }
}

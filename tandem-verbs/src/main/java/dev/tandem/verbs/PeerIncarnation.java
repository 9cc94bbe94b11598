package dev.tandem.verbs;

/**
 * One life of a peer node as the node key table knows it ({@link NodeKeys#admit}): a connection set up
 * with it keeps it and asks {@link #isCurrent()} before placing each inbound frame.
 */
public interface PeerIncarnation {
    /** The peer node's name. */
    String node();

    /** The incarnation key the peer presented. */
    long key();

    /**
     * True while this is the node's latest life; false from the moment the node presented a newer key
     * (it restarted), so that work sent under this one is dropped. Cheap enough to ask per frame.
     */
    boolean isCurrent();
}

package dev.tandem.verbs;

/**
 * The node key table as an adapter sees it (restart-safe keys): who this node is, the incarnation
 * key it drew when it started, and the current incarnation of each Tandem peer node, learnt when a
 * connection is set up. An adapter given one ({@link DeviceOptions#withNodeKeys}) presents this
 * node's name and key to Tandem peers at connection set-up, refuses a peer that presents a key of an
 * earlier life, and drops, before placing a byte, every frame of a connection whose peer has
 * restarted since it was set up. A plain iWARP peer (Linux siw, say) presents nothing and connects
 * as it always did.
 *
 * <p>One table serves every adapter of a node, so implementations are thread-safe.
 */
public interface NodeKeys {
    /** This node's name: the same across restarts, so that peers recognise a restarted node by it. */
    String nodeName();

    /** This incarnation's key: drawn from {@link java.security.SecureRandom} when the node started; never 0. */
    long incarnation();

    /**
     * A Tandem peer presents {@code peerIncarnation} for {@code peerNode} at connection set-up. A key not
     * seen before becomes the node's current one (the node restarted: every earlier key of it stops
     * being current). Returns the peer's entry, which the connection keeps and asks before placing each
     * frame, or null when the key is one of the node's earlier lives: the adapter then refuses the
     * connection.
     */
    PeerIncarnation admit(String peerNode, long peerIncarnation);
}

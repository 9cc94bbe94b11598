package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.NodeKeyBlock;
import dev.tandem.provider.NodeKeyTable;
import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.NodeKeys;
import dev.tandem.verbs.PeerIncarnation;

/**
 * What an adapter opened with node keys ({@link dev.tandem.verbs.DeviceOptions#withNodeKeys}) does at
 * connection set-up (restart-safe keys): the {@link NodeKeyBlock} it presents (worked out once: a node's
 * name and key do not change while it lives), and admitting the block a peer presents into the node key
 * table, whose answer the connection keeps and asks before placing each inbound frame. An adapter without
 * node keys has none of this: it presents nothing and checks nothing.
 */
final class NodeKeyExchange {
    private final IwarpDevice device;
    private final NodeKeys keys;
    private final NodeKeyBlock own;

    private NodeKeyExchange(IwarpDevice device, NodeKeys keys, NodeKeyBlock own) {
        this.device = device;
        this.keys = keys;
        this.own = own;
    }

    /**
     * The block a node with {@code keys} presents, checked as the opener gave them.
     *
     * @throws InvalidArgumentException for a blank or too long node name, or key 0
     */
    static NodeKeyBlock blockOf(NodeKeys keys) {
        String name = NodeKeyTable.checkName(keys.nodeName());
        long key = keys.incarnation();
        if (key == 0) {
            throw new InvalidArgumentException("node keys of node " + name + " give incarnation key 0; an incarnation key is never 0");
        }
        return NodeKeyBlock.of(name, key);
    }

    /** The exchange of {@code device} with {@code keys} presenting {@code own} (from {@link #blockOf}). */
    static NodeKeyExchange of(IwarpDevice device, NodeKeys keys, NodeKeyBlock own) {
        return new NodeKeyExchange(device, keys, own);
    }

    /** The block this adapter presents in its Requests. */
    NodeKeyBlock own() {
        return own;
    }

    /** The block for a Reply to a Request that carried {@code requestBlock}: this adapter's, or none when the peer presented none. */
    NodeKeyBlock replyTo(NodeKeyBlock requestBlock) {
        return requestBlock == null ? null : own;
    }

    /**
     * Admits the life {@code peer} presents (from the peer at {@code remote}) into the node key table.
     *
     * @return the peer's life, which the connection keeps
     * @throws ConnectionException when the key is of an earlier life of that node (counted and recorded
     *                             once per cause in the error log): the set-up is refused
     */
    PeerIncarnation admit(NodeKeyBlock peer, Object remote) {
        PeerIncarnation life = keys.admit(peer.nodeName(), peer.incarnation());
        if (life != null) {
            return life;
        }
        device.ras().oldIncarnationSetupsRefused.incrementAtomic();
        String why = "the incarnation key " + String.format("0x%016x", peer.incarnation()) + " that node " + peer.nodeName()
                + " presented is of an earlier incarnation of " + peer.nodeName() + " (the node has restarted since and connected with a newer key)";
        device.recordError(remote, "refused a connection set-up: " + why);
        throw new ConnectionException("connection set-up with " + remote + " refused: " + why);
    }
}

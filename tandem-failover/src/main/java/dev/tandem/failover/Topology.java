package dev.tandem.failover;

/** How the adapters of the nodes are cabled: what paths a connection may take. */
public enum Topology {
    /** Through switches: any adapter reaches any adapter of the peer. */
    SWITCHED,
    /** Point to point: adapter k of a node is cabled only to adapter k of the peer. */
    SWITCHLESS
}

package dev.tandem.failover.chaos;

/** Nodes are numbered 1 (a) and 2 (b), as the last byte of their adapters' addresses. */
final class Nodes {
    static final int A = 1;
    static final int B = 2;

    private Nodes() {
    }

    static String name(int node) {
        return node == A ? "a" : "b";
    }

    static int other(int node) {
        return 3 - node;
    }
}

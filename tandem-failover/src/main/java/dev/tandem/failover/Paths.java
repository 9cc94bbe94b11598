package dev.tandem.failover;

import java.util.ArrayList;
import java.util.List;

/**
 * The paths of one connection and which two of them carry it: the {@link #send} path (this side's
 * Sends, Writes and Reads; the peer receives there) and the {@link #receive} path (where this side's
 * receives are posted, or, over a shared receive queue, a path ending at the SRQ's adapter; the peer
 * sends there). The two are the same path when the connection runs duplex, two paths when it runs as
 * two simplex ones. Path ids are shared by both sides ({@link #id}). The connection's lock guards
 * changes; completions read {@link #get} without it.
 */
final class Paths {
    /** Adapters a side may have, so {@code MAX * MAX} path ids. */
    static final int MAX = Hello.MAX_ADAPTERS;
    /** No path (not set up, or none chosen yet). */
    static final int NONE = -1;

    private final Path[] byId = new Path[MAX * MAX];
    /** Every path made so far, by id: a new list at each change (readers take it without the lock, every few ms). */
    private volatile List<Path> made = List.of();
    /** This side connected (path ids count its adapters first), else it accepted. */
    private boolean connecting;
    /** The path this side's Sends take (the peer's receive path), {@link #NONE} before set-up. */
    volatile int send = NONE;
    /** The path where the peer's Sends arrive (this side's receives), {@link #NONE} before set-up. */
    volatile int receive = NONE;

    /** The id both sides give the path between the connecting side's adapter {@code c} and the accepting side's {@code s}. */
    static int id(int c, int s) {
        return c * MAX + s;
    }

    /** The connecting side's adapter of path {@code id}. */
    static int connectingEnd(int id) {
        return id / MAX;
    }

    /** The accepting side's adapter of path {@code id}. */
    static int acceptingEnd(int id) {
        return id % MAX;
    }

    /** This side connected (true) or accepted: which end of a path id is its own. */
    void role(boolean connects) {
        this.connecting = connects;
    }

    boolean connecting() {
        return connecting;
    }

    /** The id of the path from this side's adapter {@code local} to the peer's adapter {@code remote}. */
    int idOf(int local, int remote) {
        return connecting ? id(local, remote) : id(remote, local);
    }

    /** This side's adapter of path {@code id}. */
    int localEnd(int id) {
        return connecting ? connectingEnd(id) : acceptingEnd(id);
    }

    /** The peer's adapter of path {@code id}. */
    int remoteEnd(int id) {
        return connecting ? acceptingEnd(id) : connectingEnd(id);
    }

    /** Path {@code id}, or null when it was never set up. */
    Path get(int id) {
        return id < 0 || id >= byId.length ? null : byId[id];
    }

    /** Path {@code id}, made (not set up) when it did not exist. Lock held. */
    Path ensure(int id) {
        Path p = byId[id];
        if (p == null) {
            p = new Path(id, localEnd(id), remoteEnd(id));
            byId[id] = p;
            remake();
        }
        return p;
    }

    /** The first path, set up before the peer's adapter was known, is path {@code id} to the peer's {@code remote}. Lock held. */
    void register(Path first, int id, int remote) {
        first.id = id;
        first.remote = remote;
        byId[id] = first;
        remake();
    }

    /** Every path made so far, by id. */
    List<Path> all() {
        return made;
    }

    private void remake() {
        List<Path> l = new ArrayList<>(4);
        for (Path p : byId) {
            if (p != null) {
                l.add(p);
            }
        }
        made = List.copyOf(l);
    }

    /** The paths whose own end is adapter {@code k}. */
    List<Path> on(int k) {
        List<Path> l = new ArrayList<>(2);
        for (Path p : byId) {
            if (p != null && p.local == k) {
                l.add(p);
            }
        }
        return l;
    }

    /** The path whose QP is adapter {@code k}'s QP {@code qpNumber}, or null. */
    Path byQp(int k, int qpNumber) {
        for (Path p : byId) {
            if (p != null && p.local == k) {
                var q = p.qp;
                if (q != null && q.qpNumber() == qpNumber) {
                    return p;
                }
            }
        }
        return null;
    }

    /** How many paths are set up and not failed. */
    int live() {
        int n = 0;
        for (Path p : byId) {
            if (p != null && p.up) {
                n++;
            }
        }
        return n;
    }

    /** The send path, or null. */
    Path sendPath() {
        return get(send);
    }

    /** The receive path, or null. */
    Path receivePath() {
        return get(receive);
    }

    /** Forgets every path (the QP was reset); their QPs must be closed already. Lock held. */
    void clear() {
        java.util.Arrays.fill(byId, null);
        made = List.of();
        send = NONE;
        receive = NONE;
    }

    /**
     * The paths a connection between {@code connectingAdapters} and {@code acceptingAdapters} adapters
     * has: every pair when switched (cross paths: the connection survives any fault that leaves an adapter
     * on each side), one per cable ({@code k} to {@code k}) when switchless.
     */
    static List<Integer> expected(Topology topology, int connectingAdapters, int acceptingAdapters) {
        List<Integer> l = new ArrayList<>();
        for (int c = 0; c < connectingAdapters; c++) {
            for (int s = 0; s < acceptingAdapters; s++) {
                if (topology == Topology.SWITCHED || c == s) {
                    l.add(id(c, s));
                }
            }
        }
        return l;
    }

    /** A path id as people read it. */
    String describe(int id) {
        return id < 0 ? "none" : "path " + id + " (adapter " + localEnd(id) + " to the peer's adapter " + remoteEnd(id) + ")";
    }
}

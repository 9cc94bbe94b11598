package dev.tandem.provider;

import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.NodeKeys;
import dev.tandem.verbs.PeerIncarnation;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.StagSource;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.IntPredicate;

/**
 * The node key table (restart-safe keys): one per node, shared by all of its adapters. It draws this
 * incarnation's key and every STag of the node from generators seeded from {@link SecureRandom} when
 * the node starts, so a restarted node issues neither the key nor the STags of its earlier life in the
 * same order; it maps each STag index to the registrations the node's adapters hold under it; and it
 * holds each peer node's current incarnation key, learnt at connection set-up.
 *
 * <p>One STag on every adapter: {@link #sameStag(Runnable)} draws one STag and answers every request
 * the calling thread makes meanwhile with it, so a layer over several adapters (fail-over) registers a
 * region on each of them under one value. Outside it each request draws a fresh STag, an index no
 * adapter of the node holds.
 *
 * <p>Peers: {@link #admit} keeps, per peer node, its current key and the last {@value #RETIRED_KEPT}
 * keys it had before, so that a connection presenting a key of an earlier life is refused and
 * connections set up under it see their entry stop being current.
 */
public final class NodeKeyTable implements NodeKeys, StagSource {
    /** Longest node name, in UTF-8 bytes (it travels in connection set-up). */
    public static final int MAX_NAME_BYTES = 64;
    /** Earlier keys remembered per peer node. */
    public static final int RETIRED_KEPT = 64;

    private final String nodeName;
    private final long incarnation;
    /** Where the node's STags come from: a {@link PermutedStagSource} of this incarnation, or the opener's. */
    private final StagSource stags;
    /** Where the STags of a layer's own regions come from ({@link #sameStag(Runnable, boolean)}): always this incarnation's. */
    private final PermutedStagSource own;
    /** STag index → registrations the node's adapters hold under it (0 while {@link #sameStag} has drawn it and none has yet). */
    private final Map<Integer, Integer> held = new HashMap<>();
    /** Indices of {@link #held} drawn from {@link #own}, which take their STags back. */
    private final java.util.Set<Integer> ownIndices = new java.util.HashSet<>();
    private final ThreadLocal<int[]> pinned = new ThreadLocal<>();
    private final Map<String, PeerLives> peers = new HashMap<>();
    private long refusedOldKeys;

    /** The table of a node that starts now: its key and STag generator seeded from {@link SecureRandom}. */
    public NodeKeyTable(String nodeName) {
        this(nodeName, new SecureRandom());
    }

    /** The table of a node whose key and STags come from {@code random} (tests pass a seeded one). */
    public NodeKeyTable(String nodeName, Random random) {
        this(nodeName, random, new PermutedStagSource(random));
    }

    /**
     * The table of a node that starts now, whose STags come from {@code generator} (an opener's own
     * source) instead of one seeded here; the incarnation key is still drawn from {@link SecureRandom}.
     */
    public NodeKeyTable(String nodeName, StagSource generator) {
        this(nodeName, new SecureRandom(), generator);
    }

    private NodeKeyTable(String nodeName, Random random, StagSource generator) {
        this.nodeName = checkName(nodeName);
        long key;
        do {
            key = random.nextLong();
        } while (key == 0);
        this.incarnation = key;
        this.stags = generator;
        this.own = generator instanceof PermutedStagSource p ? p : new PermutedStagSource(random);
    }

    /**
     * Checks a node name: not blank, at most {@value #MAX_NAME_BYTES} bytes of UTF-8.
     *
     * @throws InvalidArgumentException saying what is wrong
     */
    public static String checkName(String name) {
        if (name == null || name.isBlank()) {
            throw new InvalidArgumentException("node name is blank; give each node a name that stays the same across restarts, e.g. its host name");
        }
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_NAME_BYTES) {
            throw new InvalidArgumentException("node name '" + name + "' is " + bytes + " bytes of UTF-8; at most " + MAX_NAME_BYTES);
        }
        return name;
    }

    @Override
    public String nodeName() {
        return nodeName;
    }

    @Override
    public long incarnation() {
        return incarnation;
    }

    // --- STags -------------------------------------------------------------------------------

    /**
     * Runs {@code registrations} with every STag request this thread makes meanwhile answered by one
     * STag, drawn now, and returns it: each adapter that registers in there holds the region under that
     * value. An adapter that asks while it holds the index already is refused ({@link InvalidStateException}).
     */
    public int sameStag(Runnable registrations) {
        return sameStag(registrations, false);
    }

    /**
     * {@link #sameStag(Runnable)}, for a region of the layer's own when {@code internal}: its STag comes
     * from this incarnation's generator even when the opener gave one, so the opener's source names
     * only the application's regions.
     */
    public int sameStag(Runnable registrations, boolean internal) {
        if (pinned.get() != null) {
            throw new IllegalStateException("sameStag is already running on this thread (STag " + Integer.toHexString(pinned.get()[0]) + ")");
        }
        int stag;
        synchronized (this) {
            stag = draw(internal ? own : stags, i -> false);
            held.put(stag >>> 8, 0);
            if (internal && own != stags) {
                ownIndices.add(stag >>> 8);
            }
        }
        pinned.set(new int[] {stag});
        try {
            registrations.run();
        } finally {
            pinned.remove();
            synchronized (this) {
                if (held.get(stag >>> 8) == 0) {
                    held.remove(stag >>> 8);
                    (ownIndices.remove(stag >>> 8) ? own : stags).release(stag);
                }
            }
        }
        return stag;
    }

    /**
     * Runs {@code registration} with every STag request this thread makes meanwhile answered by
     * {@code stag}, which the node holds already (on its other adapters): an adapter that comes back
     * after a reset registers a region again under the value its peers know.
     *
     * @throws IllegalStateException when the node holds no STag with that index
     */
    public void again(int stag, Runnable registration) {
        synchronized (this) {
            if (!held.containsKey(stag >>> 8)) {
                throw new IllegalStateException("STag " + STag.format(stag) + " is not held on node " + nodeName);
            }
        }
        if (pinned.get() != null) {
            throw new IllegalStateException("again: another STag is pinned on this thread");
        }
        pinned.set(new int[] {stag});
        try {
            registration.run();
        } finally {
            pinned.remove();
        }
    }

    @Override
    public synchronized int next(IntPredicate indexLive) {
        int[] pin = pinned.get();
        if (pin != null) {
            int index = pin[0] >>> 8;
            if (indexLive.test(index)) {
                throw new InvalidStateException("STag index 0x" + Integer.toHexString(index)
                        + " is live on the asking adapter already; the node key table drew it as free on every adapter of node " + nodeName);
            }
            held.merge(index, 1, Integer::sum);
            return pin[0];
        }
        int stag = draw(stags, indexLive);
        held.put(stag >>> 8, 1);
        return stag;
    }

    @Override
    public synchronized void release(int stag) {
        int index = stag >>> 8;
        Integer n = held.get(index);
        if (n == null) {
            return;
        }
        if (n > 1 || pinnedHere(index)) {
            held.put(index, n - 1);
            return;
        }
        held.remove(index);
        (ownIndices.remove(index) ? own : stags).release(stag);
    }

    /** STag indices the node's adapters hold now (for dumps and tests). */
    public synchronized int heldIndices() {
        return held.size();
    }

    private boolean pinnedHere(int index) {
        int[] pin = pinned.get();
        return pin != null && pin[0] >>> 8 == index;
    }

    private int draw(StagSource from, IntPredicate indexLive) {
        int stag = from.next(i -> held.containsKey(i) || indexLive.test(i));
        int index = stag >>> 8;
        if (index == 0 || held.containsKey(index) || indexLive.test(index)) {
            throw new InvalidStateException("the STag source gave " + STag.format(stag) + ", whose index is "
                    + (index == 0 ? "0 (never valid)" : "live on an adapter of node " + nodeName + " already")
                    + "; a source must give a free, non-zero index");
        }
        return stag;
    }

    // --- peers -------------------------------------------------------------------------------

    @Override
    public synchronized PeerIncarnation admit(String peerNode, long peerIncarnation) {
        checkName(peerNode);
        if (peerIncarnation == 0) {
            throw new InvalidArgumentException("admit: incarnation key 0 from node " + peerNode + " is not a key (keys are never 0)");
        }
        PeerLives lives = peers.computeIfAbsent(peerNode, n -> new PeerLives());
        if (lives.current != null && lives.current.key == peerIncarnation) {
            return lives.current;
        }
        if (lives.retired.contains(peerIncarnation)) {
            refusedOldKeys++;
            return null;
        }
        if (lives.current != null) {
            lives.current.current = false;
            lives.retired.addLast(lives.current.key);
            if (lives.retired.size() > RETIRED_KEPT) {
                lives.retired.removeFirst();
            }
        }
        lives.current = new Life(peerNode, peerIncarnation);
        return lives.current;
    }

    /** The current key of {@code peerNode}, or 0 when no connection has presented one. */
    public synchronized long currentKeyOf(String peerNode) {
        PeerLives lives = peers.get(peerNode);
        return lives == null || lives.current == null ? 0 : lives.current.key;
    }

    /** How many set-ups presented a key of a peer's earlier life (each refused). */
    public synchronized long refusedOldKeys() {
        return refusedOldKeys;
    }

    @Override
    public String toString() {
        return "NodeKeyTable[" + nodeName + ", incarnation " + Long.toHexString(incarnation) + "]";
    }

    /** The lives of one peer node. */
    private static final class PeerLives {
        Life current;
        final ArrayDeque<Long> retired = new ArrayDeque<>();
    }

    /** One life of a peer: current until the node presents a newer key. */
    private static final class Life implements PeerIncarnation {
        private final String node;
        private final long key;
        private volatile boolean current = true;

        Life(String node, long key) {
            this.node = node;
            this.key = key;
        }

        @Override
        public String node() {
            return node;
        }

        @Override
        public long key() {
            return key;
        }

        @Override
        public boolean isCurrent() {
            return current;
        }

        @Override
        public String toString() {
            return node + "/" + Long.toHexString(key) + (current ? "" : " (earlier life)");
        }
    }
}

package dev.tandem.failover;

import java.security.SecureRandom;
import java.util.HashSet;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * The session numbers of one device's connections: what a peer writes into the fail-over header of
 * every Send to that connection, so that the buffers of a shared receive queue tell their connections
 * apart. Each open QP holds a number no other open QP of the device holds (drawn at random, never 0),
 * so two connections on one SRQ can never be taken for each other.
 */
final class Sessions {
    private final IntSupplier random;
    private final Set<Integer> taken = new HashSet<>();

    Sessions() {
        this(new SecureRandom()::nextInt);
    }

    /** Numbers drawn from {@code random} (tests script it). */
    Sessions(IntSupplier random) {
        this.random = random;
    }

    /** A number no open QP of the device holds. */
    synchronized int take() {
        while (true) {
            int n = random.getAsInt();
            if (n != 0 && taken.add(n)) {
                return n;
            }
        }
    }

    /** The QP that held {@code n} closed. */
    synchronized void giveBack(int n) {
        taken.remove(n);
    }

    /** Numbers held now. */
    synchronized int held() {
        return taken.size();
    }
}

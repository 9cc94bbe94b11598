package dev.tandem.ras;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * The type ids providers stamp on their RAS counters, with the names the tools show and accept
 * ({@code tandem stat --type qp}): one per kind of owner, so a reader can select, say, every CQ's
 * counters without knowing the numbers.
 */
public enum CounterType {
    ADAPTER(1),
    QP(2),
    TERMINATE(3),
    ENGINE(4),
    CQ(5),
    SRQ(6),
    MR(7),
    /** A fail-over device's own counters: fail-overs per cause, work moved, pauses ({@code tandem-failover}). */
    FAILOVER(8);

    private final int id;

    CounterType(int id) {
        this.id = id;
    }

    /** The id stored in the counter's metadata. */
    public int id() {
        return id;
    }

    /** The lower-case name, e.g. {@code qp}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The type with this id, if a provider uses it. */
    public static Optional<CounterType> of(int id) {
        return Arrays.stream(values()).filter(t -> t.id == id).findFirst();
    }

    /** The type called {@code name} (any case), if there is one. */
    public static Optional<CounterType> named(String name) {
        return Arrays.stream(values()).filter(t -> t.label().equalsIgnoreCase(name)).findFirst();
    }
}

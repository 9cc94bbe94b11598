package dev.tandem.failover;

/**
 * Message ids: each direction of a connection counts its Sends from 1, skips 0 when the count wraps (0
 * means "none": no Send, nothing received yet), and ids compare as serial numbers (RFC 1982): an id is
 * after another when it lies less than half the id space ahead. What is compared is always a window of
 * outstanding work apart, far less than that.
 */
final class MessageIds {
    private MessageIds() {
    }

    /** The id of the Send after {@code id} (after 0, "none", comes 1). */
    static int next(int id) {
        int n = id + 1;
        return n == 0 ? 1 : n;
    }

    /** Whether id {@code a} comes after {@code b}; an id comes after 0 ("none"), and 0 after nothing. */
    static boolean after(int a, int b) {
        if (a == 0) {
            return false;
        }
        return b == 0 || a - b > 0;
    }

    /** The later of two ids (0, "none", when both are). */
    static int later(int a, int b) {
        return after(a, b) ? a : b;
    }
}

package dev.tandem.provider;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many queue pairs use a completion queue or shared receive queue. Closing succeeds only when
 * none does, and a closed queue takes no new user: the close and a concurrent QP create cannot both
 * win (one compare-and-set decides).
 */
public final class UseCount {
    private static final int CLOSED = -1;
    private final AtomicInteger users = new AtomicInteger();

    /** Open, with no users. */
    public UseCount() {
    }

    /** Adds a user; false when the queue is already closed. */
    public boolean attach() {
        while (true) {
            int n = users.get();
            if (n == CLOSED) {
                return false;
            }
            if (users.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Removes a user added by {@link #attach}. */
    public void detach() {
        users.updateAndGet(n -> n > 0 ? n - 1 : n);
    }

    /** Marks the queue closed if nobody uses it (or it was closed) and returns 0; otherwise returns the number of users. */
    public int close() {
        while (true) {
            int n = users.get();
            if (n != 0) {
                return Math.max(0, n);
            }
            if (users.compareAndSet(0, CLOSED)) {
                return 0;
            }
        }
    }

    /** Users now (0 once closed). */
    public int users() {
        return Math.max(0, users.get());
    }
}

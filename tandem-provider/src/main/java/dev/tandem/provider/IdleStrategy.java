package dev.tandem.provider;

/**
 * What an engine thread does after a duty cycle: nothing when there was work, else spin, yield or
 * wait. Waiting is delegated to a {@link Waiter} (the engine waits on its sockets' readiness, so
 * data arriving ends the wait at once).
 */
public abstract sealed class IdleStrategy permits IdleStrategy.BusySpin, IdleStrategy.Backoff, IdleStrategy.Sleep {
    /** Blocks the engine thread for at most {@code nanos}, or less when there is something to do. */
    public interface Waiter {
        void await(long nanos);
    }

    IdleStrategy() {
    }

    /** Called after every duty cycle with the work it did. */
    public abstract void idle(int work, Waiter waiter);

    public static IdleStrategy of(IdleStrategyKind kind) {
        return switch (kind) {
            case BUSY_SPIN -> new BusySpin();
            case BACKOFF -> new Backoff(20, 10, 1_000, 1_000_000);
            case SLEEP -> new Sleep(1_000_000);
        };
    }

    public static final class BusySpin extends IdleStrategy {
        /** Spins between duty cycles: the lowest latency, one core spent per engine thread. */
        public BusySpin() {
        }

        @Override
        public void idle(int work, Waiter waiter) {
            if (work == 0) {
                Thread.onSpinWait();
            }
        }
    }

    /** Aeron's back-off: spin, then yield, then wait with the time doubling up to a maximum. */
    public static final class Backoff extends IdleStrategy {
        private final int maxSpins;
        private final int maxYields;
        private final long minWaitNanos;
        private final long maxWaitNanos;
        private int spins;
        private int yields;
        private long waitNanos;

        public Backoff(int maxSpins, int maxYields, long minWaitNanos, long maxWaitNanos) {
            this.maxSpins = maxSpins;
            this.maxYields = maxYields;
            this.minWaitNanos = minWaitNanos;
            this.maxWaitNanos = maxWaitNanos;
            this.waitNanos = minWaitNanos;
        }

        @Override
        public void idle(int work, Waiter waiter) {
            if (work > 0) {
                spins = 0;
                yields = 0;
                waitNanos = minWaitNanos;
            } else if (spins < maxSpins) {
                spins++;
                Thread.onSpinWait();
            } else if (yields < maxYields) {
                yields++;
                Thread.yield();
            } else {
                waiter.await(waitNanos);
                waitNanos = Math.min(waitNanos << 1, maxWaitNanos);
            }
        }
    }

    public static final class Sleep extends IdleStrategy {
        private final long nanos;

        public Sleep(long nanos) {
            this.nanos = nanos;
        }

        @Override
        public void idle(int work, Waiter waiter) {
            if (work == 0) {
                waiter.await(nanos);
            }
        }
    }
}

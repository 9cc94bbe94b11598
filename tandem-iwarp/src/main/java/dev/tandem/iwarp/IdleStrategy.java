package dev.tandem.iwarp;

import java.util.concurrent.locks.LockSupport;

/** What an engine thread does after a duty cycle: nothing when there was work, else spin, yield or park. */
abstract sealed class IdleStrategy permits IdleStrategy.BusySpin, IdleStrategy.Backoff, IdleStrategy.Sleep {
    /** Called after every duty cycle with the work it did. */
    abstract void idle(int work);

    static IdleStrategy of(IdleStrategyKind kind) {
        return switch (kind) {
            case BUSY_SPIN -> new BusySpin();
            case BACKOFF -> new Backoff(20, 10, 1_000, 1_000_000);
            case SLEEP -> new Sleep(1_000_000);
        };
    }

    static final class BusySpin extends IdleStrategy {
        @Override
        void idle(int work) {
            if (work == 0) {
                Thread.onSpinWait();
            }
        }
    }

    /** Aeron's back-off: spin, then yield, then park with the park time doubling up to a maximum. */
    static final class Backoff extends IdleStrategy {
        private final int maxSpins;
        private final int maxYields;
        private final long minParkNanos;
        private final long maxParkNanos;
        private int spins;
        private int yields;
        private long parkNanos;

        Backoff(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos) {
            this.maxSpins = maxSpins;
            this.maxYields = maxYields;
            this.minParkNanos = minParkNanos;
            this.maxParkNanos = maxParkNanos;
            this.parkNanos = minParkNanos;
        }

        @Override
        void idle(int work) {
            if (work > 0) {
                spins = 0;
                yields = 0;
                parkNanos = minParkNanos;
            } else if (spins < maxSpins) {
                spins++;
                Thread.onSpinWait();
            } else if (yields < maxYields) {
                yields++;
                Thread.yield();
            } else {
                LockSupport.parkNanos(parkNanos);
                parkNanos = Math.min(parkNanos << 1, maxParkNanos);
            }
        }
    }

    static final class Sleep extends IdleStrategy {
        private final long nanos;

        Sleep(long nanos) {
            this.nanos = nanos;
        }

        @Override
        void idle(int work) {
            if (work == 0) {
                LockSupport.parkNanos(nanos);
            }
        }
    }
}

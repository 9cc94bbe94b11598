package dev.tandem.tools.perf;

import java.time.Duration;

/**
 * How long part of a phase runs: a number of iterations (perftest's {@code -n}), or a time (its
 * {@code -D}). A measured loop asks {@link #goOn} before each iteration; neither kind allocates.
 */
public sealed interface Span {
    /**
     * Whether another iteration starts.
     *
     * @param done         iterations done so far in this part
     * @param elapsedNanos time since this part began (as last read by the loop)
     */
    boolean goOn(long done, long elapsedNanos);

    static Span iterations(long count) {
        return new Iterations(count);
    }

    static Span of(Duration length) {
        return new Time(length.toNanos());
    }

    /** A fixed number of iterations. */
    record Iterations(long count) implements Span {
        public Iterations {
            if (count < 0) {
                throw new IllegalArgumentException("a span of " + count + " iterations: give 0 or more");
            }
        }

        @Override
        public boolean goOn(long done, long elapsedNanos) {
            return done < count;
        }

        @Override
        public String toString() {
            return count + " iterations";
        }
    }

    /** As many iterations as start within {@code nanos}. */
    record Time(long nanos) implements Span {
        public Time {
            if (nanos <= 0) {
                throw new IllegalArgumentException("a span of " + nanos + " ns: give a positive time");
            }
        }

        @Override
        public boolean goOn(long done, long elapsedNanos) {
            return elapsedNanos < nanos;
        }

        public Duration length() {
            return Duration.ofNanos(nanos);
        }

        @Override
        public String toString() {
            return length().toString();
        }
    }
}

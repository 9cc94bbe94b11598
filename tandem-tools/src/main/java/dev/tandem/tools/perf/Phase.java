package dev.tandem.tools.perf;

/** One size of a run: {@code warmup} iterations not measured, then {@code iterations} measured ones. */
public record Phase(int size, int iterations, int warmup) {
    public Phase {
        if (size < 1 || iterations < 1 || warmup < 0) {
            throw new IllegalArgumentException("phase needs size >= 1, iterations >= 1, warmup >= 0, got "
                    + size + ", " + iterations + ", " + warmup);
        }
    }

    public int total() {
        return warmup + iterations;
    }
}

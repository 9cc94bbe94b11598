package dev.tandem.tools.perf;

/** A benchmark could not run or finish: the message says what went wrong and where. */
public final class PerfException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PerfException(String message) {
        super(message);
    }

    public PerfException(String message, Throwable cause) {
        super(message, cause);
    }
}

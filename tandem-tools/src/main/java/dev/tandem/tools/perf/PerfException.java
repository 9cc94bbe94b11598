package dev.tandem.tools.perf;

/**
 * A benchmark could not run or finish: the message says what went wrong and where. A
 * {@link ConnectionLostException} is the one kind a caller tells apart: often the consequence of
 * the other side's failure rather than its cause.
 */
public sealed class PerfException extends RuntimeException permits ConnectionLostException {
    private static final long serialVersionUID = 1L;

    public PerfException(String message) {
        super(message);
    }

    public PerfException(String message, Throwable cause) {
        super(message, cause);
    }
}

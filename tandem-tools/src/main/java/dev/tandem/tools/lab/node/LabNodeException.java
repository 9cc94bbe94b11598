package dev.tandem.tools.lab.node;

/** A lab node did not do what was expected of it in time, or ended; the message says what and what it said. */
public final class LabNodeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** An exception that says {@code message}. */
    public LabNodeException(String message) {
        super(message);
    }
}

package dev.tandem.verbs;

/** The resource is in a state that does not allow the call, e.g. posting a send to a queue pair that is not in RTS. */
public class InvalidStateException extends RdmaException {
    private static final long serialVersionUID = 1L;

    public InvalidStateException(String message) {
        super(message);
    }

    public InvalidStateException(String message, Throwable cause) {
        super(message, cause);
    }
}

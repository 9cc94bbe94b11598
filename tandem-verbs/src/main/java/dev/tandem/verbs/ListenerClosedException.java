package dev.tandem.verbs;

/** The listener was closed while a caller waited on it, or before the call. */
public class ListenerClosedException extends RdmaException {
    private static final long serialVersionUID = 1L;

    public ListenerClosedException(String message) {
        super(message);
    }

    public ListenerClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}

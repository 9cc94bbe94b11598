package dev.tandem.verbs;

/** The resource (or its device) has been closed; nothing more can be done with it. */
public class ResourceClosedException extends RdmaException {
    private static final long serialVersionUID = 1L;

    public ResourceClosedException(String message) {
        super(message);
    }

    public ResourceClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}

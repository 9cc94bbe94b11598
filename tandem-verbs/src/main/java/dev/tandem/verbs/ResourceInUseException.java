package dev.tandem.verbs;

/**
 * A resource cannot be closed while others still use it, e.g. a completion queue or shared receive
 * queue that a queue pair was created with (Linux answers {@code EBUSY}). Close the users first; the
 * resource is left open and keeps working.
 */
public class ResourceInUseException extends InvalidStateException {
    private static final long serialVersionUID = 1L;

    public ResourceInUseException(String message) {
        super(message);
    }
}

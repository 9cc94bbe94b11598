package dev.tandem.verbs;

/** A work queue or completion queue has no free slot: post fewer requests or poll completions first. */
public class QueueFullException extends RdmaException {
    private static final long serialVersionUID = 1L;

    public QueueFullException(String message) {
        super(message);
    }

    public QueueFullException(String message, Throwable cause) {
        super(message, cause);
    }
}

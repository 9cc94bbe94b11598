package dev.tandem.verbs;

/**
 * The engine found an error on this resource in the background (a Terminate from the peer, a
 * protection fault, a lost connection, an overflowed CQ, a fatal adapter error) and raised it as an
 * async event. The next verb call on the resource reports it once through this exception, so a
 * program that never reads async events still learns why its resource stopped working.
 */
public class AsyncErrorException extends RdmaException {
    private static final long serialVersionUID = 1L;
    private final AsyncEventType type;

    public AsyncErrorException(AsyncEventType type, String message) {
        super(message);
        this.type = type;
    }

    /** The async event the engine raised for the same error. */
    public AsyncEventType type() {
        return type;
    }
}

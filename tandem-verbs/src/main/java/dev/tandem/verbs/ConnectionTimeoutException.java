package dev.tandem.verbs;

/** A connection management wait (connect, accept, reply) ran out of time. */
public class ConnectionTimeoutException extends ConnectionException {
    private static final long serialVersionUID = 1L;

    public ConnectionTimeoutException(String message) {
        super(message);
    }

    public ConnectionTimeoutException(String message, Throwable cause) {
        super(message, cause);
    }
}

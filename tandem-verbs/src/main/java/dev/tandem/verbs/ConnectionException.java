package dev.tandem.verbs;

/** A connection could not be set up or was lost (socket failure, malformed MPA exchange). */
public class ConnectionException extends RdmaException {
    private static final long serialVersionUID = 1L;

    public ConnectionException(String message) {
        super(message);
    }

    public ConnectionException(String message, Throwable cause) {
        super(message, cause);
    }
}

package dev.tandem.verbs;

/**
 * Base of every error a verb raises. Unchecked, like {@link IllegalArgumentException}: each
 * subclass names one kind of mistake and its message says what was wrong and what is allowed.
 */
public class RdmaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RdmaException(String message) {
        super(message);
    }

    public RdmaException(String message, Throwable cause) {
        super(message, cause);
    }
}

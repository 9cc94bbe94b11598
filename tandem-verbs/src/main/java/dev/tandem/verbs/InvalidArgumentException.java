package dev.tandem.verbs;

/** An argument of a verb is out of range or inconsistent (too many SGEs, a negative length, an unknown access flag...). */
public class InvalidArgumentException extends RdmaException {
    private static final long serialVersionUID = 1L;

    public InvalidArgumentException(String message) {
        super(message);
    }

    public InvalidArgumentException(String message, Throwable cause) {
        super(message, cause);
    }
}

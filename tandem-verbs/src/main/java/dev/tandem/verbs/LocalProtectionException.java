package dev.tandem.verbs;

/** A local scatter/gather entry is not allowed: outside its region, a region of another protection domain, or missing an access right. */
public class LocalProtectionException extends RdmaException {
    private static final long serialVersionUID = 1L;

    public LocalProtectionException(String message) {
        super(message);
    }

    public LocalProtectionException(String message, Throwable cause) {
        super(message, cause);
    }
}

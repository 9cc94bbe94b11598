package dev.tandem.verbs;

/**
 * A device was closed while resources created on it were still open, and the device runs in strict
 * leak mode. The resources have been closed (nothing stays held); the message names each one and the
 * call site that created it, so a test suite can prove it leaks nothing.
 */
public class ResourceLeakException extends RdmaException {
    private static final long serialVersionUID = 1L;

    public ResourceLeakException(String message) {
        super(message);
    }
}

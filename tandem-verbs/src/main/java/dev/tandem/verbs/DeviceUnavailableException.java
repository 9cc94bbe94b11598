package dev.tandem.verbs;

/**
 * The adapter cannot take the call right now: it failed (a fatal adapter error; its QPs are in ERROR
 * and its work was flushed) or it is being reset. Unlike {@link ResourceClosedException} this is
 * temporary: once the adapter is reset, new resources can be created on it.
 */
public class DeviceUnavailableException extends RdmaException {
    private static final long serialVersionUID = 1L;

    public DeviceUnavailableException(String message) {
        super(message);
    }
}

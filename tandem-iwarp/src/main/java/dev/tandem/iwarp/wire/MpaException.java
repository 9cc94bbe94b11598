package dev.tandem.iwarp.wire;

/**
 * A malformed MPA Request or Reply; the connection is refused with LLP error 0x04. The wire codec
 * knows nothing of the verbs: the adapter turns this into the verbs' {@code ConnectionException}
 * where it reaches an application.
 */
public class MpaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MpaException(String message) {
        super(message);
    }
}

package dev.tandem.iwarp.wire;

import dev.tandem.verbs.ConnectionException;

/** A malformed MPA Request or Reply; the connection is refused with LLP error 0x04. */
public class MpaException extends ConnectionException {
    private static final long serialVersionUID = 1L;

    public MpaException(String message) {
        super(message);
    }
}

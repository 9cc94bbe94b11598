package dev.tandem.iwarp.wire;

/**
 * A recorded iWARP stream is malformed. Carries the Terminate code a receiver would answer with and
 * the stream offset of the MPA frame or FPDU in which the fault was found.
 */
public class FpduFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final TerminateCode code;
    private final int offset;

    public FpduFormatException(TerminateCode code, int offset, String message) {
        this(code, offset, message, null);
    }

    public FpduFormatException(TerminateCode code, int offset, String message, Throwable cause) {
        super(message + " at offset " + offset + " [" + code.describe() + "]", cause);
        this.code = code;
        this.offset = offset;
    }

    /** The Terminate a receiver would send. */
    public TerminateCode code() {
        return code;
    }

    /** Stream offset of the first byte of the MPA frame (0) or of the FPDU at fault. */
    public int offset() {
        return offset;
    }
}

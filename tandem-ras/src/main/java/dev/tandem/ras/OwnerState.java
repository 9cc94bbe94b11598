package dev.tandem.ras;

/** Lifecycle of a RAS file as its owner left it. OPEN in the file of a dead process means it died. */
public enum OwnerState {
    /** The owner is still writing the file. */
    INITIALISING(RasFileDescriptor.OWNER_STATE_INITIALISING),
    /** The owner has the file open (or died without closing it). */
    OPEN(RasFileDescriptor.OWNER_STATE_OPEN),
    /** The owner closed the file cleanly. */
    CLOSED(RasFileDescriptor.OWNER_STATE_CLOSED);

    private final int code;

    OwnerState(int code) {
        this.code = code;
    }

    /** The value stored in the header. */
    public int code() {
        return code;
    }

    /** The state stored as {@code code}, or null if none is. */
    static OwnerState of(int code) {
        for (OwnerState s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return null;
    }
}

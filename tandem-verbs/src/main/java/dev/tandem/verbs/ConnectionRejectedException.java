package dev.tandem.verbs;

/** The peer rejected the connection request; {@link #privateData()} is what it sent with the rejection. */
public class ConnectionRejectedException extends ConnectionException {
    private static final long serialVersionUID = 1L;
    private final transient byte[] privateData;

    public ConnectionRejectedException(String message, byte[] privateData) {
        super(message);
        this.privateData = privateData.clone();
    }

    /** The private data of the peer's reject reply (possibly empty). */
    public byte[] privateData() {
        return privateData.clone();
    }
}

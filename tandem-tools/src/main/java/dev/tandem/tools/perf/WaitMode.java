package dev.tandem.tools.perf;

/**
 * How a benchmark waits for work to finish. The TCP baseline waits the same way as the Tandem run,
 * so the ratio compares like with like.
 */
public enum WaitMode {
    /** Busy-poll the completion queue; the baseline busy-polls non-blocking SocketChannels. */
    POLL("poll", "busy-polling the CQ", "busy-polling non-blocking SocketChannels"),
    /** Block in CompletionQueue.await; the baseline blocks in SocketChannel reads and writes. */
    EVENT("event", "blocking on completion events in CompletionQueue.await", "blocking SocketChannel reads and writes");

    private final String jsonName;
    private final String tandemDescription;
    private final String tcpDescription;

    WaitMode(String jsonName, String tandemDescription, String tcpDescription) {
        this.jsonName = jsonName;
        this.tandemDescription = tandemDescription;
        this.tcpDescription = tcpDescription;
    }

    public String jsonName() {
        return jsonName;
    }

    public String tandemDescription() {
        return tandemDescription;
    }

    public String tcpDescription() {
        return tcpDescription;
    }
}

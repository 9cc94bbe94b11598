package dev.tandem.tools.perf;

/**
 * The connection went down while this side still waited for work (a flushed completion). A tandem
 * perf side that fails closes its connection, so this is usually the other side's failure seen from
 * here: where both sides run in one process, the other side's own failure is the one to report.
 */
public final class ConnectionLostException extends PerfException {
    private static final long serialVersionUID = 1L;

    public ConnectionLostException(String message) {
        super(message);
    }
}

package dev.tandem.verbs;

/**
 * Why a queue pair went to ERROR, told apart as a layer above the verbs must: a broken transport
 * (the work may go another way: fail-over does) from an error of the application's work, which
 * every way would meet again. {@link QueuePair#failure()} gives it once the QP is in ERROR.
 *
 * @param kind   what kind of cause
 * @param detail what happened, for people
 * @param status the completion status this failure gives the request it hit on the wire: what a layer
 *               above reports for work it cannot show arrived (REM_ACCESS_ERR after a protection
 *               Terminate, REM_OP_ERR after the peer could not take a Send, ...); WR_FLUSH_ERR where
 *               the failure names no such status
 */
public record QpFailure(Kind kind, String detail, CompletionStatus status) {
    public enum Kind {
        /** The connection broke under the QP (reset, lost, a framing or CRC fault of the link) or its adapter failed. */
        TRANSPORT,
        /** The peer closed the connection in an orderly way. */
        PEER_CLOSED,
        /** The peer refused this side's work with a Terminate (protection, validation, no receive buffer). */
        REMOTE_ERROR,
        /** This side refused the peer's work (and told it with a Terminate), or its own work failed a local check. */
        LOCAL_ERROR,
        /** The consumer moved the QP to ERROR, disconnected or closed it. */
        CONSUMER
    }

    public QpFailure {
        if (kind == null) {
            throw new InvalidArgumentException("QpFailure: kind is null");
        }
        detail = detail == null ? "" : detail;
        status = status == null ? CompletionStatus.WR_FLUSH_ERR : status;
    }

    /** A failure that names no status of its own (work it ends is flushed). */
    public QpFailure(Kind kind, String detail) {
        this(kind, detail, CompletionStatus.WR_FLUSH_ERR);
    }
}

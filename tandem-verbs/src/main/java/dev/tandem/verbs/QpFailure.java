package dev.tandem.verbs;

/**
 * Why a queue pair went to ERROR, told apart as a layer above the verbs must: a broken transport
 * (the work may go another way: fail-over does) from an error of the application's work, which
 * every way would meet again. {@link QueuePair#failure()} gives it once the QP is in ERROR.
 *
 * @param kind   what kind of cause
 * @param detail what happened, for people
 */
public record QpFailure(Kind kind, String detail) {
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
    }
}

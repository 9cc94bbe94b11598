package dev.tandem.verbs;

/** Asynchronous events of the verbs standard, plus connection events of connection management. */
public enum AsyncEventType {
    /** A QP is connected and in RTS. */
    COMMUNICATION_ESTABLISHED,
    /** A QP went to ERROR because of a local or transport failure. */
    QP_FATAL,
    /** A QP went to ERROR because the peer reported (or we detected) an invalid request. */
    QP_REQUEST_ERROR,
    /** A QP went to ERROR because of a protection (access) violation. */
    QP_ACCESS_ERROR,
    /** A QP's send queue drained after a move to SQD. */
    SQ_DRAINED,
    /** The peer closed the connection in an orderly way. */
    DISCONNECTED,
    /** A QP attached to an SRQ went to ERROR: its last WQE has been consumed. */
    LAST_WQE_REACHED,
    /** A completion queue overflowed. */
    CQ_ERROR,
    /** A shared receive queue dropped below its armed limit. */
    SRQ_LIMIT_REACHED,
    /** The adapter failed; all its QPs are in ERROR. */
    DEVICE_FATAL,
    PORT_ACTIVE,
    PORT_ERROR
}

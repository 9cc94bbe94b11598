package dev.tandem.verbs;

/** Status of a work completion (the IB / RDMAC verbs set). */
public enum CompletionStatus {
    SUCCESS,
    /** A received message was longer than the posted buffer, or a request exceeded a length limit. */
    LOC_LEN_ERR,
    /** The local QP hit an internal inconsistency processing the request. */
    LOC_QP_OP_ERR,
    /**
     * A local buffer failed its protection check while being used: e.g. a Receive whose region was
     * deregistered after it was posted, when data arrives for it (nothing is placed there).
     */
    LOC_PROT_ERR,
    /** The request was flushed because the QP went to ERROR before it completed. */
    WR_FLUSH_ERR,
    /** Memory window bind failed (region lacks MW_BIND, window in use, bounds). */
    MW_BIND_ERR,
    /** The peer reported a protection error (bad STag, key, PD, bounds or rights). */
    REM_ACCESS_ERR,
    /** The peer could not carry out the operation (e.g. no receive buffer, too long, unexpected opcode). */
    REM_OP_ERR,
    /**
     * The peer found the request invalid (e.g. invalid opcode, STag cannot be invalidated). At the
     * responder, also the status of a Receive whose Send with Invalidate named an STag that cannot
     * be invalidated (never issued, of another protection domain, or a window bound to another QP),
     * as Linux siw reports it: the data is placed, nothing is invalidated, the connection ends.
     */
    REM_INV_REQ_ERR,
    /** The transport gave up (connection lost). */
    RETRY_EXC_ERR,
    /** The adapter failed. */
    FATAL_ERR,
    /** A general error without a better status. */
    GENERAL_ERR
}

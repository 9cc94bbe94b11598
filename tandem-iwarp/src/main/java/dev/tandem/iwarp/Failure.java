package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.TerminateCode;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.QpFailure;

/**
 * Why a QP goes to ERROR and what that implies: the Terminate to send (if we found the fault),
 * the status of the oldest transmitted request, the async event and a sentence for humans.
 *
 * @param terminate     Terminate to send to the peer, or null
 * @param segmentLength length of the offending DDP segment (its ULPDU_LENGTH), quoted with the headers
 * @param offending     the offending DDP (and RDMAP) header bytes to quote in the Terminate, or null
 * @param rdmapIncluded {@code offending} ends with the 28-byte Read Request header
 * @param headStatus    status for the oldest request already on the wire, or null for WR_FLUSH_ERR
 * @param vendorError   {@code layer<<12|etype<<8|ecode} of the Terminate, or 0
 * @param event         async event to raise, or null
 * @param detail        what happened
 * @param kind          the kind of cause, as {@link dev.tandem.verbs.QueuePair#failure()} tells it
 */
record Failure(TerminateCode terminate, int segmentLength, byte[] offending, boolean rdmapIncluded, CompletionStatus headStatus,
               int vendorError, AsyncEventType event, String detail, QpFailure.Kind kind) {

    /** A fault this side found in what the peer sent: answer with a Terminate. */
    static Failure detected(TerminateCode code, int segmentLength, byte[] offending, boolean rdmapIncluded, String detail) {
        return new Failure(code, segmentLength, offending, rdmapIncluded, null, code.bits(), eventFor(code), detail + ": " + code.describe(),
                code.layer() == TerminateCode.Layer.LLP ? QpFailure.Kind.TRANSPORT : QpFailure.Kind.LOCAL_ERROR);
    }

    /** The peer sent us a Terminate. */
    static Failure received(TerminateCode code, int bits) {
        CompletionStatus status = code == null ? CompletionStatus.REM_OP_ERR : statusFor(code);
        String what = code == null ? String.format("unknown code 0x%04x", bits) : code.describe();
        return new Failure(null, 0, null, false, status, bits, code == null ? AsyncEventType.QP_FATAL : eventFor(code),
                "peer sent Terminate " + what,
                code != null && code.layer() == TerminateCode.Layer.LLP ? QpFailure.Kind.TRANSPORT : QpFailure.Kind.REMOTE_ERROR);
    }

    /** The connection went away under us (closed by the peer in order when {@code event} is DISCONNECTED). */
    static Failure lost(AsyncEventType event, String detail) {
        return new Failure(null, 0, null, false, null, 0, event, detail,
                event == AsyncEventType.DISCONNECTED ? QpFailure.Kind.PEER_CLOSED : QpFailure.Kind.TRANSPORT);
    }

    /** This side's own work failed (a local check at transmit, a CQ that overflowed): no Terminate, QP_FATAL. */
    static Failure localFault(String detail) {
        return new Failure(null, 0, null, false, null, 0, AsyncEventType.QP_FATAL, detail, QpFailure.Kind.LOCAL_ERROR);
    }

    /** The consumer asked for ERROR (modify or disconnect). */
    static Failure local(String detail) {
        return new Failure(null, 0, null, false, null, 0, null, detail, QpFailure.Kind.CONSUMER);
    }

    /**
     * This failure raising {@code e} instead of the event its Terminate code implies: a receive
     * buffer that fails its protection check at placement is answered with a DDP catastrophic
     * Terminate, yet it is an access error here (siw raises IB_EVENT_QP_ACCESS_ERR for it).
     */
    Failure withEvent(AsyncEventType e) {
        return new Failure(terminate, segmentLength, offending, rdmapIncluded, headStatus, vendorError, e, detail, kind);
    }

    /**
     * This failure completing the oldest request on the wire {@code status} instead of
     * {@code WR_FLUSH_ERR}: a Read whose sink the application gave back fails locally.
     */
    Failure withHeadStatus(CompletionStatus status) {
        return new Failure(terminate, segmentLength, offending, rdmapIncluded, status, vendorError, event, detail, kind);
    }

    static CompletionStatus statusFor(TerminateCode code) {
        if (code.isProtectionError() || code == TerminateCode.RDMAP_ACCESS_RIGHTS) {
            return CompletionStatus.REM_ACCESS_ERR;
        }
        return switch (code) {
            case RDMAP_INVALID_VERSION, RDMAP_UNEXPECTED_OPCODE, RDMAP_CANNOT_INVALIDATE, DDP_UNTAGGED_TOO_LONG,
                 DDP_UNTAGGED_INVALID_QN, DDP_UNTAGGED_INVALID_MO, DDP_UNTAGGED_MSN_RANGE, DDP_TAGGED_INVALID_VERSION,
                 DDP_UNTAGGED_INVALID_VERSION -> CompletionStatus.REM_INV_REQ_ERR;
            default -> CompletionStatus.REM_OP_ERR;
        };
    }

    static AsyncEventType eventFor(TerminateCode code) {
        if (code.isProtectionError() || code == TerminateCode.RDMAP_ACCESS_RIGHTS) {
            return AsyncEventType.QP_ACCESS_ERROR;
        }
        return switch (code.layer()) {
            case LLP -> AsyncEventType.QP_FATAL;
            default -> statusFor(code) == CompletionStatus.REM_INV_REQ_ERR ? AsyncEventType.QP_REQUEST_ERROR : AsyncEventType.QP_FATAL;
        };
    }
}

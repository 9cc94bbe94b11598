package dev.tandem.verbs;

/**
 * One work completion. Deliberately mutable: the caller owns an array of these and
 * {@link CompletionQueue#poll} fills it, so polling allocates nothing.
 */
public final class WorkCompletion {
    /** {@link #flags()} bit: a received Send carried the solicited-event bit. */
    public static final int FLAG_SOLICITED = 1;
    /** {@link #flags()} bit: a received Send with Invalidate invalidated {@link #invalidatedStag()}. */
    public static final int FLAG_INVALIDATED = 1 << 1;

    private long wrId;
    private CompletionStatus status = CompletionStatus.SUCCESS;
    private CompletionOpcode opcode = CompletionOpcode.SEND;
    private long byteLength;
    private int qpNumber;
    private int invalidatedStag;
    private int flags;
    private int vendorError;

    /** An empty completion (a successful SEND of nothing) for a poll to fill. */
    public WorkCompletion() {
    }

    public long wrId() {
        return wrId;
    }

    public CompletionStatus status() {
        return status;
    }

    public CompletionOpcode opcode() {
        return opcode;
    }

    /** Bytes received (RECV) or transferred. */
    public long byteLength() {
        return byteLength;
    }

    public int qpNumber() {
        return qpNumber;
    }

    /** The STag a Send with Invalidate invalidated, when {@link #FLAG_INVALIDATED} is set. */
    public int invalidatedStag() {
        return invalidatedStag;
    }

    public int flags() {
        return flags;
    }

    public boolean isSolicited() {
        return (flags & FLAG_SOLICITED) != 0;
    }

    /**
     * Provider detail of an error: for iWARP the Terminate's {@code layer<<12 | etype<<8 | ecode}
     * that caused it, 0 when there is none.
     */
    public int vendorError() {
        return vendorError;
    }

    /** Fills every field; used by providers. */
    public WorkCompletion set(long wrId, CompletionStatus status, CompletionOpcode opcode, long byteLength,
                              int qpNumber, int invalidatedStag, int flags, int vendorError) {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.byteLength = byteLength;
        this.qpNumber = qpNumber;
        this.invalidatedStag = invalidatedStag;
        this.flags = flags;
        this.vendorError = vendorError;
        return this;
    }

    public WorkCompletion copyFrom(WorkCompletion o) {
        return set(o.wrId, o.status, o.opcode, o.byteLength, o.qpNumber, o.invalidatedStag, o.flags, o.vendorError);
    }

    /** Allocates {@code n} completions to poll into. */
    public static WorkCompletion[] array(int n) {
        WorkCompletion[] a = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            a[i] = new WorkCompletion();
        }
        return a;
    }

    @Override
    public String toString() {
        return "WorkCompletion[wrId=" + wrId + ", status=" + status + ", opcode=" + opcode + ", byteLength=" + byteLength
                + ", qp=" + qpNumber + (isSolicited() ? ", solicited" : "")
                + ((flags & FLAG_INVALIDATED) != 0 ? ", invalidated=" + STag.format(invalidatedStag) : "")
                + (vendorError != 0 ? ", vendorError=0x" + Integer.toHexString(vendorError) : "") + "]";
    }
}

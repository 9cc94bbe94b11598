package dev.tandem.verbs;

/** Flags of a send-queue work request (combine with {@code |}). */
public final class WrFlags {
    /** No flag: the request completes silently unless the QP signals all requests. */
    public static final int NONE = 0;
    /** Generate a work completion when the request completes. */
    public static final int SIGNALED = 1;
    /** Set the solicited-event bit: the receiver's CQ wakes a solicited-only waiter (Send only). */
    public static final int SOLICITED = 1 << 1;
    /** Do not start this request before every earlier RDMA Read has completed. */
    public static final int FENCE = 1 << 2;
    /** Copy the payload at post time so the source buffer may be reused at once (up to maxInlineData). */
    public static final int INLINE = 1 << 3;
    public static final int ALL = SIGNALED | SOLICITED | FENCE | INLINE;

    private WrFlags() {
    }

    public static boolean has(int flags, int flag) {
        return (flags & flag) != 0;
    }
}

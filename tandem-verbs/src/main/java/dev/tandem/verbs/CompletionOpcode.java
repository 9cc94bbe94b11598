package dev.tandem.verbs;

/** What kind of work a completion reports. */
public enum CompletionOpcode {
    SEND, RDMA_WRITE, RDMA_READ, BIND_WINDOW, LOCAL_INVALIDATE,
    /** A received Send (of any Send variant). */
    RECV
}

package dev.tandem.verbs;

/**
 * Queue pair states of the verbs standard and the transitions a consumer may request.
 * Connection management drives RESET/INIT to RTS; errors drive any state to ERROR.
 */
public enum QpState {
    RESET, INIT, RTR, RTS, SQD, SQE, ERROR;

    /** True when a consumer may move a QP from this state to {@code target} with {@link QueuePair#modify}. */
    public boolean canModifyTo(QpState target) {
        return switch (target) {
            case RESET -> true;
            case ERROR -> true;
            case INIT -> this == RESET || this == INIT;
            case RTR -> this == INIT;
            case RTS -> this == RTR || this == SQD || this == SQE || this == RTS;
            case SQD -> this == RTS || this == SQD;
            case SQE -> false;
        };
    }

    /**
     * True when send work requests are processed in this state. Posts in SQD queue up; posts in
     * ERROR are accepted and complete at once with WR_FLUSH_ERR (see {@link QueuePair#postSend}).
     */
    public boolean acceptsSends() {
        return this == RTS;
    }

    /**
     * True when posted receives wait for incoming Sends in this state (the verbs allow it from INIT
     * on); receives posted in ERROR are accepted and flushed at once.
     */
    public boolean acceptsReceives() {
        return this == INIT || this == RTR || this == RTS || this == SQD || this == SQE;
    }
}

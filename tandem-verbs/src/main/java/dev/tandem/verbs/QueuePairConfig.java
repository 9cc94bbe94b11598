package dev.tandem.verbs;

/**
 * How to create a reliable-connected queue pair.
 *
 * @param sendCq         completions of send-queue work
 * @param receiveCq      completions of receives
 * @param srq            shared receive queue, or null for the QP's own receive queue
 * @param sendDepth      send queue slots
 * @param receiveDepth   receive queue slots (ignored with an SRQ)
 * @param maxSendSge     largest SGL of a send request
 * @param maxReceiveSge  largest SGL of a receive request
 * @param maxInlineData  largest payload that may be posted with {@link WrFlags#INLINE}
 * @param ird            inbound RDMA Reads this side will serve at once (offered in the MPA exchange)
 * @param ord            outbound RDMA Reads this side wants outstanding at once
 * @param signalAll      every send request completes signalled, whatever its flags
 */
public record QueuePairConfig(CompletionQueue sendCq, CompletionQueue receiveCq, SharedReceiveQueue srq,
                              int sendDepth, int receiveDepth, int maxSendSge, int maxReceiveSge,
                              int maxInlineData, int ird, int ord, boolean signalAll) {
    public QueuePairConfig {
        if (sendCq == null || receiveCq == null) {
            throw new InvalidArgumentException("QueuePairConfig needs a send CQ and a receive CQ (they may be the same), got sendCq="
                    + sendCq + " receiveCq=" + receiveCq);
        }
        positive("sendDepth", sendDepth);
        if (srq == null) {
            positive("receiveDepth", receiveDepth);
        }
        positive("maxSendSge", maxSendSge);
        positive("maxReceiveSge", maxReceiveSge);
        if (maxInlineData < 0) {
            throw new InvalidArgumentException("maxInlineData " + maxInlineData + " is negative");
        }
        if (ird < 0 || ord < 0) {
            throw new InvalidArgumentException("ird " + ird + " / ord " + ord + " must be 0 or more");
        }
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new InvalidArgumentException(name + " " + value + " must be at least 1");
        }
    }

    /** Usual settings: depth 128 both ways, 4 SGEs, 64 bytes inline, IRD/ORD 16, one CQ for both. */
    public static QueuePairConfig of(CompletionQueue cq) {
        return new QueuePairConfig(cq, cq, null, 128, 128, 4, 4, 64, 16, 16, false);
    }

    public QueuePairConfig withDepths(int send, int receive) {
        return new QueuePairConfig(sendCq, receiveCq, srq, send, receive, maxSendSge, maxReceiveSge, maxInlineData, ird, ord, signalAll);
    }

    public QueuePairConfig withSrq(SharedReceiveQueue s) {
        return new QueuePairConfig(sendCq, receiveCq, s, sendDepth, receiveDepth, maxSendSge, maxReceiveSge, maxInlineData, ird, ord, signalAll);
    }

    public QueuePairConfig withSge(int send, int receive) {
        return new QueuePairConfig(sendCq, receiveCq, srq, sendDepth, receiveDepth, send, receive, maxInlineData, ird, ord, signalAll);
    }

    public QueuePairConfig withReadDepths(int newIrd, int newOrd) {
        return new QueuePairConfig(sendCq, receiveCq, srq, sendDepth, receiveDepth, maxSendSge, maxReceiveSge, maxInlineData, newIrd, newOrd, signalAll);
    }

    public QueuePairConfig withSignalAll(boolean all) {
        return new QueuePairConfig(sendCq, receiveCq, srq, sendDepth, receiveDepth, maxSendSge, maxReceiveSge, maxInlineData, ird, ord, all);
    }

    public QueuePairConfig withMaxInline(int bytes) {
        return new QueuePairConfig(sendCq, receiveCq, srq, sendDepth, receiveDepth, maxSendSge, maxReceiveSge, bytes, ird, ord, signalAll);
    }
}

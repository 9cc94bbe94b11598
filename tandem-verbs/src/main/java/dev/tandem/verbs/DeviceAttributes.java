package dev.tandem.verbs;

/**
 * Limits and capabilities of one adapter, as {@code ibv_query_device} reports them. The counts are what
 * may exist at once on this adapter (each adapter of a process has its own), and every one is reachable:
 * the one more than the maximum is refused with {@link ResourceLimitException} naming the attribute.
 *
 * @param maxQueuePairs          how many QPs may exist at once
 * @param maxQueuePairDepth      largest send or receive queue depth
 * @param maxSge                 largest scatter/gather list of one work request
 * @param maxCqDepth             largest completion queue
 * @param maxMemoryRegions       how many regions and windows together (STag indices) may exist at once
 * @param maxMessageSize         largest message a work request may carry
 * @param maxInlineData          largest inline payload
 * @param maxIrd                 largest inbound RDMA Read queue depth
 * @param maxOrd                 largest outbound RDMA Read queue depth
 * @param maxPrivateData         largest private data in connect/accept/reject
 * @param maxCompletionQueues    how many completion queues may exist at once
 * @param maxSharedReceiveQueues how many shared receive queues may exist at once
 * @param maxProtectionDomains   how many protection domains may exist at once
 */
public record DeviceAttributes(
        int maxQueuePairs,
        int maxQueuePairDepth,
        int maxSge,
        int maxCqDepth,
        int maxMemoryRegions,
        long maxMessageSize,
        int maxInlineData,
        int maxIrd,
        int maxOrd,
        int maxPrivateData,
        int maxCompletionQueues,
        int maxSharedReceiveQueues,
        int maxProtectionDomains) {
}

package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.RdmapOpcode;
import dev.tandem.verbs.WorkRequest;

/**
 * Per-QP traffic counters. Each field has one writer (the transmitter or the receiver, which run
 * under their own exclusion), so updates are plain stores: no lock, no allocation. Readers see
 * values that may lag by a few operations.
 */
final class QpCounters {
    private final long[] messagesSent = new long[RdmapOpcode.MAX + 1];
    private final long[] messagesReceived = new long[RdmapOpcode.MAX + 1];
    private long bytesSent;
    private long bytesReceived;
    private long fpdusSent;
    private long fpdusReceived;
    private long malformed;

    void sent(WorkRequest wr) {
        int op = switch (wr) {
            case WorkRequest.RdmaWrite w -> RdmapOpcode.RDMA_WRITE;
            case WorkRequest.RdmaRead r -> RdmapOpcode.READ_REQUEST;
            case WorkRequest.SendWithInvalidate s -> RdmapOpcode.SEND_INVALIDATE;
            default -> RdmapOpcode.SEND;
        };
        messagesSent[op]++;
        bytesSent += wr.length();
    }

    void fpduSent(int ulpdu) {
        fpdusSent++;
    }

    void fpduReceived(int ulpdu) {
        fpdusReceived++;
    }

    void received(int opcode, long bytes) {
        messagesReceived[opcode]++;
        bytesReceived += bytes;
    }

    void countMalformed() {
        malformed++;
    }

    long messagesSent(int opcode) {
        return messagesSent[opcode];
    }

    long messagesReceived(int opcode) {
        return messagesReceived[opcode];
    }

    long bytesSent() {
        return bytesSent;
    }

    long bytesReceived() {
        return bytesReceived;
    }

    long fpdusSent() {
        return fpdusSent;
    }

    long fpdusReceived() {
        return fpdusReceived;
    }

    long malformed() {
        return malformed;
    }
}

package dev.tandem.iwarp;

import dev.tandem.ras.Counter;
import dev.tandem.verbs.WorkRequest;

/**
 * Per-QP traffic counters in the process's RAS file (readable from outside with {@code tandem
 * stat}). Each counter has one writer (the transmitter or the receiver, which run under their own
 * exclusion), so updates are plain stores: no lock, no allocation. The adapter's per-opcode
 * counters are updated alongside.
 */
final class QpCounters implements AutoCloseable {
    private final AdapterRas adapter;
    private final Counter messagesSent;
    private final Counter bytesSent;
    private final Counter messagesReceived;
    private final Counter bytesReceived;
    private final Counter fpdusSent;
    private final Counter fpdusReceived;
    private final Counter malformed;

    QpCounters(AdapterRas adapter, int qpNumber) {
        this.adapter = adapter;
        messagesSent = adapter.qpCounter(qpNumber, "messages sent");
        bytesSent = adapter.qpCounter(qpNumber, "bytes sent");
        messagesReceived = adapter.qpCounter(qpNumber, "messages received");
        bytesReceived = adapter.qpCounter(qpNumber, "bytes received");
        fpdusSent = adapter.qpCounter(qpNumber, "fpdus sent");
        fpdusReceived = adapter.qpCounter(qpNumber, "fpdus received");
        malformed = adapter.qpCounter(qpNumber, "malformed frames");
    }

    void sent(WorkRequest wr) {
        int op = switch (wr) {
            case WorkRequest.RdmaWrite w -> dev.tandem.iwarp.wire.RdmapOpcode.RDMA_WRITE;
            case WorkRequest.RdmaRead r -> dev.tandem.iwarp.wire.RdmapOpcode.READ_REQUEST;
            case WorkRequest.SendWithInvalidate s -> dev.tandem.iwarp.wire.RdmapOpcode.SEND_INVALIDATE;
            default -> dev.tandem.iwarp.wire.RdmapOpcode.SEND;
        };
        messagesSent.increment();
        if (op != dev.tandem.iwarp.wire.RdmapOpcode.READ_REQUEST) {
            // a Read Request carries no payload: its data comes back in the Read Response
            bytesSent.add(wr.length());
        }
        adapter.sent(op);
    }

    /** A Read Response of {@code bytes} went out (the responder's side of an RDMA Read). */
    void sentReadResponse(long bytes) {
        messagesSent.increment();
        bytesSent.add(bytes);
        adapter.sent(dev.tandem.iwarp.wire.RdmapOpcode.READ_RESPONSE);
    }

    void fpduSent(int opcode, int ulpdu) {
        fpdusSent.increment();
        if (adapter.tx.enabled(dev.tandem.ras.TraceLevel.HOT_ENTRY_EXIT)) {
            adapter.tx.record(dev.tandem.ras.TraceLevel.HOT_ENTRY_EXIT, AdapterRas.FPDU_SENT, opcode, ulpdu);
        }
    }

    void fpduReceived(int opcode, int ulpdu) {
        fpdusReceived.increment();
        if (adapter.rx.enabled(dev.tandem.ras.TraceLevel.HOT_ENTRY_EXIT)) {
            adapter.rx.record(dev.tandem.ras.TraceLevel.HOT_ENTRY_EXIT, AdapterRas.FPDU_RECEIVED, opcode, ulpdu);
        }
    }

    void received(int opcode, long bytes) {
        messagesReceived.increment();
        bytesReceived.add(bytes);
        adapter.received(opcode);
    }

    void countMalformed() {
        malformed.increment();
        adapter.malformedFrames.incrementAtomic();
    }

    long messagesSent() {
        return messagesSent.get();
    }

    long messagesReceived() {
        return messagesReceived.get();
    }

    long bytesSent() {
        return bytesSent.get();
    }

    long bytesReceived() {
        return bytesReceived.get();
    }

    long fpdusSent() {
        return fpdusSent.get();
    }

    long fpdusReceived() {
        return fpdusReceived.get();
    }

    long malformed() {
        return malformed.get();
    }

    @Override
    public void close() {
        messagesSent.close();
        bytesSent.close();
        messagesReceived.close();
        bytesReceived.close();
        fpdusSent.close();
        fpdusReceived.close();
        malformed.close();
    }
}

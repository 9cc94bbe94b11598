package dev.tandem.iwarp.ras;

import dev.tandem.iwarp.wire.RdmapOpcode;
import dev.tandem.ras.Counter;
import dev.tandem.ras.CounterType;
import dev.tandem.ras.TraceLevel;
import dev.tandem.verbs.WorkRequest;

/**
 * Per-QP traffic counters in the process's RAS file (readable from outside with {@code tandem
 * stat}). Each counter has one writer (the transmitter or the receiver, which run under their own
 * exclusion), so updates are plain stores: no lock, no allocation. The adapter's per-opcode
 * counters are updated alongside. The queue high-water marks are raised by posting threads, which
 * may race: a plain read, and a CAS only when the mark rises. The FPDU trace points live here too:
 * level 7 per FPDU, level 8 per placement and per sealed FPDU.
 */
public final class QpCounters implements AutoCloseable {
    private final AdapterRas adapter;
    private final int qpNumber;
    private final Counter messagesSent;
    private final Counter bytesSent;
    private final Counter messagesReceived;
    private final Counter bytesReceived;
    private final Counter fpdusSent;
    private final Counter fpdusReceived;
    private final Counter malformed;
    private final Counter sendQueueHighWater;
    private final Counter receiveQueueHighWater;

    public QpCounters(AdapterRas adapter, int qpNumber) {
        this.adapter = adapter;
        this.qpNumber = qpNumber;
        Counter[] c = adapter.resourceCounters(CounterType.QP, "qp " + qpNumber, qpNumber, "messages sent", "bytes sent",
                "messages received", "bytes received", "fpdus sent", "fpdus received", "malformed frames",
                "send queue high water", "receive queue high water");
        messagesSent = c[0];
        bytesSent = c[1];
        messagesReceived = c[2];
        bytesReceived = c[3];
        fpdusSent = c[4];
        fpdusReceived = c[5];
        malformed = c[6];
        sendQueueHighWater = c[7];
        receiveQueueHighWater = c[8];
    }

    /** A send was posted; {@code outstanding} requests are in the send queue now (posted, not completed). */
    public void sendQueued(long outstanding) {
        sendQueueHighWater.setMaxAtomic(outstanding);
    }

    /** A receive was posted; {@code queued} are waiting now. */
    public void receiveQueued(long queued) {
        receiveQueueHighWater.setMaxAtomic(queued);
    }

    /** Level 8: the payload of an FPDU is about to be placed ({@code target}: STag if tagged, else MSN). */
    public void placing(int opcode, int target, int bytes) {
        if (adapter.rx.enabled(TraceLevel.HOT_INTERNALS)) {
            adapter.rx.record(TraceLevel.HOT_INTERNALS, AdapterRas.PLACE, qpNumber, opcode, target & 0xFFFF_FFFFL, bytes, null);
        }
    }

    /** Level 8: an FPDU was sealed (pad and CRC appended) for sending. */
    public void sealed(int opcode, int ulpdu, int crc) {
        if (adapter.tx.enabled(TraceLevel.HOT_INTERNALS)) {
            adapter.tx.record(TraceLevel.HOT_INTERNALS, AdapterRas.SEAL, qpNumber, opcode, ulpdu, crc & 0xFFFF_FFFFL, null);
        }
    }

    public void sent(WorkRequest wr) {
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
    public void sentReadResponse(long bytes) {
        messagesSent.increment();
        bytesSent.add(bytes);
        adapter.sent(dev.tandem.iwarp.wire.RdmapOpcode.READ_RESPONSE);
    }

    public void fpduSent(int opcode, int ulpdu) {
        fpdusSent.increment();
        if (adapter.tx.enabled(TraceLevel.HOT_ENTRY_EXIT)) {
            adapter.tx.record(TraceLevel.HOT_ENTRY_EXIT, AdapterRas.FPDU_SENT, opcode, ulpdu);
        }
    }

    public void fpduReceived(int opcode, int ulpdu) {
        fpdusReceived.increment();
        if (adapter.rx.enabled(TraceLevel.HOT_ENTRY_EXIT)) {
            adapter.rx.record(TraceLevel.HOT_ENTRY_EXIT, AdapterRas.FPDU_RECEIVED, opcode, ulpdu);
        }
    }

    public void received(int opcode, long bytes) {
        messagesReceived.increment();
        bytesReceived.add(bytes);
        adapter.received(opcode);
    }

    public void countMalformed() {
        malformed.increment();
        adapter.malformedFrames.incrementAtomic();
    }

    public long messagesSent() {
        return messagesSent.get();
    }

    public long messagesReceived() {
        return messagesReceived.get();
    }

    public long bytesSent() {
        return bytesSent.get();
    }

    public long bytesReceived() {
        return bytesReceived.get();
    }

    public long fpdusSent() {
        return fpdusSent.get();
    }

    public long fpdusReceived() {
        return fpdusReceived.get();
    }

    public long malformed() {
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
        sendQueueHighWater.close();
        receiveQueueHighWater.close();
    }
}

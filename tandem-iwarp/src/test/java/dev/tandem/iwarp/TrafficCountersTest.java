package dev.tandem.iwarp;

import dev.tandem.ras.CounterSnapshot;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasReader;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code tandem stat} shows of a QP's traffic: messages, payload bytes and FPDUs sent and received,
 * per QP and per opcode of the adapter, for messages that span several FPDUs (MULPDU 128) and for
 * both ends of an RDMA Read.
 */
class TrafficCountersTest {

    private static Map<String, Long> counters() {
        try (RasReader reader = RasReader.open(ProcessRas.current().path())) {
            return reader.counters().stream().collect(Collectors.toMap(CounterSnapshot::label, CounterSnapshot::value, Long::sum));
        }
    }

    /** Waits (bounded) until counter {@code label} reads {@code expected}. */
    private static void awaitCounter(String label, long expected, String what) {
        long deadline = System.nanoTime() + LoopbackPair.WAIT.toNanos();
        Long v;
        while (!Long.valueOf(expected).equals(v = counters().get(label))) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("'" + label + "' is " + v + " after " + LoopbackPair.WAIT + "; expected " + expected + ": " + what);
            }
            Thread.onSpinWait();
        }
    }

    private static void success(WorkCompletion wc, long wrId) {
        assertThat(wc.wrId()).as(wc.toString()).isEqualTo(wrId);
        assertThat(wc.status()).as(wc.toString()).isEqualTo(CompletionStatus.SUCCESS);
    }

    /** 300 bytes from A to B: a Send (3 FPDUs of 110 bytes at most) and a Write (3 of 114). */
    private static void sendAndWrite(LoopbackPair p) {
        p.qpB.postReceive(new dev.tandem.verbs.ReceiveRequest(1, new Sge(p.mrB, 0, 1024)));
        p.qpA.postSend(new WorkRequest.Send(2, new Sge(p.mrA, 0, 300), WrFlags.SIGNALED));
        p.qpA.postSend(new WorkRequest.RdmaWrite(3, new Sge(p.mrA, 0, 300), 2048, p.mrB.rkey(), WrFlags.SIGNALED));
        success(LoopbackPair.awaitOne(p.cqA), 2);
        success(LoopbackPair.awaitOne(p.cqA), 3);
        success(LoopbackPair.awaitOne(p.cqB), 1);
    }

    /** A 300-byte Read by A: one Read Request from A (no payload), three Response FPDUs from B. */
    private static void read(LoopbackPair p) {
        p.qpA.postSend(new WorkRequest.RdmaRead(4, new Sge(p.mrA, 4096, 300), 2048, p.mrB.rkey(), WrFlags.SIGNALED));
        success(LoopbackPair.awaitOne(p.cqA), 4);
    }

    @Test
    void aQpCountsTheMessagesPayloadBytesAndFpdusItSent() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c.withMaxUlpdu(128), 8192)) {
            String qpA = p.a.name() + " qp " + p.qpA.qpNumber();
            String qpB = p.b.name() + " qp " + p.qpB.qpNumber();
            sendAndWrite(p);
            awaitCounter(qpA + " messages sent", 2, "a Send and a Write");
            awaitCounter(qpA + " bytes sent", 600, "300 bytes each");
            awaitCounter(qpA + " fpdus sent", 6, "three FPDUs each");
            awaitCounter(p.a.name() + " sent SEND", 1, "the Send");
            awaitCounter(p.a.name() + " sent RDMA_WRITE", 1, "the Write");

            read(p);
            awaitCounter(qpA + " messages sent", 3, "the Read Request counts as a message");
            awaitCounter(qpA + " bytes sent", 600, "a Read Request carries no payload");
            awaitCounter(qpA + " fpdus sent", 7, "one Read Request FPDU");
            awaitCounter(p.a.name() + " sent READ_REQUEST", 1, "the Read Request");
            awaitCounter(qpB + " messages sent", 1, "the Read Response");
            awaitCounter(qpB + " bytes sent", 300, "the Read Response's payload");
            awaitCounter(qpB + " fpdus sent", 3, "the Read Response in three FPDUs of 114 bytes at most");
            awaitCounter(p.b.name() + " sent READ_RESPONSE", 1, "the Read Response");
        }
    }

    @Test
    void aQpCountsTheMessagesPayloadBytesAndFpdusItReceived() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c.withMaxUlpdu(128), 8192)) {
            String qpA = p.a.name() + " qp " + p.qpA.qpNumber();
            String qpB = p.b.name() + " qp " + p.qpB.qpNumber();
            sendAndWrite(p);
            awaitCounter(qpB + " messages received", 2, "a Send and a Write of three FPDUs each: one message each");
            awaitCounter(qpB + " bytes received", 600, "300 payload bytes each, the Write's too");
            awaitCounter(qpB + " fpdus received", 6, "three FPDUs each");
            awaitCounter(p.b.name() + " received SEND", 1, "the Send");
            awaitCounter(p.b.name() + " received RDMA_WRITE", 1, "the Write");

            read(p);
            awaitCounter(qpB + " messages received", 3, "the Read Request");
            awaitCounter(qpB + " fpdus received", 7, "one Read Request FPDU");
            awaitCounter(qpB + " bytes received", 600, "a Read Request carries no payload");
            awaitCounter(p.b.name() + " received READ_REQUEST", 1, "the Read Request");
            awaitCounter(qpA + " messages received", 1, "the Read Response");
            awaitCounter(qpA + " bytes received", 300, "the Read Response's payload");
            awaitCounter(qpA + " fpdus received", 3, "the Read Response in three FPDUs");
            awaitCounter(p.a.name() + " received READ_RESPONSE", 1, "the Read Response");
        }
    }
}

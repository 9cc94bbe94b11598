package dev.tandem.iwarp;

import dev.tandem.iwarp.wire.RdmapOpcode;
import dev.tandem.iwarp.wire.TerminateCode;
import dev.tandem.ras.Counter;
import dev.tandem.ras.ErrorLog;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasFile;
import dev.tandem.ras.TraceComponent;
import dev.tandem.ras.TraceEvent;
import dev.tandem.verbs.CompletionStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one adapter reports into the process's RAS file: its counters (messages per opcode,
 * completions per status, connection management, Terminates per code, CRC and framing errors),
 * the distinct error log and the trace components {@code iwarp.cm}, {@code iwarp.rx} and
 * {@code iwarp.tx}. Counters written from several threads use atomic adds; the per-QP counters
 * ({@link QpCounters}) have one writer each.
 */
final class AdapterRas implements AutoCloseable {
    /** Counter type ids, as {@code tandem stat --type} filters them. */
    static final int TYPE_ADAPTER = 1;
    static final int TYPE_QP = 2;
    static final int TYPE_TERMINATE = 3;

    static final TraceEvent CONNECT = TraceEvent.of("connect");
    static final TraceEvent ACCEPT = TraceEvent.of("accept");
    static final TraceEvent REJECT = TraceEvent.of("reject");
    static final TraceEvent FAULT = TraceEvent.of("fault");
    static final TraceEvent TERMINATE = TraceEvent.of("term");
    static final TraceEvent FPDU_SENT = TraceEvent.of("fpdu-tx");
    static final TraceEvent FPDU_RECEIVED = TraceEvent.of("fpdu-rx");

    private final String adapter;
    private final RasFile file;
    final ErrorLog errors;
    final TraceComponent cm;
    final TraceComponent rx;
    final TraceComponent tx;
    private final Counter[] sentByOpcode = new Counter[RdmapOpcode.MAX + 1];
    private final Counter[] receivedByOpcode = new Counter[RdmapOpcode.MAX + 1];
    private final Counter[] completionsByStatus = new Counter[CompletionStatus.values().length];
    final Counter connectAttempts;
    final Counter connectsEstablished;
    final Counter connectsRejected;
    final Counter connectTimeouts;
    final Counter requestsAccepted;
    final Counter requestsRejected;
    final Counter crcErrors;
    final Counter malformedFrames;
    final Counter asyncEventsDropped;
    private final Map<TerminateCode, Counter> terminatesSent = new ConcurrentHashMap<>();
    private final Map<TerminateCode, Counter> terminatesReceived = new ConcurrentHashMap<>();
    private final List<Counter> all = new ArrayList<>();

    AdapterRas(String adapter) {
        this.adapter = adapter;
        this.file = ProcessRas.acquire();
        this.errors = file.errorLog();
        this.cm = file.trace().component("iwarp.cm");
        this.rx = file.trace().component("iwarp.rx");
        this.tx = file.trace().component("iwarp.tx");
        for (int op = 0; op <= RdmapOpcode.MAX; op++) {
            sentByOpcode[op] = counter("sent " + RdmapOpcode.name(op));
            receivedByOpcode[op] = counter("received " + RdmapOpcode.name(op));
        }
        for (CompletionStatus s : CompletionStatus.values()) {
            completionsByStatus[s.ordinal()] = counter("completions " + s);
        }
        connectAttempts = counter("connect attempts");
        connectsEstablished = counter("connects established");
        connectsRejected = counter("connects rejected by peer");
        connectTimeouts = counter("connect timeouts");
        requestsAccepted = counter("requests accepted");
        requestsRejected = counter("requests rejected");
        crcErrors = counter("crc errors");
        malformedFrames = counter("malformed frames");
        asyncEventsDropped = counter("async events dropped");
    }

    private Counter counter(String name) {
        Counter c = file.counters().allocate(TYPE_ADAPTER, adapter + " " + name, 0);
        all.add(c);
        return c;
    }

    /** A counter of QP {@code qpNumber}, labelled {@code <adapter> qp <n> <name>}; the QP closes it. */
    Counter qpCounter(int qpNumber, String name) {
        return file.counters().allocate(TYPE_QP, adapter + " qp " + qpNumber + " " + name, qpNumber);
    }

    void sent(int opcode) {
        sentByOpcode[opcode].incrementAtomic();
    }

    void received(int opcode) {
        receivedByOpcode[opcode].incrementAtomic();
    }

    void completion(CompletionStatus status) {
        completionsByStatus[status.ordinal()].incrementAtomic();
    }

    void terminateSent(TerminateCode code) {
        terminateCounter(terminatesSent, "sent", code).incrementAtomic();
    }

    void terminateReceived(TerminateCode code) {
        terminateCounter(terminatesReceived, "received", code).incrementAtomic();
    }

    private Counter terminateCounter(Map<TerminateCode, Counter> map, String way, TerminateCode code) {
        return map.computeIfAbsent(code, c -> {
            Counter counter = file.counters().allocate(TYPE_TERMINATE, adapter + " terminates " + way + " " + c.describe(), c.bits());
            synchronized (all) {
                all.add(counter);
            }
            return counter;
        });
    }

    /** Records an error once per distinct cause (with a count) in the process's error log. */
    void error(String cause, String detail) {
        errors.record(adapter + ": " + cause, detail);
    }

    @Override
    public void close() {
        synchronized (all) {
            for (Counter c : all) {
                c.close();
            }
            all.clear();
        }
        ProcessRas.release();
    }
}

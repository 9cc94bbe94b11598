package dev.tandem.iwarp.ras;

import dev.tandem.iwarp.wire.RdmapOpcode;
import dev.tandem.iwarp.wire.TerminateCode;
import dev.tandem.provider.ResourceRas;
import dev.tandem.ras.Counter;
import dev.tandem.ras.CounterType;
import dev.tandem.ras.ErrorLog;
import dev.tandem.ras.RasFile;
import dev.tandem.ras.TraceComponent;
import dev.tandem.ras.TraceEvent;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one iWARP adapter reports into the process's RAS file beside what the kit's
 * {@link ResourceRas} reports for every adapter (resource counters, completions per status, errors):
 * its counters (messages per opcode, connection management, Terminates per code, CRC and framing
 * errors, frames and set-ups refused for a peer's earlier incarnation, link faults injected) and the trace
 * components {@code iwarp.cm}, {@code iwarp.rx}, {@code iwarp.tx} and {@code verbs.qp}. Counters
 * written from several threads use atomic adds; the per-QP counters ({@link QpCounters}) have one
 * writer each.
 */
public final class AdapterRas implements AutoCloseable {
    /** Counter type ids, as {@code tandem stat --type} filters them. */
    public static final int TYPE_ADAPTER = CounterType.ADAPTER.id();
    public static final int TYPE_TERMINATE = CounterType.TERMINATE.id();
    /** An engine thread's duty cycles ({@link EngineCounters}). */
    public static final int TYPE_ENGINE = CounterType.ENGINE.id();

    public static final TraceEvent CONNECT = TraceEvent.of("connect");
    public static final TraceEvent QP_CREATE = TraceEvent.of("create");
    public static final TraceEvent QP_MODIFY = TraceEvent.of("modify");
    public static final TraceEvent QP_ERROR = TraceEvent.of("to-error");
    public static final TraceEvent QP_CLOSE = TraceEvent.of("close");
    public static final TraceEvent ACCEPT = TraceEvent.of("accept");
    public static final TraceEvent REJECT = TraceEvent.of("reject");
    /** Level 5: a listener closed a pending handshake (port, reason, bytes of the Request received, source address). */
    public static final TraceEvent HANDSHAKE_DROP = TraceEvent.of("hs-drop");
    public static final TraceEvent FAULT = TraceEvent.of("fault");
    /** Level 2: the adapter's link went down (injected; sockets whose close waits for the link). */
    public static final TraceEvent LINK_DOWN = TraceEvent.of("link-dn");
    /** Level 2: the adapter's link came up (injected; sockets closed that waited for it). */
    public static final TraceEvent LINK_UP = TraceEvent.of("link-up");
    /** Level 2: every connection of the adapter was reset (injected; how many). */
    public static final TraceEvent CONNECTIONS_RESET = TraceEvent.of("conn-rst");
    public static final TraceEvent TERMINATE = TraceEvent.of("term");
    public static final TraceEvent FPDU_SENT = TraceEvent.of("fpdu-tx");
    public static final TraceEvent FPDU_RECEIVED = TraceEvent.of("fpdu-rx");
    /** Level 8: an FPDU's payload is about to be placed (qp, opcode, STag or MSN, bytes). */
    public static final TraceEvent PLACE = TraceEvent.of("rx-place");
    /** Level 8: an FPDU was sealed for sending (qp, opcode, ULPDU length, CRC). */
    public static final TraceEvent SEAL = TraceEvent.of("tx-seal");

    private final String adapter;
    /** The transport-neutral part: resource counters, owner table, error log; the adapter's core owns it. */
    private final ResourceRas core;
    private final RasFile file;
    public final ErrorLog errors;
    public final TraceComponent cm;
    public final TraceComponent rx;
    public final TraceComponent tx;
    /** QP verbs: create, modify, connect, close at level 4 (entry/exit), moves to ERROR at level 2 (rare). */
    public final TraceComponent qp;
    private final Counter[] sentByOpcode = new Counter[RdmapOpcode.MAX + 1];
    private final Counter[] receivedByOpcode = new Counter[RdmapOpcode.MAX + 1];
    public final Counter connectAttempts;
    public final Counter connectsEstablished;
    public final Counter connectsRejected;
    public final Counter connectTimeouts;
    public final Counter requestsAccepted;
    public final Counter requestsRejected;
    public final Counter crcErrors;
    public final Counter malformedFrames;
    /** Handshakes (TCP connected, MPA Request not complete) pending on the adapter's listeners right now: a gauge. */
    public final Counter handshakesPending;
    public final Counter handshakesTimedOut;
    public final Counter handshakesClosedSourceLimit;
    public final Counter handshakesClosedListenerLimit;
    /** Connections that ended (or failed) before their MPA Request was complete. */
    public final Counter handshakesClosedByPeer;
    public final Counter mpaRequestsMalformed;
    /** Requests answered with a reject Reply by the listener itself (markers, Enhanced without IRD/ORD). */
    public final Counter mpaRequestsRefused;
    public final Counter acceptFailures;
    /** Inbound frames dropped before placement because their connection's peer node has restarted since set-up. */
    public final Counter oldIncarnationFramesDropped;
    /** Connection set-ups refused because the peer presented (or answered with) a key of an earlier life of its node. */
    public final Counter oldIncarnationSetupsRefused;
    /** Times the link went down, and up again ({@link dev.tandem.verbs.LinkControl}, injected). */
    public final Counter linkDowns;
    public final Counter linkUps;
    /** Connections aborted with an RST by an injected reset ({@link dev.tandem.verbs.LinkControl#resetConnections()}). */
    public final Counter connectionsReset;
    private final Map<TerminateCode, Counter> terminatesSent = new ConcurrentHashMap<>();
    private final Map<TerminateCode, Counter> terminatesReceived = new ConcurrentHashMap<>();
    private final List<Counter> all = new ArrayList<>();

    public AdapterRas(ResourceRas core) {
        this.core = core;
        this.adapter = core.adapter();
        this.file = core.file();
        this.errors = file.errorLog();
        this.cm = file.trace().component("iwarp.cm");
        this.rx = file.trace().component("iwarp.rx");
        this.tx = file.trace().component("iwarp.tx");
        this.qp = file.trace().component("verbs.qp");
        for (int op = 0; op <= RdmapOpcode.MAX; op++) {
            sentByOpcode[op] = counter("sent " + RdmapOpcode.name(op));
            receivedByOpcode[op] = counter("received " + RdmapOpcode.name(op));
        }
        connectAttempts = counter("connect attempts");
        connectsEstablished = counter("connects established");
        connectsRejected = counter("connects rejected by peer");
        connectTimeouts = counter("connect timeouts");
        requestsAccepted = counter("requests accepted");
        requestsRejected = counter("requests rejected");
        crcErrors = counter("crc errors");
        malformedFrames = counter("malformed frames");
        handshakesPending = counter("handshakes pending");
        handshakesTimedOut = counter("handshakes timed out");
        handshakesClosedSourceLimit = counter("handshakes closed over source limit");
        handshakesClosedListenerLimit = counter("handshakes closed over listener limit");
        handshakesClosedByPeer = counter("handshakes closed by peer");
        mpaRequestsMalformed = counter("mpa requests malformed");
        mpaRequestsRefused = counter("mpa requests refused");
        acceptFailures = counter("tcp accept failures");
        oldIncarnationFramesDropped = counter("old incarnation frames dropped");
        oldIncarnationSetupsRefused = counter("old incarnation set-ups refused");
        linkDowns = counter("link down");
        linkUps = counter("link up");
        connectionsReset = counter("connections reset");
    }

    private Counter counter(String name) {
        Counter c = file.counters().allocate(TYPE_ADAPTER, adapter + " " + name, 0);
        all.add(c);
        return c;
    }

    /** Counters of one resource, labelled {@code <adapter> <resource> <name>}, all or none (see {@link ResourceRas#resourceCounters}). */
    public Counter[] resourceCounters(CounterType type, String resource, long ownerKey, String... names) {
        return core.resourceCounters(type, resource, ownerKey, names);
    }

    public void sent(int opcode) {
        sentByOpcode[opcode].incrementAtomic();
    }

    public void received(int opcode) {
        receivedByOpcode[opcode].incrementAtomic();
    }

    public void terminateSent(TerminateCode code) {
        terminateCounter(terminatesSent, "sent", code).incrementAtomic();
    }

    public void terminateReceived(TerminateCode code) {
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
    public void error(String cause, String detail) {
        core.error(cause, detail);
    }

    @Override
    public void close() {
        synchronized (all) {
            for (Counter c : all) {
                c.close();
            }
            all.clear();
        }
    }
}

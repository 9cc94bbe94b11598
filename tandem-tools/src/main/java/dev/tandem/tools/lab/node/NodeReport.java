package dev.tandem.tools.lab.node;

import dev.tandem.failover.check.ReceiverHalf;
import dev.tandem.failover.check.SenderHalf;
import dev.tandem.failover.check.SequenceState;
import dev.tandem.failover.check.SideFindings;
import dev.tandem.tools.perf.JsonWriter;
import dev.tandem.tools.perf.MiniJson;
import dev.tandem.verbs.CompletionStatus;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What a {@link LabNode} says on its stdout: one JSON object per line, its {@code type} naming the
 * report. {@link #json()} writes a report, {@link #parse} reads one back; the driver of the nodes
 * ({@link NodeProcess}) reads them.
 */
public sealed interface NodeReport {
    /** The node that reports (a, b). */
    String node();

    /** This report as one JSON object on one line. */
    String json();

    /** Its device is open and (receiver) listening on {@code port}, every adapter's address; 0 for a sender. */
    record Ready(String node, int port) implements NodeReport {
        @Override
        public String json() {
            return start("ready", node).field("port", port).endObject().toString();
        }
    }

    /** Its queue pair is connected, carried by adapter {@code adapter} (0-based, as the fail-over device counts). */
    record Connected(String node, int adapter) implements NodeReport {
        @Override
        public String json() {
            return start("connected", node).field("adapter", adapter).endObject().toString();
        }
    }

    /**
     * A fail-over event of its device.
     *
     * @param kind          the event's type ({@code Migrated}, {@code PathRestored}, ...)
     * @param adapter       the adapter it is about, -1 for none (see {@code FailoverNarration.adapter})
     * @param atEpochMicros when it happened, in microseconds since the epoch (comparable across processes)
     * @param text          the event in words
     */
    record Event(String node, String kind, int adapter, long atEpochMicros, String text) implements NodeReport {
        @Override
        public String json() {
            return start("event", node).field("event", kind).field("adapter", adapter).field("at_epoch_us", atEpochMicros)
                    .field("text", text).endObject().toString();
        }
    }

    /**
     * Where a sender stands.
     *
     * @param qpState                its queue pair's state
     * @param adapter                the adapter that carries the connection now, -1 before it is connected
     * @param lastSuccessEpochMicros when it last reaped a successful completion (epoch microseconds); 0 before
     * @param resumedEpochMicros     when its completions resumed after their longest silence (epoch microseconds); 0 before
     */
    record SenderState(String node, String qpState, int adapter, long lastSuccessEpochMicros, long resumedEpochMicros, SenderHalf half)
            implements NodeReport {
        @Override
        public String json() {
            SenderHalf h = half;
            JsonWriter j = start("sender", node).field("qp_state", qpState).field("adapter", adapter)
                    .field("last_success_epoch_us", lastSuccessEpochMicros).field("resumed_epoch_us", resumedEpochMicros)
                    .field("limit", h.limit()).field("sent", h.sent())
                    .field("bytes_sent", h.bytesSent()).field("blocks_written", h.blocksWritten())
                    .field("succeeded_through", h.succeededThrough()).field("idle", h.idle()).field("drained", h.drained())
                    .field("broken", h.broken());
            sequence(j.name("credits"), h.credits());
            findings(j.name("findings"), h.findings());
            return j.endObject().toString();
        }
    }

    /** Where a receiver stands; as {@link SenderState}, its adapter the one where the sender's Sends arrive. */
    record ReceiverState(String node, String qpState, int adapter, long lastSuccessEpochMicros, ReceiverHalf half) implements NodeReport {
        @Override
        public String json() {
            ReceiverHalf h = half;
            JsonWriter j = start("receiver", node).field("qp_state", qpState).field("adapter", adapter)
                    .field("last_success_epoch_us", lastSuccessEpochMicros).field("messages", h.messages()).field("bytes", h.bytes())
                    .field("blocks", h.blocks()).field("credits_succeeded", h.creditsSucceeded()).field("credits_idle", h.creditsIdle())
                    .field("drained", h.drained()).field("broken", h.broken());
            sequence(j.name("data"), h.data());
            findings(j.name("findings"), h.findings());
            return j.endObject().toString();
        }
    }

    /** It could not go on; it exits after this. */
    record Failed(String node, String what) implements NodeReport {
        @Override
        public String json() {
            return start("failed", node).field("what", what).endObject().toString();
        }
    }

    /**
     * The report in {@code line}, as {@link #json()} wrote it.
     *
     * @throws IllegalArgumentException when the line is no such report (not JSON, an unknown type, a member missing)
     */
    static NodeReport parse(String line) {
        Map<String, Object> m = MiniJson.object(line);
        String type = text(m, "type");
        String node = text(m, "node");
        return switch (type) {
            case "ready" -> new Ready(node, (int) number(m, "port"));
            case "connected" -> new Connected(node, (int) number(m, "adapter"));
            case "event" -> new Event(node, text(m, "event"), (int) number(m, "adapter"), number(m, "at_epoch_us"), text(m, "text"));
            case "sender" -> new SenderState(node, text(m, "qp_state"), (int) number(m, "adapter"), number(m, "last_success_epoch_us"),
                    number(m, "resumed_epoch_us"),
                    new SenderHalf(number(m, "limit"), number(m, "sent"), number(m, "bytes_sent"), number(m, "blocks_written"),
                            number(m, "succeeded_through"), flag(m, "idle"), flag(m, "drained"), flag(m, "broken"),
                            sequence(object(m, "credits")), findings(object(m, "findings")), 0));
            case "receiver" -> new ReceiverState(node, text(m, "qp_state"), (int) number(m, "adapter"),
                    number(m, "last_success_epoch_us"),
                    new ReceiverHalf(number(m, "messages"), number(m, "bytes"), number(m, "blocks"), sequence(object(m, "data")),
                            number(m, "credits_succeeded"), flag(m, "credits_idle"), flag(m, "drained"), flag(m, "broken"),
                            findings(object(m, "findings")), 0));
            case "failed" -> new Failed(node, text(m, "what"));
            default -> throw new IllegalArgumentException("a node report of unknown type '" + type + "': " + line);
        };
    }

    private static JsonWriter start(String type, String node) {
        return new JsonWriter().beginObject().field("type", type).field("node", node);
    }

    private static void sequence(JsonWriter j, SequenceState s) {
        j.beginObject().field("next", s.next()).field("missing", s.missing()).field("duplicated", s.duplicated())
                .field("reordered", s.reordered()).name("gaps").beginArray();
        s.gaps().forEach(j::value);
        j.endArray().endObject();
    }

    private static void findings(JsonWriter j, SideFindings f) {
        j.beginObject().field("lost", f.lost()).field("duplicated", f.duplicated()).field("reordered", f.reordered())
                .field("checksum_errors", f.checksumErrors()).field("errors", f.errors()).name("errors_by_status").beginObject();
        f.errorsByStatus().forEach((status, n) -> j.field(status.name(), n));
        j.endObject().field("refused", f.refused()).name("problems").beginArray();
        f.problems().forEach(j::value);
        j.endArray().field("unsaid", f.unsaid()).endObject();
    }

    private static SequenceState sequence(Map<String, Object> m) {
        return new SequenceState(number(m, "next"), number(m, "missing"), number(m, "duplicated"), number(m, "reordered"),
                strings(m, "gaps"));
    }

    private static SideFindings findings(Map<String, Object> m) {
        Map<CompletionStatus, Long> byStatus = new EnumMap<>(CompletionStatus.class);
        object(m, "errors_by_status").forEach((status, n) -> {
            if (!(n instanceof Double d)) {
                throw new IllegalArgumentException("errors_by_status." + status + " is not a number: " + n);
            }
            byStatus.put(CompletionStatus.valueOf(status), d.longValue());
        });
        return new SideFindings(number(m, "lost"), number(m, "duplicated"), number(m, "reordered"), number(m, "checksum_errors"),
                number(m, "errors"), byStatus, number(m, "refused"), strings(m, "problems"), number(m, "unsaid"));
    }

    private static Object member(Map<String, Object> m, String name) {
        if (!m.containsKey(name)) {
            throw new IllegalArgumentException("a node report lacks '" + name + "': " + m);
        }
        return m.get(name);
    }

    private static long number(Map<String, Object> m, String name) {
        if (member(m, name) instanceof Double d && d == Math.rint(d)) {
            return d.longValue();
        }
        throw new IllegalArgumentException("'" + name + "' of a node report is not a whole number: " + m.get(name));
    }

    private static String text(Map<String, Object> m, String name) {
        if (member(m, name) instanceof String s) {
            return s;
        }
        throw new IllegalArgumentException("'" + name + "' of a node report is not a string: " + m.get(name));
    }

    private static boolean flag(Map<String, Object> m, String name) {
        if (member(m, name) instanceof Boolean b) {
            return b;
        }
        throw new IllegalArgumentException("'" + name + "' of a node report is not true or false: " + m.get(name));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Map<String, Object> m, String name) {
        if (member(m, name) instanceof Map<?, ?> o) {
            return (Map<String, Object>) o;
        }
        throw new IllegalArgumentException("'" + name + "' of a node report is not an object: " + m.get(name));
    }

    private static List<String> strings(Map<String, Object> m, String name) {
        if (!(member(m, name) instanceof List<?> list)) {
            throw new IllegalArgumentException("'" + name + "' of a node report is not an array: " + m.get(name));
        }
        List<String> out = new ArrayList<>(list.size());
        for (Object o : list) {
            out.add(String.valueOf(o));
        }
        return out;
    }
}

package dev.tandem.tools.ras;

import dev.tandem.ras.CounterSnapshot;
import dev.tandem.ras.RasListing;
import dev.tandem.tools.perf.JsonWriter;
import dev.tandem.tools.text.TimeFormat;

/**
 * {@code tandem stat --json}: one JSON object per refresh, on one line.
 * <pre>{@code
 * {"dir":"/tmp/tandem","time":"2025-06-01T10:00:00.000Z","time_ms":1748772000000,
 *  "processes":[{"pid":4711,"alive":true,"owner_state":"open","file":"/tmp/tandem/4711.ras",
 *    "layout_version":1,"start_time":"...","start_time_ms":...,"heartbeat":"...","heartbeat_ms":...,
 *    "heartbeat_age_ms":12,"command":"...","counters_total":3,
 *    "counters":[{"id":0,"label":"iwarp0@127.0.1.1 qp 3 bytes_sent","type":2,"owner":3,"value":1024}]}],
 *  "unreadable":[{"file":"...","reason":"..."}],"hidden_dead":0}
 * }</pre>
 */
final class StatJson {
    private StatJson() {
    }

    static String of(StatFrame frame) {
        JsonWriter w = new JsonWriter().beginObject()
                .field("dir", frame.dir().toString())
                .field("time", TimeFormat.iso(frame.nowMs()))
                .field("time_ms", frame.nowMs())
                .name("processes").beginArray();
        for (StatFrame.ProcessCounters pc : frame.processes()) {
            w.beginObject();
            process(w, pc.process(), frame.nowMs());
            w.field("counters_total", pc.total()).name("counters").beginArray();
            for (CounterSnapshot c : pc.counters()) {
                w.beginObject().field("id", c.id()).field("label", c.label()).field("type", c.typeId())
                        .field("owner", c.ownerKey()).field("value", c.value()).endObject();
            }
            w.endArray().endObject();
        }
        w.endArray();
        unreadable(w, frame.unreadable());
        return w.field("hidden_dead", frame.hiddenDead()).endObject().toString();
    }

    /** The header fields of {@code p} into the open object of {@code w}. */
    static void process(JsonWriter w, ProcessView p, long nowMs) {
        w.field("pid", p.pid())
                .field("alive", p.alive())
                .field("owner_state", p.fileState())
                .field("file", p.file().toString())
                .field("layout_version", p.header().layoutVersion())
                .field("start_time", TimeFormat.iso(p.header().startTimeMs()))
                .field("start_time_ms", p.header().startTimeMs())
                .field("heartbeat", TimeFormat.iso(p.header().heartbeatMs()))
                .field("heartbeat_ms", p.header().heartbeatMs())
                .field("heartbeat_age_ms", nowMs - p.header().heartbeatMs())
                .field("command", p.header().command());
    }

    /** {@code "unreadable":[{"file":...,"reason":...}]} into the open object of {@code w}. */
    static void unreadable(JsonWriter w, java.util.List<RasListing.Unreadable> files) {
        w.name("unreadable").beginArray();
        for (RasListing.Unreadable u : files) {
            w.beginObject().field("file", u.file().toString()).field("reason", u.reason()).endObject();
        }
        w.endArray();
    }
}

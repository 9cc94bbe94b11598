package dev.tandem.tools.ras;

import dev.tandem.ras.ResourceEntry;
import dev.tandem.tools.perf.JsonWriter;
import dev.tandem.tools.text.TimeFormat;

/**
 * {@code tandem stat --resources --json}: one JSON object per refresh, on one line.
 * <pre>{@code
 * {"dir":"/tmp/tandem","time":"2025-06-01T10:00:00.000Z","time_ms":1748772000000,
 *  "processes":[{"pid":4711,"alive":true,"owner_state":"open","file":"/tmp/tandem/4711.ras", ... ,
 *    "resources_dropped":0,
 *    "resources":[{"type":"QP","id":3,"name":"iwarp0@127.0.1.1 qp 3","pid":4711,"thread":"main",
 *      "created":"2025-06-01T09:59:58.000Z","created_ms":1748771998000,
 *      "call_site":"com.acme.App.main(App.java:42)","detail":"state RTS peer 127.0.1.2:4791"}]}],
 *  "unreadable":[{"file":"...","reason":"..."}],"hidden_dead":0}
 * }</pre>
 */
final class ResourceJson {
    private ResourceJson() {
    }

    static String of(ResourceFrame frame) {
        JsonWriter w = new JsonWriter().beginObject()
                .field("dir", frame.dir().toString())
                .field("time", TimeFormat.iso(frame.nowMs()))
                .field("time_ms", frame.nowMs())
                .name("processes").beginArray();
        for (ResourceFrame.ProcessResources pr : frame.processes()) {
            w.beginObject();
            StatJson.process(w, pr.process(), frame.nowMs());
            w.field("resources_dropped", pr.dropped()).name("resources").beginArray();
            for (ResourceEntry r : pr.resources()) {
                w.beginObject().field("type", r.type()).field("id", r.id()).field("name", r.name()).field("pid", r.pid())
                        .field("thread", r.thread()).field("created", TimeFormat.iso(r.createdMs())).field("created_ms", r.createdMs())
                        .field("call_site", r.callSite()).field("detail", r.detail()).endObject();
            }
            w.endArray().endObject();
        }
        w.endArray();
        StatJson.unreadable(w, frame.unreadable());
        return w.field("hidden_dead", frame.hiddenDead()).endObject().toString();
    }
}

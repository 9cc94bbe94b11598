package dev.tandem.tools.ras;

import dev.tandem.ras.ErrorEntry;
import dev.tandem.tools.perf.JsonWriter;
import dev.tandem.tools.text.TimeFormat;

/**
 * {@code tandem errors --json}: one JSON object,
 * {@code {"dir":..,"time":..,"processes":[{header fields as stat's,"dropped":0,"errors":[{"cause":..,"count":3,
 * "first":"2025-..Z","first_ms":..,"last":..,"last_ms":..,"text":".."}]}],"unreadable":[..],"hidden_dead":0}}.
 */
final class ErrorsJson {
    private ErrorsJson() {
    }

    static String of(ErrorReport report) {
        JsonWriter w = new JsonWriter().beginObject()
                .field("dir", report.dir().toString())
                .field("time", TimeFormat.iso(report.nowMs()))
                .field("time_ms", report.nowMs())
                .name("processes").beginArray();
        for (ErrorReport.ProcessErrors pe : report.processes()) {
            w.beginObject();
            StatJson.process(w, pe.process(), report.nowMs());
            w.field("dropped", pe.dropped()).name("errors").beginArray();
            for (ErrorEntry e : pe.errors()) {
                w.beginObject().field("cause", e.cause()).field("count", e.count())
                        .field("first", TimeFormat.iso(e.firstMs())).field("first_ms", e.firstMs())
                        .field("last", TimeFormat.iso(e.lastMs())).field("last_ms", e.lastMs())
                        .field("text", e.text()).endObject();
            }
            w.endArray().endObject();
        }
        w.endArray();
        StatJson.unreadable(w, report.unreadable());
        return w.field("hidden_dead", report.hiddenDead()).endObject().toString();
    }
}

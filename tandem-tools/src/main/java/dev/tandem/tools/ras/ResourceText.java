package dev.tandem.tools.ras;

import dev.tandem.ras.ResourceEntry;
import dev.tandem.tools.text.TextTable;
import dev.tandem.tools.text.TimeFormat;

import java.io.PrintWriter;

/** {@code tandem stat --resources} for people: the process listing, then each process's resource table with owners. */
final class ResourceText {
    private ResourceText() {
    }

    static void print(PrintWriter out, ResourceFrame frame) {
        if (!ProcessTable.printOrNone(out, frame.dir(), frame.nowMs(),
                frame.processes().stream().map(ResourceFrame.ProcessResources::process).toList(), frame.unreadable(), frame.hiddenDead())) {
            return;
        }
        for (ResourceFrame.ProcessResources pr : frame.processes()) {
            out.println();
            int n = pr.resources().size();
            out.println(pr.process().title() + ": " + n + (n == 1 ? " live resource" : " live resources") + ", "
                    + pr.dropped() + " registration(s) dropped because the table was full");
            if (n == 0) {
                continue;
            }
            TextTable table = new TextTable("TYPE", ">ID", "NAME", ">PID", "THREAD", "CREATED (UTC)", ">AGE", "CALL SITE", "DETAIL");
            for (ResourceEntry r : pr.resources()) {
                table.row(r.type(), r.id(), r.name(), r.pid(), r.thread(), TimeFormat.iso(r.createdMs()),
                        TimeFormat.age(frame.nowMs() - r.createdMs()), r.callSite(), r.detail());
            }
            table.print(out, "  ");
        }
    }
}

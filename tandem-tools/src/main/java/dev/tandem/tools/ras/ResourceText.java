package dev.tandem.tools.ras;

import dev.tandem.ras.ResourceEntry;

import java.io.PrintWriter;

/** {@code tandem stat --resources} for people: the process listing, then each process's resource table with owners. */
final class ResourceText {
    private ResourceText() {
    }

    static void print(PrintWriter out, ResourceFrame frame) {
        if (frame.processes().isEmpty() && frame.unreadable().isEmpty()) {
            out.println("no Tandem processes in " + frame.dir());
            if (frame.hiddenDead() > 0) {
                out.println("  (" + frame.hiddenDead() + " file(s) of processes dead for more than a day not shown; --all lists them)");
            }
            return;
        }
        out.println("Tandem processes in " + frame.dir() + " at " + TimeFormat.iso(frame.nowMs()) + ":");
        ProcessTable.print(out, frame.processes().stream().map(ResourceFrame.ProcessResources::process).toList(),
                frame.unreadable(), frame.hiddenDead(), frame.nowMs());
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

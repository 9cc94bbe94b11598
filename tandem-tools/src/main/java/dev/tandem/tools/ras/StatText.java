package dev.tandem.tools.ras;

import dev.tandem.ras.CounterSnapshot;
import dev.tandem.tools.text.TextTable;

import java.io.PrintWriter;

/** {@code tandem stat} for people: the process listing, then each process's counters grouped by owner. */
final class StatText {
    private StatText() {
    }

    static void print(PrintWriter out, StatFrame frame) {
        if (!ProcessTable.printOrNone(out, frame.dir(), frame.nowMs(),
                frame.processes().stream().map(StatFrame.ProcessCounters::process).toList(), frame.unreadable(), frame.hiddenDead())) {
            return;
        }
        for (StatFrame.ProcessCounters pc : frame.processes()) {
            out.println();
            out.println(pc.process().title() + ": " + counted(pc, frame.filter()));
            TextTable table = new TextTable(">OWNER", ">TYPE", ">VALUE", "LABEL");
            Long owner = null;
            for (CounterSnapshot c : pc.counters()) {
                boolean first = owner == null || owner != c.ownerKey();
                owner = c.ownerKey();
                table.row(first ? String.valueOf(c.ownerKey()) : "", CounterTypeConverter.describe(c.typeId()), c.value(), c.label());
            }
            if (!table.isEmpty()) {
                table.print(out, "  ");
            }
        }
    }

    private static String counted(StatFrame.ProcessCounters pc, CounterFilter filter) {
        if (filter.isAll()) {
            return pc.total() + (pc.total() == 1 ? " counter" : " counters");
        }
        return pc.counters().size() + " of " + pc.total() + " counters match " + filter.describe();
    }
}

package dev.tandem.tools.lab;

import dev.tandem.tools.text.TextTable;

import java.io.PrintWriter;

/** How {@code tandem lab} shows a lab: what {@code up} built, and what {@code status} found. */
final class LabText {
    private LabText() {
    }

    /** The hosts, their adapters with addresses and where each cable goes; then the switches. */
    static void printBuilt(PrintWriter out, LabPlan plan) {
        out.println("lab " + plan.prefix() + " is up: " + plan.describe());
        TextTable hosts = new TextTable("host", "namespace", "adapter", "address", "cable to");
        for (int i = 1; i <= plan.hosts(); i++) {
            for (int k = 1; k <= plan.adapters(); k++) {
                String cable = plan.topology() == Topology.SWITCHED
                        ? plan.switchEnd(k).link() + " (port " + plan.switchPortEnd(i, k).link() + ")"
                        : new Target.Adapter(3 - i, k).name();
                hosts.row("h" + i, plan.hostNamespace(i), plan.adapterLink(k), plan.address(i, k).getHostAddress() + "/24", cable);
            }
        }
        hosts.print(out, "  ");
        if (plan.topology() == Topology.SWITCHED) {
            TextTable switches = new TextTable("switch", "namespace", "address");
            for (int k = 1; k <= plan.adapters(); k++) {
                switches.row(plan.switchEnd(k).link(), plan.switchNamespace(), plan.switchAddress(k).getHostAddress() + "/24");
            }
            out.println();
            switches.print(out, "  ");
            out.println("A socket bound to an adapter's address goes through that adapter only; the switches route between fabrics.");
        } else {
            out.println("A socket bound to an adapter's address goes through that adapter only, and reaches only the other end of its cable.");
        }
        String p = Lab.prefixOption(plan.prefix());
        out.println("Next: tandem lab fail" + p + " h1.a1 (pull a cable)"
                + (plan.topology() == Topology.SWITCHED ? ", tandem lab fail" + p + " switch1 (a dead switch)" : "")
                + ", tandem lab heal" + p + " ..., tandem lab status" + p + ", tandem lab down" + p);
        out.println("Run a program on a host: ip netns exec " + plan.hostNamespace(1) + " COMMAND");
    }

    /** The lab's summary line, then each namespace's links with their condition and addresses. */
    static void printStatus(PrintWriter out, LabStatus status) {
        String p = Lab.prefixOption(status.prefix());
        out.println("lab " + status.prefix() + ": " + status.plan().map(LabPlan::describe).orElseGet(
                () -> "incomplete (" + status.problem().orElseThrow() + "); 'tandem lab down" + p + "' removes it"));
        TextTable table = new TextTable("namespace", "link", "condition", "state", "addresses");
        for (NamespaceState ns : status.namespaces()) {
            if (ns.links().isEmpty()) {
                table.row(ns.namespace(), "-", "-", "-", "-");
            }
            for (LinkState link : ns.links()) {
                table.row(ns.namespace(), link.name(), link.condition(), link.state(),
                        link.addresses().isEmpty() ? "-" : String.join(" ", link.addresses()));
            }
        }
        table.print(out, "  ");
    }
}

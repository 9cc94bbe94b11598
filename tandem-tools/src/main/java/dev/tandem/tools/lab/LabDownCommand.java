package dev.tandem.tools.lab;

import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.util.List;

/** {@code tandem lab down}: removes a lab, whole or what a crash left of it. */
@Command(name = "down",
        description = {"Deletes every namespace of the lab (P-hN, P-sw), and with them its cables and switches.",
                "Works on a half-built lab and after a crash; with nothing left it does nothing and succeeds."},
        footer = {"", "Exit code 0 when no namespace of the lab is left, 1 when 'ip' failed, 2 on bad usage."})
public final class LabDownCommand extends LabSubcommand {
    public LabDownCommand() {
    }

    @Override
    int work(PrintWriter out, Ip ip) {
        List<String> deleted = Lab.down(prefix, ip);
        out.println(deleted.isEmpty() ? "lab " + prefix + ": nothing to delete" : "lab " + prefix + " is down: deleted " + String.join(", ", deleted));
        return 0;
    }
}

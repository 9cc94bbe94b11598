package dev.tandem.tools.lab;

import picocli.CommandLine.Command;

import java.io.PrintWriter;

/** {@code tandem lab status}: what of a lab exists now, read from the system. */
@Command(name = "status",
        description = {"Shows the lab's namespaces and the condition of each link, read from the system.",
                "Conditions: up; down (failed here); no carrier (the far end of its cable is down).",
                "Also shows a half-built lab, or what a crash left of one."},
        footer = {"", "Exit code 0 when the lab exists (whole or not), 1 when there is none or 'ip' failed, 2 on bad usage."})
public final class LabStatusCommand extends LabSubcommand {
    public LabStatusCommand() {
    }

    @Override
    int work(PrintWriter out, Ip ip) {
        LabStatus status = LabStatus.read(prefix, ip);
        if (status.isEmpty()) {
            throw new LabException("there is no lab " + prefix + ": 'tandem lab up" + Lab.prefixOption(prefix) + "' builds one");
        }
        LabText.printStatus(out, status);
        return 0;
    }
}

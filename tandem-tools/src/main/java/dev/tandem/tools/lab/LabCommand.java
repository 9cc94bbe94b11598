package dev.tandem.tools.lab;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.util.Objects;
import java.util.function.Supplier;

/** {@code tandem lab}: build, break, mend and remove a lab of network namespaces; the work is in its subcommands. */
@Command(name = "lab",
        description = {"Test hosts made of Linux network namespaces, to try fail-over with pulled cables and dead switches.",
                "Hosts are namespaces P-h1, P-h2, ...; adapter K of host I is the link aK there, address 10.77.K.I/24.",
                "Switched: adapter K is cabled to switch K (a bridge in P-sw); the switches route between fabrics.",
                "Switchless: two hosts, adapter K of one cabled to adapter K of the other.",
                "Needs root and the 'ip' command of iproute2."},
        subcommands = {LabUpCommand.class, LabFailCommand.class, LabHealCommand.class, LabStatusCommand.class, LabDownCommand.class},
        footer = {"", "Examples:", "  sudo tandem lab up --switched --hosts 2 --adapters 2", "  sudo tandem lab fail h1.a1",
                "  sudo tandem lab heal h1.a1", "  sudo tandem lab fail switch1", "  sudo tandem lab status", "  sudo tandem lab down",
                "  sudo ip netns exec tandem-h1 COMMAND   (run a program on host 1)"})
public final class LabCommand implements Runnable {
    private final Supplier<LabPreflight> preflight;

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    /** The command for this process: it checks this process's uid and {@code ip}. */
    public LabCommand() {
        this(LabPreflight::ofThisProcess);
    }

    /** The command with {@code preflight} saying whether root and {@code ip} are there (tests give their own). */
    public LabCommand(Supplier<LabPreflight> preflight) {
        this.preflight = Objects.requireNonNull(preflight, "preflight");
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing lab command: try 'tandem lab up', 'fail', 'heal', 'status' or 'down'");
    }

    /** Whether this machine and process can run a lab. */
    LabPreflight preflight() {
        return preflight.get();
    }
}

package dev.tandem.tools.lab;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

import java.io.PrintWriter;

/** {@code tandem lab up}: builds a lab and prints what it built. */
@Command(name = "up", sortOptions = false,
        description = {"Builds a lab: namespaces as hosts, adapters with addresses, cables and (switched) switches.",
                "A lab of the same name must not exist. A build that fails part way removes what it built."},
        footer = {"", "Exit code 0 when the lab is up, 1 when it could not be built, 2 on bad usage."})
public final class LabUpCommand extends LabSubcommand {
    @Option(names = "--switched", description = "a switch (bridge) per fabric; any adapter reaches any other host's adapter (default)")
    boolean switched;

    @Option(names = "--switchless", description = "two hosts, adapter K of one cabled straight to adapter K of the other")
    boolean switchless;

    @Option(names = "--hosts", paramLabel = "N", defaultValue = "2", description = "number of hosts (default ${DEFAULT-VALUE})")
    int hosts;

    @Option(names = "--adapters", paramLabel = "M", defaultValue = "2", description = "adapters per host (default ${DEFAULT-VALUE})")
    int adapters;

    private LabPlan plan;

    public LabUpCommand() {
    }

    @Override
    void validate() {
        if (switched && switchless) {
            throw new ParameterException(spec.commandLine(), "--switched and --switchless exclude each other: choose one topology");
        }
        Topology topology = switchless ? Topology.SWITCHLESS : Topology.SWITCHED;
        plan = usage(() -> new LabPlan(prefix, topology, hosts, adapters));
    }

    @Override
    int work(PrintWriter out, Ip ip) {
        Lab.up(plan, ip);
        LabText.printBuilt(out, plan);
        return 0;
    }
}

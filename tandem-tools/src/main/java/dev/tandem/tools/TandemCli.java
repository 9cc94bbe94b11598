package dev.tandem.tools;

import dev.tandem.tools.demo.DemoCommand;
import dev.tandem.tools.dump.DumpCommand;
import dev.tandem.tools.lab.LabCommand;
import dev.tandem.tools.perf.PerfCommand;
import dev.tandem.tools.ras.ErrorsCommand;
import dev.tandem.tools.ras.StatCommand;
import dev.tandem.tools.ras.TraceCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The {@code tandem} command line. */
@Command(name = "tandem",
        description = "Tandem: a pure-Java RDMA stack with a software iWARP NIC over TCP.",
        subcommands = {DemoCommand.class, PerfCommand.class, StatCommand.class, ErrorsCommand.class, TraceCommand.class,
                DumpCommand.class, LabCommand.class},
        footer = {"", "Run 'tandem COMMAND --help' for a command's options."})
public final class TandemCli implements Runnable {
    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing command: try 'tandem demo' or 'tandem perf write_bw'");
    }

    /** The command line with its subcommands and error reporting set up. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new TandemCli());
        cl.setExecutionExceptionHandler(new ErrorReporter());
        return cl;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}

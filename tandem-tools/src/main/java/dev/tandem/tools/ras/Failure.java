package dev.tandem.tools.ras;

import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;

/** Reports a {@link RasToolException} the same way for every RAS command: one line on stderr, exit 1. */
final class Failure {
    /** Exit code when the process, file or data asked for is not there (bad usage exits with 2). */
    static final int EXIT_NOT_FOUND = 1;

    private Failure() {
    }

    static int report(CommandSpec spec, RasToolException e) {
        spec.commandLine().getOut().flush();
        PrintWriter err = spec.commandLine().getErr();
        err.println("tandem " + spec.name() + ": error: " + e.getMessage());
        err.flush();
        return EXIT_NOT_FOUND;
    }
}
